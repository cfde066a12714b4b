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
 * each point's bench object) by points.c: the same data always give the
 * same table.  A result's tables are one tree (suite_tables()), which
 * one emitter prints as Markdown or, with -j, as JSON (suite_report()),
 * so that the JSON's numbers are the text's.  An experiment this version does
 * not know gets the generic table of the workload's value.
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "experiments.h"
#include "points.h"
#include "../output.h"

static const struct suite_exp generic = {
	.primary = { SM_VALUE, NULL, NULL },
	.cols = {
		{ "legacy", SC_GMEAN, BENCH_LEGACY, { SM_VALUE } },
		{ "optimized", SC_GMEAN, BENCH_OPTIMIZED, { SM_VALUE } },
		{ "legacy/optimized [95% CI]", SC_RATIO_CI, 0, { SM_VALUE } },
		{ "p", SC_P, 0, { SM_VALUE } },
	},
};

/*
 * The legacy arm's site as the result recorded it (provenance.sites), so
 * that a variant (timer_fastpath on PREEMPT_RT) is never read as history.
 */
static const char *legacy_site(json_t *exp, json_t *history)
{
	json_t *pv = json_object_get(exp, "provenance");

	if (!pv)
		pv = json_object_get(history, "provenance");
	return pt_str(json_object_get(pv, "sites"), pt_str(exp, "path", ""), NULL);
}

static void title_line(char *buf, size_t len, json_t *exp, json_t *history)
{
	const struct suite_exp *e = suite_find_exp(pt_str(exp, "experiment", NULL));
	json_t *cpus = json_object_get(exp, "cpus");

	char n[32] = "?";

	if (!cpus)
		cpus = json_object_get(history, "cpus");
	if (json_is_integer(cpus))
		snprintf(n, sizeof(n), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(cpus));
	snprintf(buf, len, "%s: %s (%s vCPU%s)", pt_str(exp, "path", "?"),
		 pt_str(exp, "title", e ? e->title : pt_str(exp, "experiment", "?")),
		 n, json_integer_value(cpus) == 1 ? "" : "s");
}

/* "forkexit -N <idle tasks> -i 300" from the template, for the footer. */
static void command_line(char *buf, size_t len, json_t *exp)
{
	const char *t = pt_str(exp, "args_template", ""), *end;
	size_t used = (size_t)snprintf(buf, len, "%s",
				       pt_str(exp, "workload", "?"));

	for (; *t && used < len; t = *end ? end + 1 : end) {
		end = strchr(t, ' ');
		if (!end)
			end = t + strlen(t);
		if (end - t == 1 && *t == '@')
			used += (size_t)snprintf(buf + used, len - used, " <%s>",
						 pt_str(exp, "param_name", "P"));
		else if (end > t)
			used += (size_t)snprintf(buf + used, len - used, " %.*s",
						 (int)(end - t), t);
	}
}

/* A paragraph under a table: its kind, and its text as printed. */
static json_t *note(json_t *notes, const char *kind, const char *text)
{
	json_t *n = json_pack("{s:s, s:s}", "kind", kind, "text", text);

	json_array_append_new(notes, n);
	return n;
}

/*
 * --runs auto: each point's verdict by the stopping rule, derived again
 * from its runs (adaptive.c, as --from does), which the table's
 * intervals and p, computed as for a fixed count, are not adjusted for.
 */
static int rule_note(json_t *notes, json_t *points)
{
	struct bench_opts o;
	struct report r;
	struct bench b;
	json_t *pt, *verdicts = json_array(), *v;
	const struct seq_look *l;
	char buf[64];
	size_t i;
	int err = 0;

	json_object_set_new(note(notes, "rule", "Measured with --runs auto: "
		"each point ran ABBA blocks until the stopping rule stopped "
		"it (at most runs_per_mode per mode), so the intervals and p "
		"above are unadjusted for its looks. The rule's verdicts, "
		"each with its 95% interval valid over the looks:"),
		"verdicts", verdicts);
	json_array_foreach(points, i, pt) {
		o = (struct bench_opts){ 0 };
		r = (struct report){ 0 };
		err = bench_load(json_object_get(pt, "bench"), "a point", &b,
				 &o);
		if (!err && !o.adaptive)
			err = -EINVAL;
		if (!err)
			err = report_compute(&b, &r);
		pt_param_text(json_object_get(pt, "param"), buf, sizeof(buf));
		if (!err) {
			l = r.looks.n ? &r.looks.look[r.looks.n - 1] : NULL;
			v = json_pack("{s:O, s:s, s:s, s:s}", "param",
				      json_object_get(pt, "param") ?:
				      json_null(), "param_text", buf,
				      "verdict", r.verdict, "stopped_by",
				      seq_stop_name[r.looks.stop]);
			json_object_set_new(v, "value", l && isfinite(l->value)
					    ? json_real(l->value) : json_null());
			json_object_set_new(v, "ci", l && isfinite(l->lo) &&
					    isfinite(l->hi) ? json_pack("[f, f]",
					    l->lo, l->hi) : json_null());
			json_array_append_new(verdicts, v);
		}
		report_free(&r);
		bench_free(&b);
		free(o.args);
		if (err)
			break;
	}
	return err > 0 ? -EINVAL : err;
}

/*
 * The measured runs each point left out of its statistics, and the first
 * one's reason: without it a "–" or a wide interval says nothing of why.
 */
static void left_out_note(json_t *notes, json_t *points)
{
	json_t *pt, *run, *runs;
	const char *why, *inv;
	char buf[64], *text = NULL, *more;
	size_t i, k;
	int n[2];

	json_array_foreach(points, i, pt) {
		n[0] = n[1] = 0;
		why = NULL;
		runs = json_object_get(json_object_get(pt, "bench"), "samples");
		json_array_foreach(runs, k, run) {
			inv = json_string_value(json_object_get(run, "invalid"));
			if (!inv || json_is_true(json_object_get(run, "warmup")))
				continue;
			n[strcmp(pt_str(run, "mode", ""), "legacy") ? 1 : 0]++;
			why = why ?: inv;
		}
		if (!why)
			continue;
		pt_param_text(json_object_get(pt, "param"), buf, sizeof(buf));
		if (asprintf(&more, "%s%s%s: %d legacy, %d optimized: %s",
			     text ? text : "", text ? "; " :
			     "Measured runs left out of the statistics: ", buf,
			     n[0], n[1], why) < 0)
			more = NULL;
		free(text);
		text = more;
	}
	if (text) {
		if (asprintf(&more, "%s.", text) >= 0) {
			note(notes, "left_out", more);
			free(more);
		}
		free(text);
	}
}

/* "Workload `...`, path P; ...": how the table's numbers were made. */
static void workload_note(json_t *notes, json_t *exp,
			  const struct suite_exp *e)
{
	json_t *runs = json_object_get(exp, "runs_per_mode");
	char cmd[1024], count[160] = "", *text;

	command_line(cmd, sizeof(cmd), exp);
	if (json_is_integer(runs))
		snprintf(count, sizeof(count), "%s%" JSON_INTEGER_FORMAT
			 " measured runs per mode after %" JSON_INTEGER_FORMAT
			 " warm-up, ",
			 json_is_true(json_object_get(exp, "adaptive")) ?
			 "at most " : "", json_integer_value(runs),
			 json_integer_value(json_object_get(exp,
							    "warmup_per_mode")));
	if (asprintf(&text, "Workload `%s`, path %s; %sinterleaved ABBA. Per "
		     "mode: the geometric mean of the measured runs; "
		     "legacy/optimized [95%% CI]: the ratio of the geometric "
		     "means, Welch t interval on the logs; p: two-sided "
		     "Mann-Whitney U, exact given the ties.%s%s", cmd,
		     pt_str(exp, "path", "?"), count, e->note ? " " : "",
		     e->note ? e->note : "") < 0)
		return;
	note(notes, "workload", text);
	free(text);
}

/* "Reproduces: ...", "Published: ...", "Site: ...". */
static void labelled_note(json_t *notes, const char *kind, const char *label,
			  const char *text)
{
	char *t;

	if (!text || asprintf(&t, "%s: %s", label, text) < 0)
		return;
	note(notes, kind, t);
	free(t);
}

static const char *const col_kind[] = {
	[SC_GMEAN] = "gmean", [SC_MEAN] = "mean", [SC_PER_HZ] = "per_hz",
	[SC_RATIO_CI] = "ratio_ci", [SC_P] = "p", [SC_PER_CALL] = "per_call",
	[SC_FLAGGED] = "flagged", [SC_STALLS] = "stalls",
};

/* A column's head and what its cells are. */
static json_t *column(const char *head, const char *kind, int mode)
{
	json_t *c = json_pack("{s:s, s:s}", "head", head, "kind", kind);

	if (mode >= 0)
		json_object_set_new(c, "mode", json_string(bench_mode_name[mode]));
	return c;
}

static json_t *text_cell(const char *text)
{
	return json_pack("{s:s}", "text", text);
}

/*
 * One experiment's table as a tree: its heading, columns, a row per
 * point whose every cell has the text the table shows and the numbers
 * that text rounds, and the paragraphs under it; NULL with *err set.
 */
static json_t *exp_table(json_t *exp, json_t *history, int *err)
{
	const struct suite_exp *e = suite_find_exp(pt_str(exp, "experiment", NULL));
	const struct suite_col *c;
	json_t *points = json_object_get(exp, "points"), *pt, *t, *cols,
	       *rows, *cells, *cell, *notes;
	char buf[1024];
	size_t i;

	*err = 0;
	if (!e)
		e = &generic;
	title_line(buf, sizeof(buf), exp, history);
	cols = json_array();
	rows = json_array();
	notes = json_array();
	t = json_pack("{s:s?, s:s, s:o, s:o, s:o}", "experiment",
		      pt_str(exp, "experiment", NULL), "heading", buf,
		      "columns", cols, "rows", rows, "notes", notes);
	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	json_array_append_new(cols, column(pt_str(exp, "param_name",
						  "parameter"), "param", -1));
	json_array_append_new(cols, column("source", "source", -1));
	for (c = e->cols; c->head; c++)
		json_array_append_new(cols, column(c->head, col_kind[c->kind],
			c->kind == SC_GMEAN || c->kind == SC_MEAN ||
			c->kind == SC_PER_HZ || c->kind == SC_PER_CALL ||
			c->kind == SC_STALLS ? c->mode : -1));
	json_array_foreach(points, i, pt) {
		pt_param_text(json_object_get(pt, "param"), buf, sizeof(buf));
		cells = json_array();
		json_array_append_new(rows, json_pack("{s:O, s:o}", "param",
				      json_object_get(pt, "param") ?: json_null(),
				      "cells", cells));
		json_array_append_new(cells, text_cell(buf));
		json_array_append_new(cells, text_cell(suite_source_at(e, buf) ?: "–"));
		for (c = e->cols; c->head && !*err; c++) {
			cell = json_object();
			*err = pt_cell(pt, c, buf, sizeof(buf), cell);
			json_object_set_new(cell, "text", json_string(buf));
			json_array_append_new(cells, cell);
		}
		if (*err)
			break;
	}
	if (!*err) {
		workload_note(notes, exp, e);
		left_out_note(notes, points);
		if (json_is_true(json_object_get(exp, "adaptive")))
			*err = rule_note(notes, points);
	}
	if (*err) {
		json_decref(t);
		return NULL;
	}
	labelled_note(notes, "reproduces", "Reproduces",
		      json_string_value(json_object_get(exp, "reproduces")) ?:
		      e->reproduces);
	labelled_note(notes, "published", "Published", e->published);
	labelled_note(notes, "site", "Site", legacy_site(exp, history));
	return t;
}

json_t *suite_tables(json_t *history)
{
	json_t *tables = json_array(), *exp, *t;
	size_t i;
	int err = tables ? 0 : -ENOMEM;

	json_array_foreach(json_object_get(history, "experiments"), i, exp) {
		if (err)
			break;
		t = exp_table(exp, history, &err);
		if (t)
			json_array_append_new(tables, t);
	}
	if (err) {
		abpath_error("computing the statistics: %s", strerror(-err));
		json_decref(tables);
		return NULL;
	}
	return tables;
}

/* One table of suite_tables() as Markdown, as the project's docs paste it. */
static void print_table(FILE *f, json_t *t)
{
	json_t *cols = json_object_get(t, "columns"), *rows, *row, *c, *n, *v;
	const char *kind;
	size_t i, k;

	fprintf(f, "### %s\n\n|", pt_str(t, "heading", ""));
	json_array_foreach(cols, i, c)
		fprintf(f, " %s |", pt_str(c, "head", ""));
	fputs("\n|", f);
	json_array_foreach(cols, i, c) {
		kind = pt_str(c, "kind", "");
		fputs(!strcmp(kind, "param") || !strcmp(kind, "source") ||
		      !strcmp(kind, "ratio_ci") ? "---|" : "---:|", f);
	}
	fputc('\n', f);
	rows = json_object_get(t, "rows");
	json_array_foreach(rows, i, row) {
		fputc('|', f);
		json_array_foreach(json_object_get(row, "cells"), k, c)
			fprintf(f, " %s |", pt_str(c, "text", ""));
		fputc('\n', f);
	}
	if (!json_array_size(rows))
		fputs("| (no points) |\n", f);
	fputc('\n', f);
	json_array_foreach(json_object_get(t, "notes"), i, n) {
		fprintf(f, "%s\n\n", pt_str(n, "text", ""));
		if (!json_object_get(n, "verdicts"))
			continue;
		json_array_foreach(json_object_get(n, "verdicts"), k, v)
			fprintf(f, "- %s: %s\n", pt_str(v, "param_text", ""),
				pt_str(v, "verdict", ""));
		fputc('\n', f);
	}
}

int suite_report(FILE *f, json_t *doc, json_t *history, bool json)
{
	json_t *tables = suite_tables(history), *out, *t;
	size_t i;
	int ret = 0;

	if (!tables)
		return 1;
	if (json) {
		/* The result as it was saved, with the tables beside it. */
		out = json_copy(doc);
		if (!out || json_object_set(out, "tables", tables) ||
		    json_dumpf(out, f, JSON_COMPACT |
			       JSON_REAL_PRECISION(15)) < 0)
			ret = 1;
		fputc('\n', f);
		json_decref(out);
	} else {
		json_array_foreach(tables, i, t)
			print_table(f, t);
	}
	json_decref(tables);
	return ret;
}

/* ---- across results ------------------------------------------------------ */

#define ACROSS_MAX_POINTS	64

/* The experiment @id of a history, or NULL. */
static json_t *exp_of(json_t *history, const char *id)
{
	json_t *exp;
	size_t i;

	json_array_foreach(json_object_get(history, "experiments"), i, exp)
		if (!strcmp(pt_str(exp, "experiment", ""), id))
			return exp;
	return NULL;
}

static json_t *point_of(json_t *exp, const char *param)
{
	json_t *pt;
	char buf[128];
	size_t i;

	json_array_foreach(json_object_get(exp, "points"), i, pt)
		if (!strcmp(pt_param_text(json_object_get(pt, "param"), buf,
				       sizeof(buf)), param))
			return pt;
	return NULL;
}

/*
 * A result's provenance: the history's, or in a file of one experiment
 * the experiment's.
 */
static json_t *result_provenance(json_t *h)
{
	json_t *first = json_array_get(json_object_get(h, "experiments"), 0);

	return json_object_get(h, "provenance") ?:
	       json_object_get(first, "provenance");
}

/*
 * A result's column head: the backend and kernel release it recorded,
 * and its CPUs; the machine too where the results' machines differ
 * (@show_machine), since x86_64's and aarch64's kernels share a release;
 * the file name where it recorded none.
 */
static void result_label(char *buf, size_t len, json_t *h, const char *name,
			 bool show_machine)
{
	json_t *first = json_array_get(json_object_get(h, "experiments"), 0);
	json_t *pv = result_provenance(h), *cpus;
	const char *kernel, *backend;

	kernel = pt_str(pv, "kernel", pt_str(h, "kernel", pt_str(first, "kernel", NULL)));
	backend = pt_str(pv, "backend", NULL);
	cpus = json_object_get(pv, "cpus");
	if (!cpus)
		cpus = json_object_get(h, "cpus");
	if (!cpus)
		cpus = json_object_get(first, "cpus");
	if (!kernel) {
		snprintf(buf, len, "%s", name);
		return;
	}
	snprintf(buf, len, "%s%s%s%s%s%s", backend ? backend : "",
		 backend ? " " : "", kernel,
		 strstr(pt_str(pv, "kernel_version", ""), "PREEMPT_RT") ?
		 " PREEMPT_RT" : "", show_machine ? " " : "",
		 show_machine ? pt_str(pv, "machine", "?") : "");
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
			pt_param_text(param, buf, sizeof(buf));
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
	json_t *exps[BENCH_MAX_ACROSS], *any = NULL, *pt, *runs;
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
		"source |", pt_str(any, "path", "?"),
		pt_str(any, "title", e->title ? e->title : id),
		pt_str(any, "param_name", "parameter"));
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
			err = pt_cell(pt, c, buf, sizeof(buf), NULL);
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
		c->head, pt_str(any, "metric", e->metric ? e->metric : "value"),
		pt_str(any, "unit", e->unit ? e->unit : ""));
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
			fprintf(f, ", %s, host %s", pt_str(pv, "time", "?"),
				pt_str(pv, "host", "?"));
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
		fprintf(f, "Reproduces: %s\n\n", pt_str(any, "reproduces",
						      e->reproduces));
	if (e->published)
		fprintf(f, "Published: %s\n\n", e->published);
	return 0;
}

int suite_print_across(FILE *f, json_t *const *histories,
		       const char *const *names, const char *const *given,
		       int n)
{
	char labels[BENCH_MAX_ACROSS][256];
	const char *ids[64], *m0 = NULL, *m;
	bool machines = false;
	int nids = 0, err;
	json_t *exp;
	size_t i;

	for (int r = 0; r < n && r < BENCH_MAX_ACROSS; r++) {
		m = pt_str(result_provenance(histories[r]), "machine", NULL);
		if (!m0)
			m0 = m;
		if (m && m0 && strcmp(m, m0))
			machines = true;
	}
	/* Two results that recorded the same are told apart by position. */
	for (int r = 0; r < n && r < BENCH_MAX_ACROSS; r++) {
		/* Room for the " #N". */
		if (given[r][0])
			snprintf(labels[r], sizeof(labels[r]) - 8, "%s",
				 given[r]);
		else
			result_label(labels[r], sizeof(labels[r]) - 8,
				     histories[r], names[r], machines);
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
			const char *id = pt_str(exp, "experiment", "");
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
		struct pt_runs r = { { NULL, NULL }, { 0, 0 } };

		if (!pt_get_runs(pt, &p->e->primary, &r)) {
			p->n[0] += r.n[0];
			p->n[1] += r.n[1];
		}
		pt_free_runs(&r);
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
		 pt_str(p->exp, "metric", "value"), pt_str(p->exp, "unit", ""),
		 json_is_false(json_object_get(p->exp, "lower_is_better")) ?
		 "higher" : "lower");
	fputs("\nset ylabel noenhanced ", f);
	bench_gp_quote(f, buf);
	fputs("\nset xlabel noenhanced ", f);
	bench_gp_quote(f, pt_str(p->exp, "param_name", "parameter"));
	fprintf(f, "\nset xrange [0.5:%zu.5]\nset xtics (", n);
	json_array_foreach(points, i, pt) {
		fputs(i ? ", " : "", f);
		bench_gp_quote(f, pt_param_text(json_object_get(pt, "param"), buf,
					     sizeof(buf)));
		fprintf(f, " %zu", i + 1);
	}
	fputs(")\nset grid ytics\nset key outside bottom center horizontal\n",
	      f);
	for (int m = 0; m < 2; m++) {
		double off = m ? 0.12 : -0.12;

		fprintf(f, "$%s << EOD\n", bench_mode_name[m]);
		json_array_foreach(points, i, pt) {
			struct pt_runs r = { { NULL, NULL }, { 0, 0 } };

			if (!pt_get_runs(pt, &p->e->primary, &r))
				for (size_t k = 0; k < r.n[m]; k++) {
					double frac = fmod(0.5 + (double)k *
						0.6180339887498949, 1.0);

					fprintf(f, "%.4f %.17g\n", (double)i + 1
						+ off + 0.12 * (frac - 0.5),
						r.v[m][k]);
					nonneg &= r.v[m][k] >= 0;
				}
			pt_free_runs(&r);
		}
		fprintf(f, "EOD\n$%s_gmean << EOD\n", bench_mode_name[m]);
		json_array_foreach(points, i, pt) {
			struct pt_runs r = { { NULL, NULL }, { 0, 0 } };

			if (!pt_get_runs(pt, &p->e->primary, &r) &&
			    isfinite(pt_gmean(r.v[m], r.n[m])))
				fprintf(f, "%.4f %.17g\n", (double)i + 1 + off,
					pt_gmean(r.v[m], r.n[m]));
			pt_free_runs(&r);
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
		p.e = suite_find_exp(pt_str(p.exp, "experiment", NULL));
		if (!p.e)
			p.e = &generic;
		plot_name(out, sizeof(out), file, pt_str(p.exp, "experiment",
						      "experiment"));
		count_runs(&p);
		if (!p.n[0] && !p.n[1]) {
			abpath_warn("%s: no run has %s; not plotted",
				    pt_str(p.exp, "experiment", "?"),
				    pt_str(p.exp, "metric", "the metric"));
			continue;
		}
		ret = bench_gnuplot(out, plot_script, &p);
		if (ret)
			break;
		fprintf(stderr, "abpath: bench: wrote %s\n", out);
	}
	return ret;
}
