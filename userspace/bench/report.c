// SPDX-License-Identifier: GPL-2.0
/*
 * The result of 'abpath bench': per-mode statistics, the legacy/optimized
 * ratio, the rank test and a one-line verdict, emitted once through
 * output.h for both text and JSON; then the plot (plot.c) and the exports
 * (export.c), from the same statistics.
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

#include "report.h"
#include "../output.h"

int report_invalid_runs(const struct bench *b)
{
	int n = 0;

	for (int i = 0; i < b->done; i++)
		n += !!b->s[i].invalid[0];
	return n;
}

const char *report_fmt_interrupted(char *buf, size_t len,
				   const struct bench *b)
{
	int measured[2] = { 0, 0 }, warm = 0;

	for (int i = 0; i < b->done; i++) {
		if (b->s[i].warmup)
			warm++;
		else
			measured[b->s[i].mode]++;
	}
	snprintf(buf, len, "after %d of %d runs: it holds %d legacy and %d "
		 "optimized measured runs of the %s%d per mode planned, and "
		 "%d warm-up%s", b->done, b->total > b->done ? b->total :
		 b->done, measured[BENCH_LEGACY], measured[BENCH_OPTIMIZED],
		 b->o->adaptive ? "at most " : "", b->o->runs, warm,
		 warm == 1 ? "" : "s");
	return buf;
}

/* Time-like metrics read better as slower/faster, others as worse/better. */
bool report_speed_words(const char *unit, bool lower_is_better)
{
	static const char *const times[] = { "s", "ms", "us", "ns", "µs" };

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(unit, times[i]))
			return lower_is_better;
	/* A throughput: loops/s, ops/s. */
	return !lower_is_better && strstr(unit, "/s");
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
	bool legacy_worse, speed = report_speed_words(b->unit,
						      b->lower_is_better);
	bool by_rank, by_ci;
	double factor, flo, fhi;
	const double one = 1;

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
	report_fmt_ratio_ci(f, sizeof(f), q->value, q->lo, q->hi);
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
		 report_fmt_beside(f, sizeof(f), factor, 3, &one, 1),
		 legacy_worse ? (speed ? "slower" : "worse")
			      : (speed ? "faster" : "better"),
		 report_fmt_beside(lo, sizeof(lo), flo, 3, &one, 1),
		 report_fmt_beside(hi, sizeof(hi), fhi, 3, &one, 1), p);
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

/*
 * --runs auto: the rule's verdict over its looks.  The fixed-count
 * statistics stay in the report, labelled unadjusted: none of them is
 * what the rule guarantees, and the run counts' warning is theirs.
 */
static int adaptive_verdict(const struct bench *b, struct report *r)
{
	int err;

	if (!b->o->adaptive)
		return 0;
	err = bench_looks(b, &r->looks);
	if (err == -EDOM) {
		snprintf(r->verdict, sizeof(r->verdict), "no ratio: a run "
			 "measured 0 or less, and geometric means need "
			 "positive values");
		return 0;
	}
	if (err)
		return err;
	bench_seq_verdict(b, &r->looks,
			  report_speed_words(b->unit, b->lower_is_better),
			  r->verdict, sizeof(r->verdict));
	r->warning[0] = '\0';
	if (r->looks.extra)
		snprintf(r->warning, sizeof(r->warning), "%d measured run%s "
			 "after the rule stopped: not a bench this rule ran; "
			 "its looks end at the stop", r->looks.extra,
			 r->looks.extra == 1 ? "" : "s");
	return 0;
}

int report_compute(const struct bench *b, struct report *r)
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
	if (report_invalid_runs(b))
		snprintf(r->invalid_note, sizeof(r->invalid_note), "%d run%s "
			 "invalid and left out of the statistics (see "
			 "invalid_runs)", report_invalid_runs(b),
			 report_invalid_runs(b) == 1 ? " was" : "s were");
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
		return adaptive_verdict(b, r);
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
	return adaptive_verdict(b, r);
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

double report_results_mean(const struct bench *b, enum bench_mode m,
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

/* A mode's summary: a column of the summary table in text. */
static void emit_mode(const struct bench *b, const struct report *r,
		      enum bench_mode m)
{
	const struct st_summary *s = &r->m[m].s;

	out_begin_object(bench_mode_name[m], OUT_PLAIN);
	out_u64("n", s->n);
	out_real("gmean", s->gmean, SIG);
	out_range("gmean_ci95", s->g_lo, s->g_hi, SIG);
	out_real("median", s->median, SIG);
	out_real("mean", s->mean, SIG);
	out_real("sd", s->sd, SIG);
	out_real("min", s->min, SIG);
	out_real("max", s->max, SIG);
	if (b->o->command) {
		out_begin_object("cpu_mean", OUT_PLAIN);
		for (size_t k = 0; k < 3; k++)
			out_real(cpu_keys[k],
				 report_results_mean(b, m, cpu_keys[k]), SIG);
		out_end();
	}
	out_begin_object("counters_mean", OUT_PLAIN);
	for (int i = 0; i < b->paths.n; i++) {
		out_begin_object(b->paths.name[i], OUT_PLAIN);
		emit_counter_means(b, m, b->paths.name[i]);
		out_end();
	}
	out_end();
	out_end();
}

/* The tests, each drawn after the summary table in text. */
static void emit_tests(const struct bench *b, const struct report *r)
{
	bool adaptive = b->o->adaptive;
	const double one = 1;

	out_begin_object("ratio", OUT_APART);
	if (adaptive)
		out_bool("unadjusted", true);
	out_string("estimator", "geometric means, legacy/optimized");
	out_real("value", r->ratio.value, SIG);
	/* Enough digits to show which side of 1 it lies on, as the verdict. */
	out_range("ci95", r->ratio.lo, r->ratio.hi,
		  report_range_sig(r->ratio.lo, r->ratio.hi, SIG, &one, 1));
	out_string("method", "welch-t-log");
	out_real("df", r->ratio.df, SIG);
	out_end();
	out_begin_object("paired", OUT_APART);
	if (adaptive)
		out_bool("unadjusted", true);
	out_u64("pairs", r->paired.n);
	out_real("value", r->paired.value, SIG);
	out_range("ci95", r->paired.lo, r->paired.hi, SIG);
	out_real("p", r->paired.p, SIG);
	out_string("method", "paired-t-log-adjacent-runs");
	out_end();
	out_begin_object("mann_whitney", OUT_APART);
	if (adaptive)
		out_bool("unadjusted", true);
	out_real("u", r->mw.u, SIG);
	out_real("p", r->mw.p, SIG);
	out_real("p_min", r->mw.p_min, SIG);
	out_string("method", r->mw.exact ? "exact-conditional"
					 : "normal-tie-continuity-corrected");
	out_end();
}

void report_emit_command(const struct bench *b)
{
	const struct bench_opts *o = b->o;

	out_string("workload", b->workload_name);
	out_begin_array("args");
	for (int i = 0; i < o->nargs; i++)
		out_string(NULL, o->args[i]);
	out_end();
	out_hint(OUT_LINE);
	out_bool("command", o->command);
	out_string("prepare", o->prepare);
}

void report_emit_paths(const struct bench *b, const char *key)
{
	out_begin_array(key);
	for (int i = 0; i < b->paths.n; i++)
		out_string(NULL, b->paths.name[i]);
	out_end();
	out_hint(OUT_LINE);
}

void report_emit_metric(const struct bench *b)
{
	out_string("metric", b->metric);
	out_string("unit", b->unit);
	out_bool("lower_is_better", b->lower_is_better);
}

void report_emit_samples(const struct bench *b,
			 void (*place)(const struct bench *b,
				       const struct bench_sample *s))
{
	out_begin_array("samples");
	out_hint(OUT_ROWS);
	for (int i = 0; i < b->done; i++) {
		const struct bench_sample *s = &b->s[i];

		out_begin_object(NULL, OUT_PLAIN);
		out_u64("index", (uint64_t)s->index);
		place(b, s);
		out_bool("warmup", s->warmup);
		out_real("value", s->value, SIG);
		out_string("invalid", s->invalid[0] ? s->invalid : NULL);
		out_jansson("counters", s->counters);
		out_hint(OUT_HIDDEN);
		out_jansson("results", s->results);
		out_hint(OUT_HIDDEN);
		if (s->kernel_reports) {
			out_jansson("kernel_reports", s->kernel_reports);
			out_hint(OUT_HIDDEN);
		}
		out_end();
	}
	out_end();
}

static void place_mode(const struct bench *b, const struct bench_sample *s)
{
	(void)b;
	out_string("mode", bench_mode_name[s->mode]);
}

/*
 * The result, once, for both formats: JSON is all of it ('abpath bench
 * -j', schema BENCH_SCHEMA, what --from reads back); text shows the same
 * nodes but for what only a program reads (each run's counters and
 * results, the schema, the order, which the runs' table shows) and the
 * warnings, which went to standard error already.
 */
void report_emit(const struct bench *b, const struct report *r)
{
	const struct bench_opts *o = b->o;

	report_emit_command(b);
	out_string("path", o->path);
	report_emit_paths(b, "paths");
	report_emit_metric(b);
	out_u64("runs_per_mode", (uint64_t)o->runs);
	out_u64("warmup_per_mode", (uint64_t)o->warmup);
	out_bool("complete", !b->incomplete);
	/* How far it got, where a reader of the text looks first. */
	if (b->incomplete) {
		char why[256];

		out_string("interrupted",
			   report_fmt_interrupted(why, sizeof(why), b));
	}
	out_string("schema", o->adaptive ? BENCH_SCHEMA_ADAPTIVE : BENCH_SCHEMA);
	out_hint(OUT_HIDDEN);
	out_jansson("provenance", b->provenance);
	out_begin_array("order");
	for (int i = 0; i < b->done; i++)
		out_string(NULL, bench_mode_name[b->s[i].mode]);
	out_end();
	out_hint(OUT_HIDDEN);

	/* In text, one row per run: the invalid ones name why. */
	report_emit_samples(b, place_mode);

	/* In text, a table with a column per mode, the tests under it. */
	out_begin_table("summary", OUT_COLS, "");
	emit_mode(b, r, BENCH_LEGACY);
	emit_mode(b, r, BENCH_OPTIMIZED);
	emit_tests(b, r);
	out_string("verdict", r->verdict);
	out_begin_array("invalid_runs");
	for (int i = 0; i < b->done; i++)
		if (b->s[i].invalid[0])
			out_u64(NULL, (uint64_t)b->s[i].index);
	out_end();
	out_hint(OUT_LINE);
	out_begin_array("warnings");
	if (r->warning[0])
		out_string(NULL, r->warning);
	if (r->invalid_note[0])
		out_string(NULL, r->invalid_note);
	out_end();
	out_hint(OUT_HIDDEN);
	out_end();
	if (o->adaptive)
		bench_emit_sequential(b, &r->looks);
}

void report_free(struct report *r)
{
	free(r->m[0].v);
	free(r->m[1].v);
	bench_looks_free(&r->looks);
}

json_t *bench_json(const struct bench *b)
{
	struct report r = { 0 };
	json_t *j = NULL;
	int err;

	err = report_compute(b, &r);
	if (err) {
		abpath_error("computing the statistics: %s", strerror(-err));
	} else {
		out_init(true);
		report_emit(b, &r);
		j = out_take();
	}
	report_free(&r);
	return j;
}
