// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench --pool --from FILE --from FILE ...: one bench's results
 * from several hosts, pooled into one answer (pool.h: how, and why that
 * way).  Each file is what 'abpath bench -j' printed on one host; the
 * host is named by the file (a fleet's VMs all call themselves the same),
 * or by LABEL in --from LABEL=FILE.
 *
 * Each host's own numbers (its ratio, Welch interval and Mann-Whitney p)
 * come from bench_json(), the code that reported them when it ran; what
 * is pooled comes from its valid measured runs, as pool.c takes them.
 * Files that are not one bench over distinct hosts are refused before
 * anything is printed: a pooled number over different benches, or over
 * one host twice, would look like an answer and be none.
 *
 * The report is one tree through output.h (text or -j), and its Markdown
 * goes through export.c.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "maths/pool.h"
#include "report.h"
#include "../output.h"

/* The JSON of -j: its own schema, not a bench's (--from refuses it). */
#define POOL_SCHEMA	"abpath-pool/2"
#define POOL_LEVEL	0.95

/* One host: its file, what it ran, and its own report. */
struct phost {
	char label[128];
	const char *file, *what;
	json_t *j;		/* the file */
	json_t *report;		/* bench_json() of it */
	json_t *pv;		/* borrowed from j: its provenance, or NULL */
	char bench[1024];	/* the workload or command and its arguments */
	const char *schema, *path, *metric, *unit;	/* borrowed from j */
	bool lower_is_better;
	/* Its valid measured runs per mode: what pool.c took, and what a copy shares. */
	double *runs[2];
	size_t n[2];
	bool incomplete;	/* interrupted: fewer runs than it planned */
};

struct pooled {
	int k;
	struct phost *p;
	struct pool_host *h;	/* pool.c's, in the order of p */
	struct pool_result r;
	char verdict[2048];
	/* Whether provenance.host tells the hosts apart beyond their labels. */
	bool show_hostname;
};

/*
 * LABEL=FILE names the host LABEL (bench_from_label()).  Else the host is
 * FILE's base name without ".json"; "-" is standard input.
 */
static void split_label(const char *arg, struct phost *p)
{
	const char *base;
	size_t n;

	if (bench_from_label(arg, &p->file, p->label, sizeof(p->label)))
		return;
	if (!strcmp(arg, "-")) {
		snprintf(p->label, sizeof(p->label), "stdin");
		return;
	}
	base = strrchr(arg, '/');
	base = base ? base + 1 : arg;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(p->label, sizeof(p->label), "%.*s", (int)n, base);
}

static const char *str_of(json_t *j, const char *key, const char *dflt)
{
	return json_string_value(json_object_get(j, key)) ?: dflt;
}

/* "forkexit -N 3", or a command's words: what a bench is a bench of. */
static void bench_line(struct phost *p)
{
	json_t *args = json_object_get(p->j, "args"), *a;
	bool command = json_is_true(json_object_get(p->j, "command"));
	size_t used = 0, i;

	p->bench[0] = '\0';
	if (!command)
		used = (size_t)snprintf(p->bench, sizeof(p->bench), "%s",
					str_of(p->j, "workload", ""));
	json_array_foreach(args, i, a)
		if (used < sizeof(p->bench))
			used += (size_t)snprintf(p->bench + used,
						 sizeof(p->bench) - used,
						 "%s%s", used ? " " : "",
						 json_string_value(a) ?: "");
}

/* Its valid measured runs per mode into h, and its own report. */
static int host_runs(struct phost *p, struct pool_host *h)
{
	struct bench_opts lo = { 0 };
	double *v[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	struct bench b;
	int ret, err = 0;

	ret = bench_load(p->j, p->what, &b, &lo);
	/*
	 * A fixed count cut short by a signal: its runs are as good as any,
	 * only fewer, and its weight says so.  The verdict names it.
	 */
	if (!ret && b.incomplete) {
		char why[256];

		p->incomplete = true;
		abpath_warn("%s: an interrupted bench (\"complete\": false), "
			    "pooled with the runs it has: %s", p->what,
			    report_fmt_interrupted(why, sizeof(why), &b));
	}
	/*
	 * Its runs stopped when a rule saw enough: each host's Welch
	 * interval, which pooling weighs, is not adjusted for that.
	 */
	if (!ret && lo.adaptive) {
		abpath_error("%s: an adaptive bench (--runs auto): the pooled "
			     "interval does not adjust for its stopping rule; "
			     "pool benches of a fixed count (--runs N)",
			     p->what);
		ret = 1;
	}
	for (int m = 0; !ret && m < 2; m++) {
		v[m] = calloc((size_t)b.done + 1, sizeof(double));
		if (!v[m])
			err = -ENOMEM;
	}
	for (int i = 0; !ret && !err && i < b.done; i++)
		if (bench_counts(&b.s[i]))
			v[b.s[i].mode][n[b.s[i].mode]++] = b.s[i].value;
	if (!ret && !err)
		err = pool_host_from_samples(v[0], n[0], v[1], n[1], h);
	if (err == -EINVAL)
		abpath_error("%s: %zu valid legacy and %zu valid optimized "
			     "runs: pooling needs two or more of each", p->what,
			     n[0], n[1]);
	else if (err == -EDOM)
		abpath_error("%s: a run measured 0 or less, or every run of "
			     "both modes measured the same: no ratio with a "
			     "spread to pool", p->what);
	else if (err)
		abpath_error("%s: %s", p->what, strerror(-err));
	if (!ret && !err) {
		p->report = bench_json(&b);
		ret = !p->report;
	}
	for (int m = 0; m < 2; m++) {
		p->runs[m] = v[m];
		p->n[m] = n[m];
	}
	bench_free(&b);
	free(lo.args);
	return ret || err ? 1 : 0;
}

static int load_host(struct phost *p, const char *arg, struct pool_host *h)
{
	split_label(arg, p);
	p->j = bench_from_file(p->file, &p->what);
	if (!p->j)
		return 1;
	/* A factorial's: factorial.c pools it, effect by effect. */
	if (!strcmp(str_of(p->j, "schema", ""), BENCH_SCHEMA_FACTORIAL))
		return 2;
	if (!json_object_get(p->j, "samples")) {
		abpath_error("%s is a suite's result: --pool pools plain bench "
			     "results ('abpath bench -j')", p->what);
		return 1;
	}
	/* Version 1 had no "schema"; from.c has checked the rest. */
	p->schema = str_of(p->j, "schema", "abpath-bench/1");
	p->path = str_of(p->j, "path", "");
	p->metric = str_of(p->j, "metric", "value");
	p->unit = str_of(p->j, "unit", "");
	p->lower_is_better = !json_is_false(json_object_get(p->j,
							    "lower_is_better"));
	p->pv = json_object_get(p->j, "provenance");
	bench_line(p);
	return host_runs(p, h);
}

/* One thing two results must share, else the error naming both. */
static int same(const struct phost *a, const struct phost *b,
		const char *what, const char *x, const char *y)
{
	if (!strcmp(x, y))
		return 0;
	abpath_error("%s and %s are results of different benches: %s '%s' "
		     "in %s, '%s' in %s; --pool pools one bench over hosts",
		     a->what, b->what, what, x, a->what, y, b->what);
	return 1;
}

/* Whether two provenance values are there and equal. */
static bool equal_key(json_t *a, json_t *b, const char *key)
{
	json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

	return x && y && !json_is_null(x) && json_equal(x, y);
}

/*
 * One run twice, by what it measured or by where and when it ran: 0, or
 * 1 after the error naming both files.
 *
 * By content: the same runs per mode (as multisets, in any order) are one
 * bench however its files are named; two real benches do not agree in
 * every run to the last bit.  By provenance: the same boot (its random
 * boot id) and the same start to the nanosecond.  A host name, kernel
 * build and time to the second are not enough: VMs of one image started
 * together share all three (#54).  Results from before boot_id and
 * time_nsec are judged by content alone.
 */
static int one_run_twice(const struct phost *a, const struct phost *b)
{
	if (pool_same_runs(a->runs[0], a->n[0], a->runs[1], a->n[1],
			   b->runs[0], b->n[0], b->runs[1], b->n[1])) {
		abpath_error("%s and %s are one run twice: the same %zu legacy "
			     "and %zu optimized runs, value for value (a copy "
			     "under another name?); --pool takes each host's "
			     "bench once", a->what, b->what, a->n[0], a->n[1]);
		return 1;
	}
	if (equal_key(a->pv, b->pv, "boot_id") &&
	    equal_key(a->pv, b->pv, "time") &&
	    equal_key(a->pv, b->pv, "time_nsec")) {
		abpath_error("%s and %s are one run twice: the same boot (%s) "
			     "and start (%s, to the nanosecond) in their "
			     "provenance", a->what, b->what,
			     str_of(a->pv, "boot_id", ""),
			     str_of(a->pv, "time", ""));
		return 1;
	}
	return 0;
}

/* One bench, each host once: 0, or 1 after the error. */
static int check_hosts(const struct pooled *P)
{
	const struct phost *a = &P->p[0], *b;

	for (int i = 1; i < P->k; i++) {
		b = &P->p[i];
		if (same(a, b, "schema", a->schema, b->schema) ||
		    same(a, b, "workload or command", a->bench, b->bench) ||
		    same(a, b, "path", a->path, b->path) ||
		    same(a, b, "metric", a->metric, b->metric))
			return 1;
	}
	for (int i = 0; i < P->k; i++) {
		for (int m = 0; m < i; m++) {
			a = &P->p[m];
			b = &P->p[i];
			if (!strcmp(a->label, b->label)) {
				abpath_error("%s and %s both name host '%s': one "
					     "result per host (two hosts? name "
					     "them apart: --from LABEL=FILE)",
					     a->what, b->what, a->label);
				return 1;
			}
			if (one_run_twice(a, b))
				return 1;
		}
	}
	return 0;
}

/*
 * provenance.host is worth a column only when it tells the hosts apart
 * and says more than their labels: not for a fleet of VMs that all call
 * themselves abpath-vm, nor for files named after their hosts.
 */
static bool hostnames_useful(const struct pooled *P)
{
	bool differs = false, distinct = false;
	const char *h, *first = NULL;

	for (int i = 0; i < P->k; i++) {
		h = str_of(P->p[i].pv, "host", NULL);
		if (!h)
			continue;
		differs |= strcmp(h, P->p[i].label) != 0;
		if (first && strcmp(h, first))
			distinct = true;
		first = first ?: h;
	}
	return differs && distinct;
}

/* snprintf at the end of P->verdict, never past it. */
static void __attribute__((format(printf, 2, 3)))
say(struct pooled *P, const char *fmt, ...)
{
	size_t used = strlen(P->verdict);
	va_list ap;

	va_start(ap, fmt);
	if (used < sizeof(P->verdict))
		vsnprintf(P->verdict + used, sizeof(P->verdict) - used, fmt, ap);
	va_end(ap);
}

/*
 * Three findings, each with its own error rate (docs/benchmarks.md's
 * verdict table), and the flag:
 *  - per host: how many hosts' own 95% intervals exclude 1, Holm-adjusted
 *    over the k (the chance of any false one is at most 5%); "on each of
 *    the k hosts" only when every one does, in one direction;
 *  - the mean over hosts: the pooled interval;
 *  - a new host: the prediction interval with its simulated coverage,
 *    from POOL_PREDICT_MIN_K hosts on;
 *  - hosts unlike the others (Bonferroni over the k), each with the pool
 *    of the others beside it.
 * No sign test: below 6 hosts it cannot reach p < 0.05, and the per-host
 * finding says what it would, with an error rate.
 */
static void verdict(struct pooled *P)
{
	const struct pool_result *r = &P->r;
	const struct phost *a = &P->p[0];
	bool speed = report_speed_words(a->unit, a->lower_is_better);
	const char *worse = speed ? "slower" : "worse";
	const char *better = speed ? "faster" : "better";
	/* Hosts whose own interval says legacy is worse, and better. */
	size_t nw = a->lower_is_better ? r->differ_above : r->differ_below;
	size_t nb = a->lower_is_better ? r->differ_below : r->differ_above;
	size_t k = (size_t)P->k;
	char ci[160], lo[32], hi[32];
	bool legacy_worse;

	P->verdict[0] = '\0';
	if (nw == k || nb == k)
		say(P, "per host: legacy %s on each of the %zu hosts",
		    nw == k ? worse : better, k);
	else if (!nw && !nb)
		say(P, "per host: no host shows a difference");
	else
		say(P, "per host: legacy %s on %zu of %zu hosts, %s on %zu, "
		    "no difference shown on %zu", worse, nw, k, better, nb,
		    k - nw - nb);
	say(P, " (each host's own 95%% interval, Holm over %zu)", k);

	report_fmt_ratio_ci(ci, sizeof(ci), r->mean.ratio, r->mean.ratio_lo,
			    r->mean.ratio_hi);
	if (r->mean.ratio_lo > 1 || r->mean.ratio_hi < 1) {
		legacy_worse = a->lower_is_better ? r->mean.est > 0
						  : r->mean.est < 0;
		say(P, "; mean over hosts: legacy %s, pooled "
		    "legacy/optimized %s", legacy_worse ? worse : better, ci);
	} else {
		say(P, "; mean over hosts: inconclusive, pooled "
		    "legacy/optimized %s includes 1", ci);
	}
	say(P, " (simulated coverage ≥ %.2f at %zu hosts%s)",
	    pool_mean_coverage(k), k, k == 2 ? ", t with 1 df" : "");

	if (k >= POOL_PREDICT_MIN_K)
		say(P, "; a new host: 95%% prediction interval %s–%s "
		    "(simulated coverage ≥ %.2f at %zu hosts)",
		    out_fmt_sig(lo, sizeof(lo), r->predict.ratio_lo, 3),
		    out_fmt_sig(hi, sizeof(hi), r->predict.ratio_hi, 3),
		    pool_predict_coverage(k), k);
	else
		say(P, "; a new host: too few hosts for a prediction interval "
		    "(%zu; it needs %d)", k, POOL_PREDICT_MIN_K);

	for (size_t i = 0, n = 0; i < k; i++) {
		const struct pool_interval *w = &P->h[i].without;

		if (!P->h[i].outlier)
			continue;
		if (!n++)
			say(P, "; unlike the others (Bonferroni over %zu):", k);
		report_fmt_ratio_ci(ci, sizeof(ci), w->ratio, w->ratio_lo,
				    w->ratio_hi);
		say(P, "%s %s, without it pooled legacy/optimized %s",
		    n > 1 ? "," : "", P->p[i].label, ci);
	}
	for (size_t i = 0, n = 0; i < k; i++)
		if (P->p[i].incomplete)
			say(P, "%s%s", n++ ? ", " : "; interrupted, pooled with "
			    "the runs it has: ", P->p[i].label);
}

/* A number of the host's own report, by its keys. */
static double own(const struct phost *p, const char *obj, const char *key)
{
	json_t *s = json_object_get(json_object_get(p->report, "summary"),
				    obj), *v = json_object_get(s, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double own_ci(const struct phost *p, int end)
{
	json_t *ci = json_object_get(json_object_get(json_object_get(
		p->report, "summary"), "ratio"), "ci95");

	return json_is_number(json_array_get(ci, (size_t)end)) ?
	       json_number_value(json_array_get(ci, (size_t)end)) : NAN;
}

/* [lo, hi], or null where there is none (too few hosts). */
static void emit_range(const char *key, double lo, double hi, int sig)
{
	if (!isfinite(lo) && !isfinite(hi)) {
		out_null(key);
		return;
	}
	out_range(key, lo, hi, sig);
}

static void emit_pv(const struct phost *p, const char *key)
{
	out_jansson(key, json_object_get(p->pv, key));
}

/* Per host what it measured: its own report's numbers, and its weight. */
static void emit_hosts(const struct pooled *P)
{
	out_begin_array("hosts");
	out_hint(OUT_ROWS);
	for (int i = 0; i < P->k; i++) {
		const struct phost *p = &P->p[i];
		const struct pool_host *h = &P->h[i];

		out_begin_object(NULL, OUT_PLAIN);
		out_string("host", p->label);
		emit_pv(p, "kernel");
		emit_pv(p, "cpu_model");
		out_u64("n_legacy", (uint64_t)own(p, "legacy", "n"));
		out_u64("n_optimized", (uint64_t)own(p, "optimized", "n"));
		out_bool("complete", !p->incomplete);
		out_real("ratio", own(p, "ratio", "value"), SIG);
		emit_range("ci95", own_ci(p, 0), own_ci(p, 1), SIG);
		out_real("p", own(p, "mann_whitney", "p"), 2);
		/* Its Welch t test, whose interval is ci95, and Holm's of it. */
		out_real_hidden("p_welch", h->p, SIG);
		out_real_hidden("p_holm", h->p_holm, SIG);
		out_bool("differs", h->differs);
		out_real("weight", h->weight, 2);
		/* The log scale pool.c works on, for a program. */
		out_real_hidden("log_ratio", h->y, SIG);
		out_real_hidden("variance", h->v, SIG);
		out_real_hidden("df", h->df, SIG);
		/* At the Bonferroni level, pooled.outlier_level. */
		emit_range("loo_pi", exp(h->loo_lo), exp(h->loo_hi), SIG);
		out_hint(OUT_HIDDEN);
		if (P->k >= 4)
			out_bool("outlier", h->outlier);
		else
			out_null("outlier");
		out_end();
	}
	out_end();
}

/* Per host where it ran: the rest of its provenance that matters. */
static void emit_machines(const struct pooled *P)
{
	out_begin_array("machines");
	out_hint(OUT_ROWS);
	for (int i = 0; i < P->k; i++) {
		const struct phost *p = &P->p[i];

		out_begin_object(NULL, OUT_PLAIN);
		out_string("host", p->label);
		emit_pv(p, "cpus");
		emit_pv(p, "cpufreq_governor");
		emit_pv(p, "microcode");
		emit_pv(p, "clocksource");
		emit_pv(p, "backend");
		emit_pv(p, "time");
		out_string("hostname", str_of(p->pv, "host", NULL));
		if (!P->show_hostname)
			out_hint(OUT_HIDDEN);
		out_string("file", p->what);
		out_hint(OUT_HIDDEN);
		out_end();
	}
	out_end();
}

static void emit_pooled(const struct pooled *P)
{
	const struct pool_result *r = &P->r;
	const bool lib = P->p[0].lower_is_better;
	const double one = 1;
	bool predict = P->k >= POOL_PREDICT_MIN_K;

	out_begin_object("pooled", OUT_PLAIN);
	out_u64("hosts", (uint64_t)P->k);
	out_string("method", "random effects: DerSimonian-Laird tau^2, HKSJ "
		   "t(k-1) interval, at least the normal one on the hosts' "
		   "own Welch variances");
	out_real("ratio", r->mean.ratio, SIG);
	emit_range("ci95", r->mean.ratio_lo, r->mean.ratio_hi,
		   report_range_sig(r->mean.ratio_lo, r->mean.ratio_hi, SIG,
				    &one, 1));
	out_real("ci95_coverage", pool_mean_coverage((size_t)P->k), 2);
	out_real_hidden("log_ratio", r->mean.est, SIG);
	emit_range("log_ci95", r->mean.lo, r->mean.hi, SIG);
	out_hint(OUT_HIDDEN);
	out_real_hidden("se", r->se, SIG);
	out_real("tau", r->tau, 3);
	out_real("tau_factor", r->tau_factor, SIG);
	out_real_hidden("tau2", r->tau2, 3);
	out_real("i2", r->i2, 3);
	out_real("q", r->q, SIG);
	out_u64("q_df", (uint64_t)P->k - 1);
	out_begin_object("hosts_differ", OUT_PLAIN);
	out_u64("legacy_worse", lib ? r->differ_above : r->differ_below);
	out_u64("legacy_better", lib ? r->differ_below : r->differ_above);
	out_u64("neither", (uint64_t)P->k - r->differ_above - r->differ_below);
	out_string("method", "each host's own Welch t, Holm over the hosts");
	out_end();
	emit_range("prediction_pi95", predict ? r->predict.ratio_lo : NAN,
		   predict ? r->predict.ratio_hi : NAN, SIG);
	out_real("prediction_coverage", pool_predict_coverage((size_t)P->k), 2);
	out_u64("prediction_min_hosts", POOL_PREDICT_MIN_K);
	out_begin_object("sign_test", OUT_PLAIN);
	out_u64("above_1", r->above);
	out_u64("below_1", r->below);
	out_u64("ties", r->ties);
	out_real("p", r->sign_p, SIG);
	out_end();
	if (P->k >= 4) {
		out_real("outlier_level", r->loo_level, SIG);
		out_begin_array("outliers");
		for (int i = 0; i < P->k; i++)
			if (P->h[i].outlier)
				out_string(NULL, P->p[i].label);
		out_end();
		out_hint(OUT_LINE);
		/* What the pool says without each flagged host. */
		out_begin_array("without");
		out_hint(OUT_ROWS);
		for (int i = 0; i < P->k; i++) {
			const struct pool_interval *w = &P->h[i].without;

			if (!P->h[i].outlier)
				continue;
			out_begin_object(NULL, OUT_PLAIN);
			out_string("host", P->p[i].label);
			out_real("ratio", w->ratio, SIG);
			emit_range("ci95", w->ratio_lo, w->ratio_hi,
				   report_range_sig(w->ratio_lo, w->ratio_hi,
						    SIG, &one, 1));
			out_end();
		}
		out_end();
	} else {
		out_null("outlier_level");
		out_null("outliers");
		out_null("without");
	}
	out_string("verdict", P->verdict);
	out_end();
}

static void emit(const struct pooled *P)
{
	const struct phost *a = &P->p[0];

	out_string("bench", a->bench);
	out_string("path", a->path);
	out_string("metric", a->metric);
	out_string("unit", a->unit);
	out_bool("lower_is_better", a->lower_is_better);
	out_string("schema", POOL_SCHEMA);
	out_hint(OUT_HIDDEN);
	out_string("results_schema", a->schema);
	out_hint(OUT_HIDDEN);
	emit_hosts(P);
	emit_machines(P);
	emit_pooled(P);
}

static const char *pv_or_dash(const struct phost *p, const char *key,
			      char *buf, size_t len)
{
	json_t *v = json_object_get(p->pv, key);

	if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	else
		snprintf(buf, len, "%s", json_string_value(v) ?: "-");
	return buf;
}

static int write_markdown(FILE *f, const void *ctx)
{
	static const char *const machine[] = {
		"kernel", "cpu_model", "cpus", "microcode", "cpufreq_governor",
	};
	const struct pooled *P = ctx;
	const struct pool_result *r = &P->r;
	const struct phost *a = &P->p[0];
	char x[4][32], ci[128], p[32];

	fputc('`', f);
	md_cell(f, a->bench);
	fprintf(f, "`, path %s; %s (%s, %s is better): %d hosts pooled\n\n",
		a->path, a->metric, a->unit,
		a->lower_is_better ? "lower" : "higher", P->k);
	fputs("| host | kernel | CPU | CPUs | microcode | governor | runs "
	      "legacy/optimized | legacy/optimized (95% CI) | p | differs "
	      "(Holm) | weight | outlier |\n"
	      "|---|---|---|---:|---|---|---:|---:|---:|---|---:|---|\n", f);
	for (int i = 0; i < P->k; i++) {
		const struct phost *h = &P->p[i];

		fputs("| ", f);
		md_cell(f, h->label);
		for (size_t m = 0; m < sizeof(machine) / sizeof(machine[0]); m++) {
			fputs(" | ", f);
			md_cell(f, pv_or_dash(h, machine[m], ci, sizeof(ci)));
		}
		st_fmt_p(p, sizeof(p), own(h, "mann_whitney", "p"));
		fprintf(f, " | %.0f/%.0f | %s | %s | %s | %s | %s |\n",
			own(h, "legacy", "n"), own(h, "optimized", "n"),
			report_fmt_ratio_ci(ci, sizeof(ci),
					    own(h, "ratio", "value"),
					    own_ci(h, 0), own_ci(h, 1)),
			p + (p[1] == '=' ? 2 : 1),
			P->h[i].differs ? "yes" : "no",
			out_fmt_sig(x[0], sizeof(x[0]), P->h[i].weight, 2),
			P->k < 4 ? "-" : P->h[i].outlier ? "**yes**" : "no");
	}
	st_fmt_p(p, sizeof(p), r->sign_p);
	fprintf(f, "\nPooled legacy/optimized %s (random effects, HKSJ; "
		"simulated coverage ≥ %.2f); between hosts tau %s (a factor "
		"%s), I² %s%%, Q %s on %d df; ",
		report_fmt_ratio_ci(ci, sizeof(ci), r->mean.ratio,
				    r->mean.ratio_lo, r->mean.ratio_hi),
		pool_mean_coverage((size_t)P->k),
		out_fmt_sig(x[0], sizeof(x[0]), r->tau, 3),
		out_fmt_sig(x[1], sizeof(x[1]), r->tau_factor, 3),
		out_fmt_sig(x[2], sizeof(x[2]), 100 * r->i2, 2),
		out_fmt_sig(x[3], sizeof(x[3]), r->q, 3), P->k - 1);
	if (P->k >= POOL_PREDICT_MIN_K)
		fprintf(f, "a new host's ratio: 95%% prediction interval "
			"%s–%s (simulated coverage ≥ %.2f); ",
			out_fmt_sig(x[0], sizeof(x[0]), r->predict.ratio_lo, 3),
			out_fmt_sig(x[1], sizeof(x[1]), r->predict.ratio_hi, 3),
			pool_predict_coverage((size_t)P->k));
	else
		fprintf(f, "no prediction interval (it needs %d hosts); ",
			POOL_PREDICT_MIN_K);
	fprintf(f, "sign test %zu above 1, %zu below, %s.\n\n**", r->above,
		r->below, p);
	md_cell(f, P->verdict);
	fputs("**\n", f);
	return 0;
}

static void free_pooled(struct pooled *P)
{
	for (int i = 0; P->p && i < P->k; i++) {
		json_decref(P->p[i].j);
		json_decref(P->p[i].report);
		free(P->p[i].runs[0]);
		free(P->p[i].runs[1]);
	}
	free(P->p);
	free(P->h);
}

int bench_pool(const struct bench_opts *o)
{
	struct pooled P = { .k = o->nfrom };
	int ret = 0, err;

	P.p = calloc((size_t)P.k, sizeof(*P.p));
	P.h = calloc((size_t)P.k, sizeof(*P.h));
	if (!P.p || !P.h) {
		abpath_error("out of memory");
		ret = 1;
	}
	for (int i = 0; !ret && i < P.k; i++) {
		ret = load_host(&P.p[i], o->from[i], &P.h[i]);
		if (ret == 2 && !i) {
			ret = bench_factorial_pool(o, P.p[0].j, P.p[0].what);
			free_pooled(&P);
			return ret;
		}
		if (ret == 2) {
			abpath_error("%s is a factorial's result and %s is not: "
				     "--pool pools one kind of result",
				     P.p[i].what, P.p[0].what);
			ret = 1;
		}
	}
	if (!ret)
		ret = check_hosts(&P);
	if (!ret) {
		err = pool_combine(P.h, (size_t)P.k, POOL_LEVEL,
				   POOL_SCALE_DEFAULT, &P.r);
		if (err) {
			abpath_error("pooling: %s", strerror(-err));
			ret = 1;
		}
	}
	if (!ret) {
		P.show_hostname = hostnames_useful(&P);
		verdict(&P);
		out_init(o->json);
		emit(&P);
		if (out_flush(stdout)) {
			abpath_error("writing to standard output: %s",
				     strerror(errno));
			ret = 1;
		}
	}
	if (!ret && o->export_md)
		ret = export_to(o->export_md, write_markdown, &P);
	free_pooled(&P);
	return ret;
}
