// SPDX-License-Identifier: GPL-2.0
/*
 * A bench's result delivered: the report on standard output, then the
 * plot and the exports beside it: the summary as Markdown (to paste), one
 * CSV row per run (to plot elsewhere), and the JSON of -j, indented for a
 * person; and the writing of a file (whole or not at all, atomic.h) or of
 * standard output that a pooled report's Markdown (pooled.c) goes
 * through too.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "../atomic.h"
#include "../output.h"

/* A CSV field: quoted when it must be (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Markdown escapes only what would break a table cell. */
void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

static void write_markdown(FILE *f, const struct bench *b,
			   const struct report *r)
{
	const struct bench_opts *o = b->o;
	char v[6][32], p[32], ci[96], line[512], why[256];

	fputc('`', f);
	if (!o->command)
		md_cell(f, b->workload_name);
	for (int i = 0; i < o->nargs; i++) {
		if (i || !o->command)
			fputc(' ', f);
		md_cell(f, o->args[i]);
	}
	fprintf(f, "`, path %s; %s (%s, %s is better)%s%s\n\n", o->path,
		b->metric, b->unit, b->lower_is_better ? "lower" : "higher",
		b->incomplete ? "; incomplete: interrupted " : "",
		b->incomplete ? report_fmt_interrupted(why, sizeof(why), b)
			      : "");
	fprintf(f, "| mode | runs | geometric mean | 95%% CI | median | min | "
		"max |%s\n|---|---:|---:|---:|---:|---:|---:|%s\n",
		o->command ? " user s | sys s |" : "",
		o->command ? "---:|---:|" : "");
	for (int m = 0; m < 2; m++) {
		const struct st_summary *s = &r->m[m].s;

		fprintf(f, "| %s | %zu | %s | %s–%s | %s | %s | %s |",
			bench_mode_name[m], s->n,
			out_fmt_sig(v[0], sizeof(v[0]), s->gmean, SIG),
			out_fmt_sig(v[1], sizeof(v[1]), s->g_lo, SIG),
			out_fmt_sig(v[2], sizeof(v[2]), s->g_hi, SIG),
			out_fmt_sig(v[3], sizeof(v[3]), s->median, SIG),
			out_fmt_sig(v[4], sizeof(v[4]), s->min, SIG),
			out_fmt_sig(v[5], sizeof(v[5]), s->max, SIG));
		if (o->command)
			fprintf(f, " %s | %s |",
				out_fmt_sig(v[0], sizeof(v[0]),
					    report_results_mean(b, (enum bench_mode)m,
							 "user_s"), SIG),
				out_fmt_sig(v[1], sizeof(v[1]),
					    report_results_mean(b, (enum bench_mode)m,
							 "sys_s"), SIG));
		fputc('\n', f);
	}
	st_fmt_p(p, sizeof(p), r->mw.p);
	fprintf(f, "\nlegacy/optimized %s (ratio of geometric means, Welch t "
		"on the logs%s); Mann-Whitney %s%s.  **%s**\n",
		report_fmt_ratio_ci(ci, sizeof(ci), r->ratio.value, r->ratio.lo,
			     r->ratio.hi),
		o->adaptive ? ", unadjusted for the looks of --runs auto" : "",
		p, o->adaptive ? ", unadjusted" : "", r->verdict);
	if (report_invalid_runs(b)) {
		fputs("\nLeft out of the statistics, invalid:", f);
		for (int i = 0, n = 0; i < b->done; i++) {
			if (!b->s[i].invalid[0])
				continue;
			fprintf(f, "%s run %d (%s): ", n++ ? ";" : "",
				b->s[i].index, bench_mode_name[b->s[i].mode]);
			md_cell(f, b->s[i].invalid);
		}
		fputs(".\n", f);
	}
	if (b->provenance) {
		fprintf(f, "\nMeasured on %s.\n",
			bench_fmt_provenance(line, sizeof(line), b->provenance));
		if (*bench_fmt_machine(line, sizeof(line), b->provenance))
			fprintf(f, "%s.\n", line);
		if (*bench_fmt_params(line, sizeof(line), b->provenance))
			fprintf(f, "Module parameters: %s.\n", line);
	}
}

/*
 * One row per run, warm-ups flagged: index, mode, warmup, the metric,
 * the workload's numeric results (a command's CPU times), every counter
 * delta as PATH.COUNTER (empty where a run has none), and last why the
 * run is invalid (empty for a valid one).
 */
static void write_csv(FILE *f, const struct bench *b)
{
	json_t *rcols = json_array(), *ccols = json_array(), *v, *per;
	const char *key, *path;
	size_t k;

	for (int i = 0; i < b->done; i++) {
		json_object_foreach(b->s[i].results, key, v) {
			bool have = false;

			if (!json_is_number(v))
				continue;
			json_array_foreach(rcols, k, per)
				have |= !strcmp(json_string_value(per), key);
			if (!have)
				json_array_append_new(rcols, json_string(key));
		}
		json_object_foreach(b->s[i].counters, path, per) {
			json_object_foreach(per, key, v) {
				char name[256];
				bool have = false;
				json_t *c;
				size_t j;

				snprintf(name, sizeof(name), "%s.%s", path, key);
				json_array_foreach(ccols, j, c)
					have |= !strcmp(json_string_value(c), name);
				if (!have)
					json_array_append_new(ccols,
							      json_string(name));
			}
		}
	}
	fputs("index,mode,warmup,", f);
	csv_field(f, b->metric);
	json_array_foreach(rcols, k, v) {
		fputc(',', f);
		csv_field(f, json_string_value(v));
	}
	json_array_foreach(ccols, k, v) {
		fputc(',', f);
		csv_field(f, json_string_value(v));
	}
	fputs(",invalid\n", f);
	for (int i = 0; i < b->done; i++) {
		const struct bench_sample *s = &b->s[i];

		fprintf(f, "%d,%s,%d,%.15g", s->index, bench_mode_name[s->mode],
			s->warmup, s->value);
		json_array_foreach(rcols, k, v) {
			json_t *x = json_object_get(s->results,
						    json_string_value(v));

			fputc(',', f);
			if (json_is_integer(x))
				fprintf(f, "%" JSON_INTEGER_FORMAT,
					json_integer_value(x));
			else if (json_is_number(x))
				fprintf(f, "%.15g", json_number_value(x));
		}
		json_array_foreach(ccols, k, v) {
			const char *name = json_string_value(v);
			const char *dot = strrchr(name, '.');
			char p[128];
			json_t *x;

			snprintf(p, sizeof(p), "%.*s", (int)(dot - name), name);
			x = json_object_get(json_object_get(s->counters, p),
					    dot + 1);
			fputc(',', f);
			if (json_is_integer(x))
				fprintf(f, "%" JSON_INTEGER_FORMAT,
					json_integer_value(x));
		}
		fputc(',', f);
		csv_field(f, s->invalid);
		fputc('\n', f);
	}
	json_decref(rcols);
	json_decref(ccols);
}

/* What -j prints, the same tree, indented for a file a person reads. */
static int write_json(FILE *f, const struct bench *b, const struct report *r)
{
	json_t *j;
	int ret;

	out_init(true);
	report_emit(b, r);
	j = out_take();
	ret = json_dumpf(j, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	fputc('\n', f);
	json_decref(j);
	return ret;
}

int export_to(const char *file, int (*write)(FILE *f, const void *ctx),
	      const void *ctx)
{
	struct atomic_file a;
	int bad;

	if (strcmp(file, "-")) {
		if (atomic_open(&a, file))
			return 1;
		bad = write(a.f, ctx);
		return atomic_commit(&a, bad);
	}
	bad = write(stdout, ctx);
	if (bad || fflush(stdout) == EOF || ferror(stdout)) {
		abpath_error("writing standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

struct export_ctx {
	const struct bench *b;
	const struct report *r;
	enum export_kind kind;
};

static int write_export(FILE *f, const void *ctx)
{
	const struct export_ctx *x = ctx;

	switch (x->kind) {
	case EXPORT_CSV:
		write_csv(f, x->b);
		break;
	case EXPORT_JSON:
		return write_json(f, x->b, x->r);
	case EXPORT_MD:
		write_markdown(f, x->b, x->r);
		break;
	}
	return 0;
}

int bench_export(const char *file, const struct bench *b,
		 const struct report *r, enum export_kind kind)
{
	struct export_ctx x = { b, r, kind };

	return export_to(file, write_export, &x);
}

int bench_report(const struct bench *b)
{
	struct report r = { 0 };
	int err, ret = 0;

	err = report_compute(b, &r);
	if (err) {
		abpath_error("computing the statistics: %s", strerror(-err));
		ret = 1;
		goto out;
	}
	if (r.warning[0])
		abpath_warn("%s", r.warning);
	if (r.invalid_note[0])
		abpath_warn("%s", r.invalid_note);
	out_init(b->o->json);
	report_emit(b, &r);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	if (!ret && b->o->plot)
		ret = bench_plot(b, &r, b->o->plot);
	if (!ret && b->o->export_md)
		ret = bench_export(b->o->export_md, b, &r, EXPORT_MD);
	if (!ret && b->o->export_csv)
		ret = bench_export(b->o->export_csv, b, &r, EXPORT_CSV);
	if (!ret && b->o->export_json)
		ret = bench_export(b->o->export_json, b, &r, EXPORT_JSON);
	/* A bench that measured nothing in a mode has no result to give. */
	if (!ret && !b->incomplete && (!r.m[0].n || !r.m[1].n)) {
		abpath_error("no valid measured %s run, so nothing to compare: "
			     "every one was invalid (the report names why)",
			     bench_mode_name[r.m[0].n ? 1 : 0]);
		ret = 1;
	}
out:
	report_free(&r);
	return ret;
}
