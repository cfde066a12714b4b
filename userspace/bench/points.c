// SPDX-License-Identifier: GPL-2.0
/*
 * The numbers of a suite point, from its bench's runs: a run's metric
 * (the value, a result, a ratio of counters), the runs of each mode that
 * count (measured and valid), and each kind of table cell.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "points.h"
#include "maths/statistics.h"
#include "../output.h"

double pt_num(json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

const char *pt_param_text(json_t *param, char *buf, size_t len)
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
		return pt_num(json_object_get(cnt, names));
	snprintf(name, sizeof(name), "%.*s", (int)(plus - names), names);
	return pt_num(json_object_get(cnt, name)) + counter(cnt, plus + 1);
}

static double sample_metric(json_t *s, const char *path,
			    const struct suite_metric *m)
{
	json_t *res = json_object_get(s, "results"), *cnt;
	double a, b;

	switch (m->kind) {
	case SM_VALUE:
		return pt_num(json_object_get(s, "value"));
	case SM_RESULT:
		a = pt_num(json_object_get(res, m->a));
		return isfinite(a) || !m->b ? a : pt_num(json_object_get(res, m->b));
	case SM_RESULT_IN:
		return pt_num(json_object_get(json_object_get(res, m->a), m->b));
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

int pt_get_runs(json_t *point, const struct suite_metric *m,
		struct pt_runs *r)
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

void pt_free_runs(struct pt_runs *r)
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

	return pt_num(json_object_get(json_object_get(s, "results"), "hz"));
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

double pt_gmean(const double *v, size_t n)
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

/* A number of a cell, or null where the text shows "–". */
static void set_num(json_t *cell, const char *key, double v)
{
	if (cell)
		json_object_set_new(cell, key, isfinite(v) ? json_real(v) :
				    json_null());
}

static void set_count(json_t *cell, const char *key, size_t v)
{
	if (cell)
		json_object_set_new(cell, key, json_integer((json_int_t)v));
}

/* "k/n": measured runs with results.<a> true, of those that say. */
static void flagged(json_t *point, const struct suite_col *c, char *buf,
		    size_t len, json_t *cell)
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
	if (n) {
		set_count(cell, "flagged", k);
		set_count(cell, "runs", n);
	}
}

/*
 * "k in r/n runs": the RCU stalls the bench kept with one mode's runs
 * (with no CPU stalled, so the legacy arm's collapse), and in how many
 * of them; "0" where there were none.
 */
static void stalls(json_t *point, const struct suite_col *c, char *buf,
		   size_t len, json_t *cell)
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
	if (n) {
		set_count(cell, "stalls", k);
		set_count(cell, "runs_with", r);
		set_count(cell, "runs", n);
	}
}

int pt_cell(json_t *point, const struct suite_col *c, char *buf,
	    size_t len, json_t *cell)
{
	struct pt_runs r = { { NULL, NULL }, { 0, 0 } };
	double scale = c->scale ? c->scale : 1;
	struct st_ratio q;
	struct st_mw mw;
	char p[32];
	double lm;
	int err;

	if (c->kind == SC_FLAGGED) {
		flagged(point, c, buf, len, cell);
		return 0;
	}
	if (c->kind == SC_STALLS) {
		stalls(point, c, buf, len, cell);
		return 0;
	}
	if (c->kind == SC_PER_CALL) {
		lm = per_call(point, c) * scale;
		/* A whole count reads better without ".000". */
		if (isfinite(lm) && lm == floor(lm) && fabs(lm) < 1e15)
			snprintf(buf, len, "%.0f", lm);
		else
			fmt_num(buf, len, lm, 4);
		set_num(cell, "value", lm);
		return 0;
	}
	err = pt_get_runs(point, &c->m, &r);
	if (err)
		goto out;
	switch (c->kind) {
	case SC_GMEAN:
		lm = pt_gmean(r.v[c->mode], r.n[c->mode]) * scale;
		fmt_num(buf, len, lm, 4);
		set_num(cell, "value", lm);
		break;
	case SC_MEAN:
		lm = mean(r.v[c->mode], r.n[c->mode]);
		fmt_num(buf, len, lm, 4);
		set_num(cell, "value", lm);
		break;
	case SC_PER_HZ:
		lm = pt_gmean(r.v[c->mode], r.n[c->mode]) / hz_of(point);
		fmt_num(buf, len, lm, 3);
		set_num(cell, "value", lm);
		break;
	case SC_RATIO_CI:
		q = (struct st_ratio){ NAN, NAN, NAN, NAN };
		if (r.n[0] && r.n[1])
			st_ratio_welch(r.v[0], r.n[0], r.v[1], r.n[1], 0.95, &q);
		fmt_ratio(buf, len, q.value, q.lo, q.hi);
		set_num(cell, "value", q.value);
		/* As the text: no interval without a value. */
		if (cell && isfinite(q.value) && isfinite(q.lo) &&
		    isfinite(q.hi))
			json_object_set_new(cell, "ci95", json_pack("[f, f]",
							q.lo, q.hi));
		else if (cell)
			json_object_set_new(cell, "ci95", json_null());
		break;
	case SC_P:
		if (!r.n[0] || !r.n[1] ||
		    st_mann_whitney(r.v[0], r.n[0], r.v[1], r.n[1], &mw)) {
			snprintf(buf, len, "–");
			set_num(cell, "p", NAN);
		} else {
			snprintf(buf, len, "%s", st_fmt_p(p, sizeof(p), mw.p) +
				 (p[1] == '=' ? 2 : 1));
			set_num(cell, "p", mw.p);
		}
		break;
	case SC_PER_CALL:
	case SC_FLAGGED:
	case SC_STALLS:
		break;
	}
out:
	pt_free_runs(&r);
	return err;
}

const char *pt_str(json_t *j, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s ? s : dflt;
}
