// SPDX-License-Identifier: GPL-2.0
/*
 * The result of 'abpath bench': per-mode statistics, the legacy/optimized
 * ratio, the rank test and a one-line verdict, as text or JSON through
 * the one emitter, the optional gnuplot plot, and the exports a user
 * pastes (Markdown: the summary) or plots (CSV: one row per run).
 *
 * Warm-up runs are in the JSON samples (flagged) and in the plot (grey),
 * never in a statistic; nor are invalid runs (internal.h), which every
 * output names with their reason.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../output.h"
#include "statistics.h"

/* Significant digits of measurements in the text output. */
#define SIG 4

struct mode_stats {
	double *v;
	size_t n;
	struct st_summary s;
};

struct report {
	struct mode_stats m[2];
	struct st_ratio ratio;		/* Welch, on the logs */
	int ratio_err;			/* -EDOM: a value <= 0 */
	struct st_paired paired;	/* adjacent legacy/optimized runs */
	int paired_err;
	struct st_mw mw;
	char verdict[320];
	char warning[160];		/* "" or why the runs are too few */
	char invalid_note[160];		/* "" or how many runs were left out */
};

/* How many runs, warm-ups included, did not measure their mode. */
static int invalid_runs(const struct bench *b)
{
	int n = 0;

	for (int i = 0; i < b->done; i++)
		n += !!b->s[i].invalid[0];
	return n;
}

/* Time-like metrics read better as slower/faster, others as worse/better. */
static bool speed_words(const char *unit, bool lower_is_better)
{
	static const char *const times[] = { "s", "ms", "us", "ns", "µs" };

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(unit, times[i]))
			return lower_is_better;
	/* A throughput: loops/s, ops/s. */
	return !lower_is_better && strstr(unit, "/s");
}

/* "2.11 (95% CI 1.90–2.34)", or without the CI when there is none. */
static const char *fmt_ratio_ci(char *buf, size_t len, double v, double lo,
				double hi)
{
	char a[32], b[32], c[32];

	if (isfinite(lo) && isfinite(hi))
		snprintf(buf, len, "%s (95%% CI %s–%s)",
			 out_fmt_sig(a, sizeof(a), v, 3),
			 out_fmt_sig(b, sizeof(b), lo, 3),
			 out_fmt_sig(c, sizeof(c), hi, 3));
	else
		snprintf(buf, len, "%s (no CI)", out_fmt_sig(a, sizeof(a), v, 3));
	return buf;
}

/*
 * "legacy is 2.31x slower (95% CI 2.10–2.55), p=0.002": the factor is
 * always >= 1, in the direction of the worse mode.  A difference is
 * claimed only when the rank test and the ratio's interval both see it;
 * when they disagree, or when these run counts could not have reached
 * p < 0.05 whatever the data, the verdict is "inconclusive" and says why,
 * never "no significant difference".
 */
static void verdict(const struct bench *b, struct report *r)
{
	const struct st_ratio *q = &r->ratio;
	size_t n0 = r->m[0].n, n1 = r->m[1].n;
	char p[32], f[96], pm[32], lo[32], hi[32];
	bool legacy_worse, speed = speed_words(b->unit, b->lower_is_better);
	bool by_rank, by_ci;
	double factor, flo, fhi;

	st_fmt_p(p, sizeof(p), r->mw.p);
	r->warning[0] = '\0';
	if (n0 < 4 || n1 < 4)
		snprintf(r->warning, sizeof(r->warning),
			 "%zu legacy and %zu optimized runs: below 4 per mode "
			 "the rank test can hardly reach p < 0.05", n0, n1);
	if (r->ratio_err || !isfinite(q->value)) {
		snprintf(r->verdict, sizeof(r->verdict), "no ratio: a run "
			 "measured 0 or less, and geometric means need "
			 "positive values; Mann-Whitney %s", p);
		return;
	}
	fmt_ratio_ci(f, sizeof(f), q->value, q->lo, q->hi);
	if (n0 < 2 || n1 < 2) {
		snprintf(r->verdict, sizeof(r->verdict), "inconclusive: one "
			 "run in a mode gives no interval; legacy/optimized %s",
			 f);
		return;
	}
	if (!(r->mw.p_min < 0.05)) {
		st_fmt_p(pm, sizeof(pm), r->mw.p_min);
		snprintf(r->verdict, sizeof(r->verdict), "inconclusive: %zu "
			 "legacy and %zu optimized runs cannot reach p < 0.05 "
			 "(the smallest possible is %s); legacy/optimized %s",
			 n0, n1, pm + (pm[1] == '=' ? 2 : 1), f);
		return;
	}
	by_rank = r->mw.p < 0.05;
	by_ci = q->lo > 1 || q->hi < 1;
	if (!by_rank && !by_ci) {
		snprintf(r->verdict, sizeof(r->verdict), "no significant "
			 "difference: legacy/optimized %s, %s", f, p);
		return;
	}
	if (by_rank != by_ci) {
		snprintf(r->verdict, sizeof(r->verdict), "inconclusive: the "
			 "rank test (%s) and the interval (legacy/optimized "
			 "%s) disagree", p, f);
		return;
	}
	legacy_worse = b->lower_is_better ? q->value > 1 : q->value < 1;
	/* Report the larger-than-one side: invert the ratio and its CI. */
	if (q->value < 1) {
		factor = 1 / q->value;
		flo = 1 / q->hi;
		fhi = 1 / q->lo;
	} else {
		factor = q->value;
		flo = q->lo;
		fhi = q->hi;
	}
	snprintf(r->verdict, sizeof(r->verdict),
		 "legacy is %sx %s (95%% CI %s–%s), %s",
		 out_fmt_sig(f, sizeof(f), factor, 3),
		 legacy_worse ? (speed ? "slower" : "worse")
			      : (speed ? "faster" : "better"),
		 out_fmt_sig(lo, sizeof(lo), flo, 3),
		 out_fmt_sig(hi, sizeof(hi), fhi, 3), p);
}

/*
 * The measured runs in execution order, paired two by two: ABBA makes
 * each pair one legacy and one optimized run, next to each other in time,
 * so a drift of the machine hits both alike.  A pair of one mode (a
 * hand-made order), a pair with an invalid run, or a run left over is
 * not used.
 */
static int pair_runs(const struct bench *b, struct report *r)
{
	double *x = calloc((size_t)b->done + 1, sizeof(double));
	double *y = calloc((size_t)b->done + 1, sizeof(double));
	const struct bench_sample *prev = NULL;
	size_t n = 0;

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	for (int i = 0; i < b->done; i++) {
		const struct bench_sample *s = &b->s[i];

		if (s->warmup)
			continue;
		if (!prev) {
			prev = s;
			continue;
		}
		if (prev->mode != s->mode && !prev->invalid[0] &&
		    !s->invalid[0]) {
			x[n] = (prev->mode == BENCH_LEGACY ? prev : s)->value;
			y[n] = (prev->mode == BENCH_LEGACY ? s : prev)->value;
			n++;
		}
		prev = NULL;
	}
	r->paired = (struct st_paired){ 0, NAN, NAN, NAN, NAN };
	r->paired_err = n ? st_ratio_paired(x, y, n, 0.95, &r->paired) : 0;
	free(x);
	free(y);
	return r->paired_err == -ENOMEM ? -ENOMEM : 0;
}

static int compute(const struct bench *b, struct report *r)
{
	int err;

	for (int m = 0; m < 2; m++) {
		r->m[m].v = calloc((size_t)b->done + 1, sizeof(double));
		if (!r->m[m].v)
			return -ENOMEM;
	}
	for (int i = 0; i < b->done; i++) {
		struct mode_stats *ms = &r->m[b->s[i].mode];

		if (bench_counts(&b->s[i]))
			ms->v[ms->n++] = b->s[i].value;
	}
	r->invalid_note[0] = '\0';
	if (invalid_runs(b))
		snprintf(r->invalid_note, sizeof(r->invalid_note), "%d run%s "
			 "invalid and left out of the statistics (see "
			 "invalid_runs)", invalid_runs(b),
			 invalid_runs(b) == 1 ? " was" : "s were");
	for (int m = 0; m < 2; m++) {
		if (!r->m[m].n) {
			r->m[m].s = (struct st_summary){ 0, NAN, NAN, NAN, NAN,
				NAN, NAN, NAN, NAN, NAN, NAN };
			continue;
		}
		err = st_summarize(r->m[m].v, r->m[m].n, &r->m[m].s);
		if (err)
			return err;
	}
	/* An interrupted bench, or one whose runs of a mode were invalid. */
	if (!r->m[0].n || !r->m[1].n) {
		r->mw = (struct st_mw){ NAN, NAN, NAN, false };
		r->ratio = (struct st_ratio){ NAN, NAN, NAN, NAN };
		r->paired = (struct st_paired){ 0, NAN, NAN, NAN, NAN };
		snprintf(r->verdict, sizeof(r->verdict), "inconclusive: %s",
			 b->incomplete ? "interrupted before both modes had a "
					 "measured run" :
			 "a mode has no valid measured run");
		return 0;
	}
	err = st_mann_whitney(r->m[0].v, r->m[0].n, r->m[1].v, r->m[1].n,
			      &r->mw);
	if (err)
		return err;
	r->ratio_err = st_ratio_welch(r->m[0].v, r->m[0].n, r->m[1].v,
				      r->m[1].n, 0.95, &r->ratio);
	err = pair_runs(b, r);
	if (err)
		return err;
	verdict(b, r);
	return 0;
}

/*
 * Per counter of one path, over the measured runs of one mode: the mean
 * of the deltas, or the largest value of a maximum.  Runs where the
 * counter was reset (null) do not count.
 */
static void emit_counter_means(const struct bench *b, enum bench_mode m,
			       const char *path)
{
	json_t *seen = json_object(), *cnt, *v;
	const char *name;
	double acc;
	int n;

	for (int i = 0; i < b->done; i++) {
		if (b->s[i].mode != m || !bench_counts(&b->s[i]))
			continue;
		cnt = json_object_get(b->s[i].counters, path);
		json_object_foreach(cnt, name, v)
			json_object_set_new(seen, name, json_true());
	}
	json_object_foreach(seen, name, v) {
		acc = bench_is_max_counter(name) ? -INFINITY : 0;
		n = 0;
		for (int i = 0; i < b->done; i++) {
			json_t *c;

			if (b->s[i].mode != m || !bench_counts(&b->s[i]))
				continue;
			c = json_object_get(json_object_get(b->s[i].counters,
							    path), name);
			if (!json_is_integer(c))
				continue;
			if (bench_is_max_counter(name))
				acc = fmax(acc, (double)json_integer_value(c));
			else
				acc += (double)json_integer_value(c);
			n++;
		}
		if (!n)
			out_null(name);
		else {
			acc = bench_is_max_counter(name) ? acc : acc / n;
			/* Counts are usually whole: no ".000" after them. */
			out_real(name, acc, acc == floor(acc) ? 1 : SIG);
		}
	}
	json_decref(seen);
}

/* A command's CPU times, as wait4 gave them: their mean per run. */
static const char *const cpu_keys[] = { "user_s", "sys_s", "cpu_s" };

static double results_mean(const struct bench *b, enum bench_mode m,
			   const char *key)
{
	double acc = 0;
	int n = 0;

	for (int i = 0; i < b->done; i++) {
		json_t *v = json_object_get(b->s[i].results, key);

		if (b->s[i].mode == m && bench_counts(&b->s[i]) &&
		    json_is_number(v)) {
			acc += json_number_value(v);
			n++;
		}
	}
	return n ? acc / n : NAN;
}

static void emit_json(const struct bench *b, const struct report *r)
{
	const struct bench_opts *o = b->o;

	out_string("schema", BENCH_SCHEMA);
	out_jansson("provenance", b->provenance);
	out_string("workload", b->workload_name);
	out_string("path", o->path);
	out_begin_array("paths");
	for (int i = 0; i < b->paths.n; i++)
		out_string(NULL, b->paths.name[i]);
	out_end();
	out_string("metric", b->metric);
	out_string("unit", b->unit);
	out_bool("lower_is_better", b->lower_is_better);
	out_begin_array("args");
	for (int i = 0; i < o->nargs; i++)
		out_string(NULL, o->args[i]);
	out_end();
	out_bool("command", o->command);
	out_string("prepare", o->prepare);
	out_u64("runs_per_mode", (uint64_t)o->runs);
	out_u64("warmup_per_mode", (uint64_t)o->warmup);
	out_bool("complete", !b->incomplete);
	out_begin_array("order");
	for (int i = 0; i < b->done; i++)
		out_string(NULL, bench_mode_name[b->s[i].mode]);
	out_end();
	out_begin_array("samples");
	for (int i = 0; i < b->done; i++) {
		const struct bench_sample *s = &b->s[i];

		out_begin_object(NULL, OUT_PLAIN);
		out_u64("index", (uint64_t)s->index);
		out_string("mode", bench_mode_name[s->mode]);
		out_bool("warmup", s->warmup);
		out_string("invalid", s->invalid[0] ? s->invalid : NULL);
		out_real("value", s->value, SIG);
		out_jansson("counters", s->counters);
		out_jansson("results", s->results);
		if (s->kernel_reports)
			out_jansson("kernel_reports", s->kernel_reports);
		out_end();
	}
	out_end();

	out_begin_object("summary", OUT_PLAIN);
	for (int m = 0; m < 2; m++) {
		const struct st_summary *s = &r->m[m].s;

		out_begin_object(bench_mode_name[m], OUT_PLAIN);
		out_u64("n", s->n);
		out_real("gmean", s->gmean, SIG);
		out_begin_array("gmean_ci95");
		out_real(NULL, s->g_lo, SIG);
		out_real(NULL, s->g_hi, SIG);
		out_end();
		out_real("median", s->median, SIG);
		out_real("mean", s->mean, SIG);
		out_real("sd", s->sd, SIG);
		out_real("min", s->min, SIG);
		out_real("max", s->max, SIG);
		if (o->command) {
			out_begin_object("cpu_mean", OUT_PLAIN);
			for (size_t k = 0; k < 3; k++)
				out_real(cpu_keys[k],
					 results_mean(b, (enum bench_mode)m,
						      cpu_keys[k]), SIG);
			out_end();
		}
		out_begin_object("counters_mean", OUT_PLAIN);
		for (int i = 0; i < b->paths.n; i++) {
			out_begin_object(b->paths.name[i], OUT_PLAIN);
			emit_counter_means(b, (enum bench_mode)m,
					   b->paths.name[i]);
			out_end();
		}
		out_end();
		out_end();
	}
	out_begin_object("ratio", OUT_PLAIN);
	out_string("estimator", "geometric means, legacy/optimized");
	out_real("value", r->ratio.value, SIG);
	out_begin_array("ci95");
	out_real(NULL, r->ratio.lo, SIG);
	out_real(NULL, r->ratio.hi, SIG);
	out_end();
	out_string("method", "welch-t-log");
	out_real("df", r->ratio.df, SIG);
	out_end();
	out_begin_object("paired", OUT_PLAIN);
	out_u64("pairs", r->paired.n);
	out_real("value", r->paired.value, SIG);
	out_begin_array("ci95");
	out_real(NULL, r->paired.lo, SIG);
	out_real(NULL, r->paired.hi, SIG);
	out_end();
	out_real("p", r->paired.p, SIG);
	out_string("method", "paired-t-log-adjacent-runs");
	out_end();
	out_begin_object("mann_whitney", OUT_PLAIN);
	out_real("u", r->mw.u, SIG);
	out_real("p", r->mw.p, SIG);
	out_real("p_min", r->mw.p_min, SIG);
	out_string("method", r->mw.exact ? "exact-conditional"
					 : "normal-tie-continuity-corrected");
	out_end();
	out_string("verdict", r->verdict);
	out_begin_array("invalid_runs");
	for (int i = 0; i < b->done; i++)
		if (b->s[i].invalid[0])
			out_u64(NULL, (uint64_t)b->s[i].index);
	out_end();
	out_begin_array("warnings");
	if (r->warning[0])
		out_string(NULL, r->warning);
	if (r->invalid_note[0])
		out_string(NULL, r->invalid_note);
	out_end();
	out_end();
}

static void emit_text(const struct bench *b, const struct report *r)
{
	const struct bench_opts *o = b->o;
	char line[512], lo[32], hi[32], p[96];
	bool both = r->m[0].n && r->m[1].n;
	size_t used;

	used = o->command ? 0 : (size_t)snprintf(line, sizeof(line), "%s",
						    b->workload_name);
	for (int i = 0; i < o->nargs && used < sizeof(line); i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "%s%s", used ? " " : "", o->args[i]);
	out_string(o->command ? "command" : "workload", line);
	if (o->prepare)
		out_string("prepare", o->prepare);
	out_string("path", o->path);
	if (b->incomplete) {
		snprintf(line, sizeof(line), "no: interrupted%s%s after %d of "
			 "%d runs", b->stop_sig ? " by " : "",
			 b->stop_sig ? bench_signal_name(b->stop_sig) : "",
			 b->done, b->total);
		out_string("complete", line);
	}
	snprintf(line, sizeof(line), "%s (%s%s%s is better)", b->metric,
		 b->unit, *b->unit ? ", " : "",
		 b->lower_is_better ? "lower" : "higher");
	out_string("metric", line);
	if (b->provenance) {
		const char *kv = json_string_value(json_object_get(b->provenance,
							"kernel_version"));
		const char *be = json_string_value(json_object_get(b->provenance,
							"backend"));

		out_string("measured on", bench_fmt_provenance(line, sizeof(line),
							       b->provenance));
		if (kv)
			out_string("kernel build", kv);
		if (be)
			out_string("backend", be);
		if (*bench_fmt_machine(line, sizeof(line), b->provenance))
			out_string("machine", line);
		if (*bench_fmt_params(line, sizeof(line), b->provenance))
			out_string("module parameters", line);
	}
	/* Lower case: warm-ups; upper case: measured. */
	used = 0;
	line[0] = '\0';
	for (int i = 0; i < b->done && used + 4 < sizeof(line); i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "%s%c", i ? " " : "",
					 (b->s[i].warmup ? "lo" : "LO")[b->s[i].mode]);
	out_string("order", line);
	/* Each by its run number and mode, as the progress lines named it. */
	if (invalid_runs(b)) {
		out_begin_object("invalid runs (left out of the statistics)",
				 OUT_PLAIN);
		for (int i = 0; i < b->done; i++) {
			char key[64];

			if (!b->s[i].invalid[0])
				continue;
			snprintf(key, sizeof(key), "run %d (%s%s)",
				 b->s[i].index, bench_mode_name[b->s[i].mode],
				 b->s[i].warmup ? ", warm-up" : "");
			out_string(key, b->s[i].invalid);
		}
		out_end();
	}

	out_begin_table("summary", OUT_COLS, "");
	for (int m = 0; m < 2; m++) {
		const struct st_summary *s = &r->m[m].s;

		out_begin_object(bench_mode_name[m], OUT_PLAIN);
		out_u64("n", s->n);
		out_real("geometric mean", s->gmean, SIG);
		if (isfinite(s->g_lo) && isfinite(s->g_hi))
			snprintf(line, sizeof(line), "%s–%s",
				 out_fmt_sig(lo, sizeof(lo), s->g_lo, SIG),
				 out_fmt_sig(hi, sizeof(hi), s->g_hi, SIG));
		else
			snprintf(line, sizeof(line), "-");
		out_string("95% CI", line);
		out_real("median", s->median, SIG);
		out_real("min", s->min, SIG);
		out_real("max", s->max, SIG);
		out_end();
	}
	out_end();

	if (o->command) {
		out_begin_table("CPU time per run (s, mean; from wait4)",
				OUT_COLS, "");
		for (int m = 0; m < 2; m++) {
			out_begin_object(bench_mode_name[m], OUT_PLAIN);
			out_real("user", results_mean(b, (enum bench_mode)m,
						      "user_s"), SIG);
			out_real("system", results_mean(b, (enum bench_mode)m,
							 "sys_s"), SIG);
			out_real("total", results_mean(b, (enum bench_mode)m,
						       "cpu_s"), SIG);
			out_end();
		}
		out_end();
	}
	out_begin_object("counters per run (mean; *_max: largest)",
			 OUT_PLAIN);
	for (int i = 0; i < b->paths.n; i++) {
		out_begin_table(b->paths.name[i], OUT_COLS, "counter");
		for (int m = 0; m < 2; m++) {
			out_begin_object(bench_mode_name[m], OUT_PLAIN);
			emit_counter_means(b, (enum bench_mode)m,
					   b->paths.name[i]);
			out_end();
		}
		out_end();
	}
	out_end();

	if (!both)
		snprintf(line, sizeof(line), "none (no measured run in a mode)");
	else if (!isfinite(r->ratio.value))
		snprintf(line, sizeof(line), "none (a run measured 0 or less)");
	else
		snprintf(line, sizeof(line), "%s; ratio of geometric means, "
			 "Welch t on the logs",
			 fmt_ratio_ci(p, sizeof(p), r->ratio.value,
				      r->ratio.lo, r->ratio.hi));
	out_string("legacy/optimized", line);
	if (r->paired.n && isfinite(r->paired.value)) {
		st_fmt_p(lo, sizeof(lo), r->paired.p);
		snprintf(line, sizeof(line), "%s, %s; %zu adjacent pairs, "
			 "paired t on the logs",
			 fmt_ratio_ci(p, sizeof(p), r->paired.value,
				      r->paired.lo, r->paired.hi),
			 lo, r->paired.n);
		out_string("paired", line);
	}
	st_fmt_p(p, sizeof(p), r->mw.p);
	snprintf(line, sizeof(line), "U=%g, %s (two-sided, %s)", r->mw.u, p,
		 r->mw.exact ? "exact given the ties" :
		 "normal approximation with tie and continuity corrections");
	out_string("Mann-Whitney", both ? line : "none");
	out_string("verdict", r->verdict);
}

/* ---- plot -------------------------------------------------------------- */

/*
 * Every run as a point above its mode, spread sideways by a fixed
 * golden-ratio sequence (deterministic, so the same data give the same
 * picture), warm-ups hollow and grey, the geometric mean as a bar.  The data go
 * inline as datablocks: nothing to clean up in $TMPDIR.
 */
struct gp_ctx {
	const struct bench *b;
	const struct report *r;
};

static void gp_script(FILE *f, const void *ctx)
{
	static const char *const color[2] = { "#d62728", "#1f77b4" };
	const struct bench *b = ((const struct gp_ctx *)ctx)->b;
	const struct report *r = ((const struct gp_ctx *)ctx)->r;
	char title[512];
	bool nonneg = true;
	int k[2] = { 0, 0 }, nwarm = 0, ninvalid = 0;

	snprintf(title, sizeof(title), "%s, %s: %s", b->workload_name,
		 b->o->path, r->verdict);
	fputs("set title noenhanced ", f);
	bench_gp_quote(f, title);
	snprintf(title, sizeof(title), "%s (%s, %s is better)", b->metric,
		 b->unit, b->lower_is_better ? "lower" : "higher");
	fputs("\nset ylabel noenhanced ", f);
	bench_gp_quote(f, title);
	fputs("\nset xrange [0.4:2.6]\nset xtics ('legacy' 1, 'optimized' 2)\n"
	      "set grid ytics\nset key outside bottom center horizontal\n", f);

	for (int m = 0; m < 2; m++) {
		fprintf(f, "$%s << EOD\n", bench_mode_name[m]);
		for (int i = 0; i < b->done; i++) {
			const struct bench_sample *s = &b->s[i];
			double frac;

			if ((int)s->mode != m || !bench_counts(s))
				continue;
			frac = fmod(0.5 + k[m]++ * 0.6180339887498949, 1.0);
			fprintf(f, "%.4f %.17g\n", m + 1 + 0.3 * (frac - 0.5),
				s->value);
			nonneg &= s->value >= 0;
		}
		fputs("EOD\n", f);
	}
	fputs("$warmup << EOD\n", f);
	for (int i = 0; i < b->done; i++)
		if (b->s[i].warmup && !b->s[i].invalid[0]) {
			fprintf(f, "%d %.17g\n", b->s[i].mode + 1, b->s[i].value);
			nonneg &= b->s[i].value >= 0;
			nwarm++;
		}
	fputs("EOD\n$invalid << EOD\n", f);
	for (int i = 0; i < b->done; i++)
		if (b->s[i].invalid[0]) {
			fprintf(f, "%d %.17g\n", b->s[i].mode + 1,
				b->s[i].value);
			nonneg &= b->s[i].value >= 0;
			ninvalid++;
		}
	fprintf(f, "EOD\n$gmean << EOD\n1 %.17g\n2 %.17g\nEOD\n",
		r->m[0].s.gmean, r->m[1].s.gmean);
	/* A ratio is read against zero; start there when nothing is below. */
	if (nonneg)
		fputs("set yrange [0:*]\n", f);
	fprintf(f, "plot $legacy using 1:2 with points pt 7 ps 0.9 lc rgb '%s' "
		"title 'legacy', \\\n"
		"  $optimized using 1:2 with points pt 7 ps 0.9 lc rgb '%s' "
		"title 'optimized', \\\n", color[0], color[1]);
	if (nwarm)
		fputs("  $warmup using 1:2 with points pt 6 ps 0.9 "
		      "lc rgb '#888888' title 'warm-up (not counted)', \\\n", f);
	if (ninvalid)
		fputs("  $invalid using 1:2 with points pt 2 ps 1.2 "
		      "lc rgb '#000000' title 'invalid (not counted)', \\\n", f);
	fputs("  $gmean using ($1-0.25):2:(0.5):(0) with vectors nohead "
	      "lw 2 lc rgb 'black' title 'geometric mean'\n", f);
}

/* ---- exports ------------------------------------------------------------ */

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
static void md_cell(FILE *f, const char *s)
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
	char v[6][32], p[32], ci[96], line[512];

	fputc('`', f);
	if (!o->command)
		md_cell(f, b->workload_name);
	for (int i = 0; i < o->nargs; i++) {
		if (i || !o->command)
			fputc(' ', f);
		md_cell(f, o->args[i]);
	}
	fprintf(f, "`, path %s; %s (%s, %s is better)%s\n\n", o->path,
		b->metric, b->unit, b->lower_is_better ? "lower" : "higher",
		b->incomplete ? "; incomplete: interrupted" : "");
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
					    results_mean(b, (enum bench_mode)m,
							 "user_s"), SIG),
				out_fmt_sig(v[1], sizeof(v[1]),
					    results_mean(b, (enum bench_mode)m,
							 "sys_s"), SIG));
		fputc('\n', f);
	}
	st_fmt_p(p, sizeof(p), r->mw.p);
	fprintf(f, "\nlegacy/optimized %s (ratio of geometric means, Welch t "
		"on the logs); Mann-Whitney %s.  **%s**\n",
		fmt_ratio_ci(ci, sizeof(ci), r->ratio.value, r->ratio.lo,
			     r->ratio.hi), p, r->verdict);
	if (invalid_runs(b)) {
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
	emit_json(b, r);
	j = out_take();
	ret = json_dumpf(j, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	fputc('\n', f);
	json_decref(j);
	return ret;
}

enum export_kind { EXPORT_MD, EXPORT_CSV, EXPORT_JSON };

/* Write one export to file, "-" for standard output: 0, or 1 after a message. */
static int export(const char *file, const struct bench *b,
		  const struct report *r, enum export_kind kind)
{
	bool std = !strcmp(file, "-");
	FILE *f = std ? stdout : fopen(file, "w");
	int bad = 0;

	if (!f) {
		abpath_error("cannot write %s: %s", file, strerror(errno));
		return 1;
	}
	switch (kind) {
	case EXPORT_CSV:
		write_csv(f, b);
		break;
	case EXPORT_JSON:
		bad = write_json(f, b, r);
		break;
	case EXPORT_MD:
		write_markdown(f, b, r);
		break;
	}
	bad |= std ? fflush(f) == EOF || ferror(f) : ferror(f) | fclose(f);
	if (bad) {
		abpath_error("writing %s: %s", std ? "standard output" : file,
			     strerror(errno));
		return 1;
	}
	return 0;
}

int bench_report(const struct bench *b)
{
	struct report r = { 0 };
	int err, ret = 0;

	err = compute(b, &r);
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
	if (b->o->json)
		emit_json(b, &r);
	else
		emit_text(b, &r);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	if (!ret && b->o->plot) {
		struct gp_ctx ctx = { b, &r };

		ret = bench_gnuplot(b->o->plot, gp_script, &ctx);
	}
	if (!ret && b->o->export_md)
		ret = export(b->o->export_md, b, &r, EXPORT_MD);
	if (!ret && b->o->export_csv)
		ret = export(b->o->export_csv, b, &r, EXPORT_CSV);
	if (!ret && b->o->export_json)
		ret = export(b->o->export_json, b, &r, EXPORT_JSON);
	/* A bench that measured nothing in a mode has no result to give. */
	if (!ret && !b->incomplete && (!r.m[0].n || !r.m[1].n)) {
		abpath_error("no valid measured %s run, so nothing to compare: "
			     "every one was invalid (the report names why)",
			     bench_mode_name[r.m[0].n ? 1 : 0]);
		ret = 1;
	}
out:
	free(r.m[0].v);
	free(r.m[1].v);
	return ret;
}

json_t *bench_json(const struct bench *b)
{
	struct report r = { 0 };
	json_t *j = NULL;
	int err;

	err = compute(b, &r);
	if (err) {
		abpath_error("computing the statistics: %s", strerror(-err));
	} else {
		out_init(true);
		emit_json(b, &r);
		j = out_take();
	}
	free(r.m[0].v);
	free(r.m[1].v);
	return j;
}
