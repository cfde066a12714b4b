// SPDX-License-Identifier: GPL-2.0
/*
 * A suite result (history.json, from 'abpath bench --suite' or read back
 * with --from) as Markdown, one table per experiment, to paste into the
 * project's documents as is, and as plots: one per experiment, the
 * parameter on the x axis, every measured run as a point and each mode's
 * geometric means joined by a line.  Several suite results (the patched
 * and the stock backend, say) give one table per experiment across them,
 * so that they are compared cell by cell, with the same estimator, and
 * not by hand.  Every table puts the source's own figure beside ours.
 *
 * Everything is computed from the runs kept in the JSON (the samples of
 * each point's bench object), with the statistics of statistics.c: the
 * same data always give the same table.  An experiment this version does
 * not know gets the generic table of the workload's value.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "experiments.h"
#include "../output.h"
#include "statistics.h"

static const struct suite_exp generic = {
	.primary = { SM_VALUE, NULL, NULL },
	.cols = {
		{ "legacy", SC_GMEAN, BENCH_LEGACY, { SM_VALUE } },
		{ "optimized", SC_GMEAN, BENCH_OPTIMIZED, { SM_VALUE } },
		{ "legacy/optimized [95% CI]", SC_RATIO_CI, 0, { SM_VALUE } },
		{ "p", SC_P, 0, { SM_VALUE } },
	},
};

/* One mode's measured runs of one point, as numbers. */
struct runs {
	double *v[2];
	size_t n[2];
};

static double num(json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

static const char *param_text(json_t *param, char *buf, size_t len)
{
	if (json_is_string(param))
		snprintf(buf, len, "%s", json_string_value(param));
	else if (json_is_integer(param))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(param));
	else if (json_is_number(param))
		snprintf(buf, len, "%g", json_number_value(param));
	else
		snprintf(buf, len, "?");
	return buf;
}

/* A counter, or the sum of counters named "a+b"; NaN if one is missing. */
static double counter(json_t *cnt, const char *names)
{
	const char *plus = strchr(names, '+');
	char name[64];

	if (!plus)
		return num(json_object_get(cnt, names));
	snprintf(name, sizeof(name), "%.*s", (int)(plus - names), names);
	return num(json_object_get(cnt, name)) + counter(cnt, plus + 1);
}

static double sample_metric(json_t *s, const char *path,
			    const struct suite_metric *m)
{
	json_t *res = json_object_get(s, "results"), *cnt;
	double a, b;

	switch (m->kind) {
	case SM_VALUE:
		return num(json_object_get(s, "value"));
	case SM_RESULT:
		a = num(json_object_get(res, m->a));
		return isfinite(a) || !m->b ? a : num(json_object_get(res, m->b));
	case SM_RESULT_IN:
		return num(json_object_get(json_object_get(res, m->a), m->b));
	case SM_COUNTERS:
		cnt = json_object_get(json_object_get(s, "counters"), path);
		a = counter(cnt, m->a);
		b = counter(cnt, m->b);
		return b > 0 ? a / b : NAN;
	}
	return NAN;
}

static int mode_of(json_t *s)
{
	const char *m = json_string_value(json_object_get(s, "mode"));

	/* Warm-ups and invalid runs are in no statistic. */
	if (!m || json_is_true(json_object_get(s, "warmup")) ||
	    json_is_string(json_object_get(s, "invalid")))
		return -1;
	return !strcmp(m, bench_mode_name[BENCH_LEGACY]) ? BENCH_LEGACY :
	       !strcmp(m, bench_mode_name[BENCH_OPTIMIZED]) ? BENCH_OPTIMIZED
							    : -1;
}

/* The measured runs of a point that have the metric; NaNs left out. */
static int get_runs(json_t *point, const struct suite_metric *m,
		    struct runs *r)
{
	json_t *bench = json_object_get(point, "bench");
	json_t *samples = json_object_get(bench, "samples"), *s;
	const char *path = json_string_value(json_object_get(bench, "path"));
	size_t i;
	double v;
	int mode;

	for (int k = 0; k < 2; k++) {
		r->n[k] = 0;
		r->v[k] = calloc(json_array_size(samples) + 1, sizeof(double));
		if (!r->v[k])
			return -ENOMEM;
	}
	json_array_foreach(samples, i, s) {
		mode = mode_of(s);
		v = mode < 0 ? NAN : sample_metric(s, path ? path : "", m);
		if (isfinite(v))
			r->v[mode][r->n[mode]++] = v;
	}
	return 0;
}

static void free_runs(struct runs *r)
{
	free(r->v[0]);
	free(r->v[1]);
}

/* Sum of counter a over sum of counter b, over one mode's measured runs. */
static double per_call(json_t *point, const struct suite_col *c)
{
	json_t *bench = json_object_get(point, "bench"), *s, *cnt;
	const char *path = json_string_value(json_object_get(bench, "path"));
	double a = 0, b = 0, x, y;
	size_t i;

	json_array_foreach(json_object_get(bench, "samples"), i, s) {
		if (mode_of(s) != c->mode)
			continue;
		cnt = json_object_get(json_object_get(s, "counters"),
				      path ? path : "");
		x = counter(cnt, c->m.a);
		y = counter(cnt, c->m.b);
		if (isfinite(x) && isfinite(y)) {
			a += x;
			b += y;
		}
	}
	return b > 0 ? a / b : NAN;
}

static double hz_of(json_t *point)
{
	json_t *s = json_array_get(json_object_get(json_object_get(point,
					"bench"), "samples"), 0);

	return num(json_object_get(json_object_get(s, "results"), "hz"));
}

static void fmt_ratio(char *buf, size_t len, double v, double lo, double hi)
{
	char a[32], b[32], c[32];

	if (!isfinite(v))
		snprintf(buf, len, "–");
	else if (!isfinite(lo) || !isfinite(hi))
		snprintf(buf, len, "%s", out_fmt_sig(a, sizeof(a), v, 3));
	else
		snprintf(buf, len, "%s [%s–%s]", out_fmt_sig(a, sizeof(a), v, 3),
			 out_fmt_sig(b, sizeof(b), lo, 3),
			 out_fmt_sig(c, sizeof(c), hi, 3));
}

/* NaN without runs, or with a run of 0 or less. */
static double gmean(const double *v, size_t n)
{
	struct st_summary s;

	return n && !st_summarize(v, n, &s) ? s.gmean : NAN;
}

static double mean(const double *v, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return n ? sum / n : NAN;
}

static void fmt_num(char *buf, size_t len, double v, int sig)
{
	if (isfinite(v))
		out_fmt_sig(buf, len, v, sig);
	else
		snprintf(buf, len, "–");
}

/* "k/n": measured runs with results.<a> true, of those that say. */
static void flagged(json_t *point, const struct suite_col *c, char *buf,
		    size_t len)
{
	json_t *bench = json_object_get(point, "bench"), *s, *v;
	size_t i, k = 0, n = 0;

	json_array_foreach(json_object_get(bench, "samples"), i, s) {
		v = json_object_get(json_object_get(s, "results"), c->m.a);
		if (mode_of(s) < 0 || !json_is_boolean(v))
			continue;
		n++;
		k += json_is_true(v);
	}
	if (n)
		snprintf(buf, len, "%zu/%zu", k, n);
	else
		snprintf(buf, len, "–");
}

/*
 * "k in r/n runs": the RCU stalls the bench kept with one mode's runs
 * (with no CPU stalled, so the legacy arm's collapse), and in how many
 * of them; "0" where there were none.
 */
static void stalls(json_t *point, const struct suite_col *c, char *buf,
		   size_t len)
{
	json_t *bench = json_object_get(point, "bench"), *s, *kr;
	const char *m;
	size_t i, k = 0, r = 0, n = 0;

	json_array_foreach(json_object_get(bench, "samples"), i, s) {
		m = json_string_value(json_object_get(s, "mode"));
		if (!m || strcmp(m, bench_mode_name[c->mode]))
			continue;
		n++;
		kr = json_object_get(s, "kernel_reports");
		if (!kr)
			continue;
		r++;
		k += (size_t)json_integer_value(json_object_get(kr,
						"rcu_stalls_starved"));
	}
	if (k)
		snprintf(buf, len, "%zu in %zu/%zu runs", k, r, n);
	else
		snprintf(buf, len, n ? "0" : "–");
}

/* One cell of the table; "–" where the runs do not give a number. */
static int cell(json_t *point, const struct suite_col *c, char *buf,
		size_t len)
{
	struct runs r = { { NULL, NULL }, { 0, 0 } };
	double scale = c->scale ? c->scale : 1;
	struct st_ratio q;
	struct st_mw mw;
	char p[32];
	double lm;
	int err;

	if (c->kind == SC_FLAGGED) {
		flagged(point, c, buf, len);
		return 0;
	}
	if (c->kind == SC_STALLS) {
		stalls(point, c, buf, len);
		return 0;
	}
	if (c->kind == SC_PER_CALL) {
		lm = per_call(point, c) * scale;
		/* A whole count reads better without ".000". */
		if (isfinite(lm) && lm == floor(lm) && fabs(lm) < 1e15)
			snprintf(buf, len, "%.0f", lm);
		else
			fmt_num(buf, len, lm, 4);
		return 0;
	}
	err = get_runs(point, &c->m, &r);
	if (err)
		goto out;
	switch (c->kind) {
	case SC_GMEAN:
		fmt_num(buf, len, gmean(r.v[c->mode], r.n[c->mode]) * scale, 4);
		break;
	case SC_MEAN:
		fmt_num(buf, len, mean(r.v[c->mode], r.n[c->mode]), 4);
		break;
	case SC_PER_HZ:
		fmt_num(buf, len, gmean(r.v[c->mode], r.n[c->mode]) /
			hz_of(point), 3);
		break;
	case SC_RATIO_CI:
		q = (struct st_ratio){ NAN, NAN, NAN, NAN };
		if (r.n[0] && r.n[1])
			st_ratio_welch(r.v[0], r.n[0], r.v[1], r.n[1], 0.95, &q);
		fmt_ratio(buf, len, q.value, q.lo, q.hi);
		break;
	case SC_P:
		if (!r.n[0] || !r.n[1] ||
		    st_mann_whitney(r.v[0], r.n[0], r.v[1], r.n[1], &mw))
			snprintf(buf, len, "–");
		else
			snprintf(buf, len, "%s", st_fmt_p(p, sizeof(p), mw.p) +
				 (p[1] == '=' ? 2 : 1));
		break;
	case SC_PER_CALL:
	case SC_FLAGGED:
	case SC_STALLS:
		break;
	}
out:
	free_runs(&r);
	return err;
}

static const char *str(json_t *j, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? s : dflt;
}

/*
 * The legacy arm's site as the result recorded it (provenance.sites), so
 * that a variant (timer_fastpath on PREEMPT_RT) is never read as history.
 */
static const char *legacy_site(json_t *exp, json_t *history)
{
	json_t *pv = json_object_get(exp, "provenance");

	if (!pv)
		pv = json_object_get(history, "provenance");
	return str(json_object_get(pv, "sites"), str(exp, "path", ""), NULL);
}

static void title_line(char *buf, size_t len, json_t *exp, json_t *history)
{
	const struct suite_exp *e = suite_find_exp(str(exp, "experiment", NULL));
	json_t *cpus = json_object_get(exp, "cpus");

	char n[32] = "?";

	if (!cpus)
		cpus = json_object_get(history, "cpus");
	if (json_is_integer(cpus))
		snprintf(n, sizeof(n), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(cpus));
	snprintf(buf, len, "%s: %s (%s vCPU%s)", str(exp, "path", "?"),
		 str(exp, "title", e ? e->title : str(exp, "experiment", "?")),
		 n, json_integer_value(cpus) == 1 ? "" : "s");
}

/* "forkexit -N <idle tasks> -i 300" from the template, for the footer. */
static void command_line(char *buf, size_t len, json_t *exp)
{
	const char *t = str(exp, "args_template", ""), *end;
	size_t used = (size_t)snprintf(buf, len, "%s",
				       str(exp, "workload", "?"));

	for (; *t && used < len; t = *end ? end + 1 : end) {
		end = strchr(t, ' ');
		if (!end)
			end = t + strlen(t);
		if (end - t == 1 && *t == '@')
			used += (size_t)snprintf(buf + used, len - used, " <%s>",
						 str(exp, "param_name", "P"));
		else if (end > t)
			used += (size_t)snprintf(buf + used, len - used, " %.*s",
						 (int)(end - t), t);
	}
}

static int print_exp(FILE *f, json_t *exp, json_t *history)
{
	const struct suite_exp *e = suite_find_exp(str(exp, "experiment", NULL));
	const struct suite_col *c;
	json_t *points = json_object_get(exp, "points"), *pt, *runs;
	char buf[1024];
	size_t i;
	int err;

	if (!e)
		e = &generic;
	title_line(buf, sizeof(buf), exp, history);
	fprintf(f, "### %s\n\n| %s | source |", buf,
		str(exp, "param_name", "parameter"));
	for (c = e->cols; c->head; c++)
		fprintf(f, " %s |", c->head);
	fputs("\n|---|---|", f);
	for (c = e->cols; c->head; c++)
		fputs(c->kind == SC_RATIO_CI ? "---|" : "---:|", f);
	fputc('\n', f);
	json_array_foreach(points, i, pt) {
		param_text(json_object_get(pt, "param"), buf, sizeof(buf));
		fprintf(f, "| %s | %s |", buf, suite_source_at(e, buf) ?: "–");
		for (c = e->cols; c->head; c++) {
			err = cell(pt, c, buf, sizeof(buf));
			if (err)
				return err;
			fprintf(f, " %s |", buf);
		}
		fputc('\n', f);
	}
	if (!json_array_size(points))
		fputs("| (no points) |\n", f);
	command_line(buf, sizeof(buf), exp);
	runs = json_object_get(exp, "runs_per_mode");
	fprintf(f, "\nWorkload `%s`, path %s; ", buf, str(exp, "path", "?"));
	if (json_is_integer(runs))
		fprintf(f, "%" JSON_INTEGER_FORMAT " measured runs per mode "
			"after %" JSON_INTEGER_FORMAT " warm-up, ",
			json_integer_value(runs), json_integer_value(
				json_object_get(exp, "warmup_per_mode")));
	fputs("interleaved ABBA. Per mode: the geometric mean of the "
	      "measured runs; legacy/optimized [95% CI]: the ratio of the "
	      "geometric means, Welch t interval on the logs; p: two-sided "
	      "Mann-Whitney U, exact given the ties.", f);
	if (e->note)
		fprintf(f, " %s", e->note);
	fputs("\n\n", f);
	if (json_string_value(json_object_get(exp, "reproduces")) || e->reproduces)
		fprintf(f, "Reproduces: %s\n\n", str(exp, "reproduces",
						      e->reproduces));
	if (e->published)
		fprintf(f, "Published: %s\n\n", e->published);
	if (legacy_site(exp, history))
		fprintf(f, "Site: %s\n\n", legacy_site(exp, history));
	return 0;
}

int suite_print_markdown(FILE *f, json_t *history)
{
	json_t *exp;
	size_t i;
	int err;

	json_array_foreach(json_object_get(history, "experiments"), i, exp) {
		err = print_exp(f, exp, history);
		if (err) {
			abpath_error("computing the statistics: %s",
				     strerror(-err));
			return 1;
		}
	}
	return 0;
}

/* ---- across results ------------------------------------------------------ */

#define ACROSS_MAX_POINTS	64

/* The experiment @id of a history, or NULL. */
static json_t *exp_of(json_t *history, const char *id)
{
	json_t *exp;
	size_t i;

	json_array_foreach(json_object_get(history, "experiments"), i, exp)
		if (!strcmp(str(exp, "experiment", ""), id))
			return exp;
	return NULL;
}

static json_t *point_of(json_t *exp, const char *param)
{
	json_t *pt;
	char buf[128];
	size_t i;

	json_array_foreach(json_object_get(exp, "points"), i, pt)
		if (!strcmp(param_text(json_object_get(pt, "param"), buf,
				       sizeof(buf)), param))
			return pt;
	return NULL;
}

/*
 * A result's column head: the backend and kernel release it recorded,
 * and its CPUs; the file name where it recorded none.
 */
static void result_label(char *buf, size_t len, json_t *h, const char *name)
{
	json_t *first = json_array_get(json_object_get(h, "experiments"), 0);
	json_t *pv = json_object_get(h, "provenance"), *cpus;
	const char *kernel, *backend;

	if (!pv)
		pv = json_object_get(first, "provenance");
	kernel = str(pv, "kernel", str(h, "kernel", str(first, "kernel", NULL)));
	backend = str(pv, "backend", NULL);
	cpus = json_object_get(pv, "cpus");
	if (!cpus)
		cpus = json_object_get(h, "cpus");
	if (!cpus)
		cpus = json_object_get(first, "cpus");
	if (!kernel) {
		snprintf(buf, len, "%s", name);
		return;
	}
	snprintf(buf, len, "%s%s%s%s", backend ? backend : "",
		 backend ? " " : "", kernel,
		 strstr(str(pv, "kernel_version", ""), "PREEMPT_RT") ?
		 " PREEMPT_RT" : "");
	if (json_is_integer(cpus))
		snprintf(buf + strlen(buf), len - strlen(buf),
			 " (%" JSON_INTEGER_FORMAT " vCPU%s)",
			 json_integer_value(cpus),
			 json_integer_value(cpus) == 1 ? "" : "s");
}

struct across_point {
	char text[64];
	double num;		/* NaN: not a number */
};

static int cmp_point(const void *a, const void *b)
{
	const struct across_point *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

/*
 * The points of an experiment over every result: in the order they
 * first appear, or by value when every one is a number.
 */
static size_t union_points(json_t *const *exps, int n,
			   struct across_point *pts)
{
	bool numeric = true;
	size_t k = 0, i, m;
	json_t *pt, *param;
	char buf[64];

	for (int r = 0; r < n; r++)
		json_array_foreach(json_object_get(exps[r], "points"), i, pt) {
			param = json_object_get(pt, "param");
			param_text(param, buf, sizeof(buf));
			for (m = 0; m < k && strcmp(pts[m].text, buf); m++)
				;
			if (m < k || k == ACROSS_MAX_POINTS)
				continue;
			ctl_copy(pts[k].text, sizeof(pts[k].text), buf);
			pts[k].num = json_is_number(param) ?
				     json_number_value(param) : NAN;
			numeric &= json_is_number(param);
			k++;
		}
	if (numeric)
		qsort(pts, k, sizeof(*pts), cmp_point);
	return k;
}

/* The column every cell of an across table shows: the first ratio. */
static const struct suite_col *headline(const struct suite_exp *e)
{
	for (const struct suite_col *c = e->cols; c->head; c++)
		if (c->kind == SC_RATIO_CI)
			return c;
	return &generic.cols[2];
}

static int print_across(FILE *f, const char *id, json_t *const *histories,
			const char *const *names, char (*labels)[256], int n)
{
	const struct suite_exp *e = suite_find_exp(id);
	json_t *exps[BENCH_MAX_FROM], *any = NULL, *pt, *runs;
	struct across_point pts[ACROSS_MAX_POINTS];
	const struct suite_col *c;
	char buf[1024];
	size_t k, npts;
	int err;

	for (int r = 0; r < n; r++) {
		exps[r] = exp_of(histories[r], id);
		if (!any)
			any = exps[r];
	}
	if (!e)
		e = &generic;
	c = headline(e);
	fprintf(f, "### %s: %s, legacy/optimized across results\n\n| %s | "
		"source |", str(any, "path", "?"),
		str(any, "title", e->title ? e->title : id),
		str(any, "param_name", "parameter"));
	for (int r = 0; r < n; r++)
		fprintf(f, " %s |", labels[r]);
	fputs("\n|---|---|", f);
	for (int r = 0; r < n; r++)
		fputs("---|", f);
	fputc('\n', f);
	npts = union_points(exps, n, pts);
	for (k = 0; k < npts; k++) {
		fprintf(f, "| %s | %s |", pts[k].text,
			suite_source_at(e, pts[k].text) ?: "–");
		for (int r = 0; r < n; r++) {
			pt = exps[r] ? point_of(exps[r], pts[k].text) : NULL;
			if (!pt) {
				fputs(" – |", f);
				continue;
			}
			err = cell(pt, c, buf, sizeof(buf));
			if (err)
				return err;
			fprintf(f, " %s |", buf);
		}
		fputc('\n', f);
	}
	if (!npts)
		fputs("| (no points) |\n", f);
	fprintf(f, "\nEach cell: %s of %s (%s) in one result, the ratio of "
		"the geometric means of its measured runs, legacy over "
		"optimized, with a Welch t 95%% interval on the logs; – where "
		"that result has no such point. Results:",
		c->head, str(any, "metric", e->metric ? e->metric : "value"),
		str(any, "unit", e->unit ? e->unit : ""));
	for (int r = 0; r < n; r++) {
		json_t *pv = json_object_get(histories[r], "provenance");

		fprintf(f, "%s %s: %s", r ? ";" : "", labels[r], names[r]);
		if (!exps[r]) {
			fputs(", not run", f);
			continue;
		}
		if (!pv)
			pv = json_object_get(exps[r], "provenance");
		if (pv)
			fprintf(f, ", %s, host %s", str(pv, "time", "?"),
				str(pv, "host", "?"));
		if (legacy_site(exps[r], histories[r]))
			fprintf(f, ", site: %s",
				legacy_site(exps[r], histories[r]));
		runs = json_object_get(exps[r], "runs_per_mode");
		if (json_is_integer(runs))
			fprintf(f, ", %" JSON_INTEGER_FORMAT " measured runs "
				"per mode", json_integer_value(runs));
		command_line(buf, sizeof(buf), exps[r]);
		fprintf(f, ", `%s`", buf);
	}
	fputs(".\n\n", f);
	if (json_string_value(json_object_get(any, "reproduces")) ||
	    e->reproduces)
		fprintf(f, "Reproduces: %s\n\n", str(any, "reproduces",
						      e->reproduces));
	if (e->published)
		fprintf(f, "Published: %s\n\n", e->published);
	return 0;
}

int suite_print_across(FILE *f, json_t *const *histories,
		       const char *const *names, int n)
{
	char labels[BENCH_MAX_FROM][256];
	const char *ids[64];
	int nids = 0, err;
	json_t *exp;
	size_t i;

	/* Two results that recorded the same are told apart by position. */
	for (int r = 0; r < n && r < BENCH_MAX_FROM; r++) {
		/* Room for the " #N". */
		result_label(labels[r], sizeof(labels[r]) - 8, histories[r],
			     names[r]);
		for (int q = 0; q < r; q++)
			if (!strcmp(labels[q], labels[r])) {
				snprintf(labels[r] + strlen(labels[r]), 8,
					 " #%d", r + 1);
				break;
			}
	}

	/* This version's experiments in its order, then any other. */
	for (int k = 0; k < suite_nr_history; k++)
		for (int r = 0; r < n; r++)
			if (exp_of(histories[r], suite_history[k].id)) {
				ids[nids++] = suite_history[k].id;
				break;
			}
	for (int r = 0; r < n; r++)
		json_array_foreach(json_object_get(histories[r], "experiments"),
				   i, exp) {
			const char *id = str(exp, "experiment", "");
			int m;

			for (m = 0; m < nids && strcmp(ids[m], id); m++)
				;
			if (m == nids && nids < 64)
				ids[nids++] = id;
		}
	for (int k = 0; k < nids; k++) {
		err = print_across(f, ids[k], histories, names, labels, n);
		if (err) {
			abpath_error("computing the statistics: %s",
				     strerror(-err));
			return 1;
		}
	}
	return 0;
}

/* ---- plots ------------------------------------------------------------- */

struct plot_ctx {
	json_t *exp, *history;
	const struct suite_exp *e;
	size_t n[2];		/* runs with the metric, per mode */
};

/* How many runs of each mode have the plotted metric. */
static void count_runs(struct plot_ctx *p)
{
	json_t *pt;
	size_t i;

	p->n[0] = p->n[1] = 0;
	json_array_foreach(json_object_get(p->exp, "points"), i, pt) {
		struct runs r = { { NULL, NULL }, { 0, 0 } };

		if (!get_runs(pt, &p->e->primary, &r)) {
			p->n[0] += r.n[0];
			p->n[1] += r.n[1];
		}
		free_runs(&r);
	}
}

static void plot_script(FILE *f, const void *ctx)
{
	static const char *const color[2] = { "#d62728", "#1f77b4" };
	const struct plot_ctx *p = ctx;
	json_t *points = json_object_get(p->exp, "points"), *pt;
	char buf[512];
	bool nonneg = true;
	size_t i, n = json_array_size(points);

	title_line(buf, sizeof(buf), p->exp, p->history);
	fputs("set title noenhanced ", f);
	bench_gp_quote(f, buf);
	snprintf(buf, sizeof(buf), "%s (%s, %s is better)",
		 str(p->exp, "metric", "value"), str(p->exp, "unit", ""),
		 json_is_false(json_object_get(p->exp, "lower_is_better")) ?
		 "higher" : "lower");
	fputs("\nset ylabel noenhanced ", f);
	bench_gp_quote(f, buf);
	fputs("\nset xlabel noenhanced ", f);
	bench_gp_quote(f, str(p->exp, "param_name", "parameter"));
	fprintf(f, "\nset xrange [0.5:%zu.5]\nset xtics (", n);
	json_array_foreach(points, i, pt) {
		fputs(i ? ", " : "", f);
		bench_gp_quote(f, param_text(json_object_get(pt, "param"), buf,
					     sizeof(buf)));
		fprintf(f, " %zu", i + 1);
	}
	fputs(")\nset grid ytics\nset key outside bottom center horizontal\n",
	      f);
	for (int m = 0; m < 2; m++) {
		double off = m ? 0.12 : -0.12;

		fprintf(f, "$%s << EOD\n", bench_mode_name[m]);
		json_array_foreach(points, i, pt) {
			struct runs r = { { NULL, NULL }, { 0, 0 } };

			if (!get_runs(pt, &p->e->primary, &r))
				for (size_t k = 0; k < r.n[m]; k++) {
					double frac = fmod(0.5 + (double)k *
						0.6180339887498949, 1.0);

					fprintf(f, "%.4f %.17g\n", (double)i + 1
						+ off + 0.12 * (frac - 0.5),
						r.v[m][k]);
					nonneg &= r.v[m][k] >= 0;
				}
			free_runs(&r);
		}
		fprintf(f, "EOD\n$%s_gmean << EOD\n", bench_mode_name[m]);
		json_array_foreach(points, i, pt) {
			struct runs r = { { NULL, NULL }, { 0, 0 } };

			if (!get_runs(pt, &p->e->primary, &r) &&
			    isfinite(gmean(r.v[m], r.n[m])))
				fprintf(f, "%.4f %.17g\n", (double)i + 1 + off,
					gmean(r.v[m], r.n[m]));
			free_runs(&r);
		}
		fputs("EOD\n", f);
	}
	if (nonneg)
		fputs("set yrange [0:*]\n", f);
	/* Only modes with data: gnuplot fails on nothing to plot at all. */
	fputs("plot ", f);
	for (int m = 0, first = 1; m < 2; m++) {
		if (!p->n[m])
			continue;
		fprintf(f, "%s$%s using 1:2 with points pt 7 ps 0.7 lc rgb '%s' "
			"title '%s (runs)', \\\n  $%s_gmean using 1:2 with "
			"linespoints lw 2 pt 5 ps 1 lc rgb '%s' title '%s "
			"(geometric mean)'", first ? "" : ", \\\n  ", bench_mode_name[m],
			color[m], bench_mode_name[m], bench_mode_name[m],
			color[m], bench_mode_name[m]);
		first = 0;
	}
	fputc('\n', f);
}

/* FILE.svg -> FILE-<id>.svg */
static void plot_name(char *buf, size_t len, const char *file, const char *id)
{
	const char *dot = strrchr(file, '.');

	snprintf(buf, len, "%.*s-%s%s", (int)(dot - file), file, id, dot);
}

int suite_plot(json_t *history, const char *file)
{
	struct plot_ctx p = { .history = history };
	char out[4096];
	size_t i;
	int ret = 0;

	json_array_foreach(json_object_get(history, "experiments"), i, p.exp) {
		p.e = suite_find_exp(str(p.exp, "experiment", NULL));
		if (!p.e)
			p.e = &generic;
		plot_name(out, sizeof(out), file, str(p.exp, "experiment",
						      "experiment"));
		count_runs(&p);
		if (!p.n[0] && !p.n[1]) {
			abpath_warn("%s: no run has %s; not plotted",
				    str(p.exp, "experiment", "?"),
				    str(p.exp, "metric", "the metric"));
			continue;
		}
		ret = bench_gnuplot(out, plot_script, &p);
		if (ret)
			break;
		fprintf(stderr, "abpath: bench: wrote %s\n", out);
	}
	return ret;
}
