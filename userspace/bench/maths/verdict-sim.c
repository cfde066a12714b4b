// SPDX-License-Identifier: GPL-2.0
/*
 * Every verdict word 'abpath bench' prints, its error rate where there is
 * no effect and its power where there is one, by simulation through the
 * code that decides it: tests/tools/verdict-table runs this, and
 * docs/benchmarks.md keeps its table (#54).
 *
 *  - the single bench (report.c's verdict(): a difference is claimed when
 *    the Welch interval and the Mann-Whitney test both see it);
 *  - the adaptive rule (sequential.c's looks, as run.c makes them);
 *  - the pool (pool.c): per host (Holm), the mean over hosts, a new host
 *    (the prediction interval) and the outlier flag (Bonferroni).
 *
 * The fleets are pool-coverage.c's: host i's true log ratio mu + tau z_i,
 * its noise (sd of a run's log) log-uniform in 0.02-0.10 and shared by
 * its modes, 4 to 8 runs per mode; tau and effects in units of a typical
 * host's SE, 0.0258 on the log scale.
 *
 * Each row: the word, the cell, the rate, its binomial SE, the bound the
 * rate is held to (nominal + 2 SE, or at least for a power or a
 * coverage), and whether it holds.  Exit 1 when a row fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "sequential.h"
#include "simopts.h"
#include "statistics.h"

#define MAX_HOSTS	64
#define MAX_RUNS	8
#define REF_RUNS	6
#define NOISE_LO	0.02
#define NOISE_HI	0.10
#define ALPHA		0.05

static size_t reps = 20000;
/* --max-hosts: fleets of more hosts are skipped (the host suite's quick run). */
static size_t max_hosts = MAX_HOSTS;
static unsigned long long seed = 54;
static int failed, rows;
/* --alpha-bound: every error rate held to this instead (a check that rows can fail). */
static double alpha_bound = -1;
/* "--markdown": rows of docs/benchmarks.md's table, else plain text. */
static bool markdown;

static double ref_se(void)
{
	return sqrt(2 * NOISE_LO * NOISE_HI / REF_RUNS);
}

static double uniform(struct st_rng *r)
{
	return (double)(st_rng_next(r) >> 11) * 0x1p-53;
}

/* A stream per row: one row reruns alone the same. */
static void seed_row(struct st_rng *r, unsigned id)
{
	st_rng_seed(r, seed * 100000 + id);
}

/*
 * One row.  rate out of n; kind '<': held to at most bound + 2 SE (an
 * error rate), '>': at least bound - 2 SE (a coverage), '=': none (a
 * power, stated).
 */
static void row(const char *word, const char *cell, size_t hits, size_t n,
		char kind, double bound)
{
	double rate = (double)hits / (double)n;
	double se;
	bool ok;
	char limit[48];

	if (kind == '<' && alpha_bound >= 0)
		bound = alpha_bound;
	se = sqrt(fmax(rate * (1 - rate), bound * (1 - bound)) / (double)n);
	ok = kind == '<' ? rate <= bound + 2 * se :
	     kind == '>' ? rate >= bound - 2 * se : true;

	if (kind == '<')
		snprintf(limit, sizeof(limit), "≤ %.3f + 2 SE = %.4f", bound,
			 bound + 2 * se);
	else if (kind == '>')
		snprintf(limit, sizeof(limit), "≥ %.3f − 2 SE = %.4f", bound,
			 bound - 2 * se);
	else
		snprintf(limit, sizeof(limit), "power (stated)");
	rows++;
	failed += !ok;
	if (markdown)
		printf("| %s | %s | %.4f | %.4f | %s | %s |\n", word, cell, rate,
		       se, limit, ok ? "ok" : "**FAIL**");
	else
		printf("%-28s %-52s %.4f  SE %.4f  %s%s\n", word, cell, rate,
		       se, limit, ok ? "" : "  <- FAIL");
	fflush(stdout);
}

/* ---- fleets ------------------------------------------------------------ */

static void runs(struct st_rng *rng, double *x, size_t n, double mean,
		 double sd)
{
	for (size_t i = 0; i < n; i++)
		x[i] = exp(mean + sd * st_rng_normal(rng));
}

/*
 * One fleet of k hosts pooled: host i's true log ratio theta[i]
 * (mu + tau z_i, plus shift for host 0).  false if pool.c refused it.
 */
static bool fleet(struct st_rng *rng, size_t k, double mu, double tau,
		  double shift, struct pool_host *h, double *theta,
		  struct pool_result *r)
{
	double leg[MAX_RUNS], opt[MAX_RUNS], sd;
	size_t nl, no;

	for (size_t i = 0; i < k; i++) {
		theta[i] = mu + tau * st_rng_normal(rng) + (i ? 0 : shift);
		sd = NOISE_LO * pow(NOISE_HI / NOISE_LO, uniform(rng));
		nl = 4 + st_rng_below(rng, MAX_RUNS - 3);
		no = 4 + st_rng_below(rng, MAX_RUNS - 3);
		runs(rng, leg, nl, theta[i], sd);
		runs(rng, opt, no, 0, sd);
		if (pool_host_from_samples(leg, nl, opt, no, &h[i]))
			return false;
	}
	return !pool_combine(h, k, 1 - ALPHA, POOL_SCALE_DEFAULT, r);
}

static int refused(void)
{
	fprintf(stderr, "verdict-sim: pool.c refused a fleet\n");
	return 2;
}

/* Whether a pooled fleet of k hosts says the row's finding. */
typedef bool (*finding)(const struct pool_host *h,
			const struct pool_result *r, size_t k);

/*
 * One row's fleets: reps fleets of k hosts drawn as fleet() draws them
 * from row id's stream, counted where said() holds, into *hits; false
 * if pool.c refused one.
 */
static bool count_fleets(unsigned id, size_t k, double mu, double tau,
			 double shift, finding said, size_t *hits)
{
	struct pool_host h[MAX_HOSTS];
	double theta[MAX_HOSTS];
	struct pool_result r;
	struct st_rng rng;

	*hits = 0;
	seed_row(&rng, id);
	for (size_t s = 0; s < reps; s++) {
		if (!fleet(&rng, k, mu, tau, shift, h, theta, &r))
			return false;
		*hits += said(h, &r, k);
	}
	return true;
}

static bool any_outlier(const struct pool_host *h,
			const struct pool_result *r, size_t k)
{
	(void)h;
	(void)k;
	return r->outliers > 0;
}

static bool first_outlier(const struct pool_host *h,
			  const struct pool_result *r, size_t k)
{
	(void)r;
	(void)k;
	return h[0].outlier;
}

static bool mean_above(const struct pool_host *h,
		       const struct pool_result *r, size_t k)
{
	(void)h;
	(void)k;
	return r->mean.lo > 0;
}

static bool any_differs(const struct pool_host *h,
			const struct pool_result *r, size_t k)
{
	(void)h;
	(void)k;
	return r->differ_above + r->differ_below > 0;
}

static bool all_above(const struct pool_host *h,
		      const struct pool_result *r, size_t k)
{
	(void)h;
	return r->differ_above == k;
}

static const size_t flag_hosts[] = { 4, 5, 6, 8, 10, 20, 64 };
static const double flag_taus[] = { 0, 1, 2 };

/*
 * The outlier flag: the share of fleets with no outlier where any host
 * is flagged, and the power to flag one host 3 SE away (tau 0 and 1 SE).
 */
static int flags(void)
{
	char cell[96];
	unsigned id = 100;
	size_t n;

	for (size_t a = 0; a < sizeof(flag_hosts) / sizeof(*flag_hosts); a++) {
		size_t k = flag_hosts[a];

		if (k > max_hosts)
			continue;
		for (size_t b = 0; b < sizeof(flag_taus) / sizeof(*flag_taus);
		     b++) {
			if (!count_fleets(id++, k, 0, flag_taus[b] * ref_se(),
					  0, any_outlier, &n))
				return refused();
			snprintf(cell, sizeof(cell), "no outlier, %zu hosts, "
				 "τ %g SE", k, flag_taus[b]);
			row("unlike the others", cell, n, reps, '<', ALPHA);
		}
		for (size_t b = 0; b < 2; b++) {
			if (!count_fleets(id++, k, 0, flag_taus[b] * ref_se(),
					  3 * ref_se(), first_outlier, &n))
				return refused();
			snprintf(cell, sizeof(cell), "one host 3 SE away, %zu "
				 "hosts, τ %g SE", k, flag_taus[b]);
			row("unlike the others", cell, n, reps, '=', 0);
		}
	}
	return 0;
}

static const size_t pool_hosts[] = { 2, 3, 4, 5, 6, 8, 10, 20, 64 };
static const double pool_taus[] = { 0, 0.5, 1, 2 };

/*
 * The mean and a new host, on the same fleets with no effect (mu = 0):
 * how often the mean's interval excludes 1, the word "legacy slower (or
 * faster) over the hosts" said of no effect, against 1 - the coverage
 * pool_mean_coverage() states; and how often the prediction interval
 * covers a new host's true log ratio, against what
 * pool_predict_coverage() states (or, below POOL_PREDICT_MIN_K, where no
 * interval is shown, for the record).  Then the mean's power at 3 SE.
 */
static int pool(void)
{
	struct pool_host h[MAX_HOSTS];
	double theta[MAX_HOSTS], lowest[2], *width;
	struct pool_result r;
	struct st_rng rng;
	char cell[128];
	unsigned id = 200;

	width = malloc(reps * sizeof(*width));
	if (!width)
		return 2;
	for (size_t a = 0; a < sizeof(pool_hosts) / sizeof(*pool_hosts); a++) {
		size_t k = pool_hosts[a];
		double stated = pool_mean_coverage(k);
		double pi_stated = pool_predict_coverage(k);

		if (k > max_hosts)
			continue;
		lowest[0] = lowest[1] = 1;
		for (size_t b = 0; b < sizeof(pool_taus) / sizeof(*pool_taus);
		     b++) {
			size_t out = 0, hit = 0;
			double tau = pool_taus[b] * ref_se(), fresh;

			seed_row(&rng, id++);
			for (size_t s = 0; s < reps; s++) {
				if (!fleet(&rng, k, 0, tau, 0, h, theta, &r))
					return refused();
				out += r.mean.lo > 0 || r.mean.hi < 0;
				fresh = tau * st_rng_normal(&rng);
				hit += r.predict.lo <= fresh &&
				       fresh <= r.predict.hi;
				width[s] = exp((r.predict.hi - r.predict.lo) / 2);
			}
			lowest[0] = fmin(lowest[0], 1 - (double)out / (double)reps);
			lowest[1] = fmin(lowest[1], (double)hit / (double)reps);
			snprintf(cell, sizeof(cell), "no effect, %zu hosts, τ %g "
				 "SE", k, pool_taus[b]);
			row("mean over hosts: legacy slower/faster", cell, out,
			    reps, '<', 1 - stated);
			if (k < 3)
				continue;
			st_sort(width, reps);
			snprintf(cell, sizeof(cell), "covers a new host, %zu "
				 "hosts, τ %g SE (median ×÷%.3f)%s", k,
				 pool_taus[b], width[reps / 2],
				 isnan(pi_stated) ? ", not shown" : "");
			row("a new host: prediction interval", cell, hit, reps,
			    isnan(pi_stated) ? '=' : '>',
			    isnan(pi_stated) ? 0 : pi_stated);
		}
		if (!markdown)
			printf("# %zu hosts: lowest coverage of the mean %.4f "
			       "(stated %.2f), of a new host %.4f (stated %.2f)\n",
			       k, lowest[0], stated, lowest[1], pi_stated);
	}
	for (size_t a = 0; a < sizeof(pool_hosts) / sizeof(*pool_hosts); a++) {
		size_t k = pool_hosts[a], hit;

		if (k != 3 && k != 5 && k != 10)
			continue;
		if (!count_fleets(id++, k, 3 * ref_se(), ref_se(), 0,
				  mean_above, &hit))
			return refused();
		snprintf(cell, sizeof(cell), "mean 3 SE, %zu hosts, τ 1 SE", k);
		row("mean over hosts: legacy slower/faster", cell, hit, reps,
		    '=', 0);
	}
	free(width);
	return 0;
}

static const size_t holm_hosts[] = { 2, 3, 5, 10, 20, 64 };

/*
 * Per host: the share of fleets with no effect on any host (mu = tau =
 * 0) where some host is said to differ (Holm), and the power of "on each
 * of the k hosts" where every host's true ratio is 1.2 (log 0.18, 7
 * typical SEs).
 */
static int hosts(void)
{
	char cell[128];
	unsigned id = 300;

	for (size_t a = 0; a < sizeof(holm_hosts) / sizeof(*holm_hosts); a++) {
		size_t k = holm_hosts[a], any, all;

		if (k > max_hosts)
			continue;
		if (!count_fleets(id++, k, 0, 0, 0, any_differs, &any))
			return refused();
		snprintf(cell, sizeof(cell), "no effect on any of %zu hosts", k);
		row("per host: legacy slower/faster on M of k", cell, any, reps,
		    '<', ALPHA);
		if (!count_fleets(id++, k, log(1.2), 0, 0, all_above, &all))
			return refused();
		snprintf(cell, sizeof(cell), "1.2× on each of %zu hosts", k);
		row("per host: on each of the k hosts", cell, all, reps, '=', 0);
	}
	return 0;
}

/* ---- the single bench and the adaptive rule ------------------------- */

/*
 * report.c's verdict(): a difference is claimed when the Welch interval
 * excludes 1 and the Mann-Whitney p is below 0.05, and only when the run
 * counts can reach it.
 */
static bool single_claims(const double *x, size_t nx, const double *y,
			  size_t ny)
{
	struct st_ratio q;
	struct st_mw mw;

	if (st_mann_whitney(x, nx, y, ny, &mw) ||
	    st_ratio_welch(x, nx, y, ny, 0.95, &q) || !(mw.p_min < 0.05))
		return false;
	return mw.p < 0.05 && (q.lo > 1 || q.hi < 1);
}

static int single(void)
{
	static const size_t runs_per_mode[] = { 4, 6, 10 };
	double x[16], y[16], sigma = sqrt(log1p(0.1 * 0.1));
	struct st_rng rng;
	char cell[128];
	unsigned id = 400;

	for (size_t a = 0; a < 3; a++) {
		size_t n = runs_per_mode[a];

		for (int eff = 0; eff < 2; eff++) {
			double ratio = eff ? 1.2 : 1;
			size_t claims = 0;

			seed_row(&rng, id++);
			for (size_t s = 0; s < reps; s++) {
				runs(&rng, x, n, log(ratio), sigma);
				runs(&rng, y, n, 0, sigma);
				claims += single_claims(x, n, y, n);
			}
			snprintf(cell, sizeof(cell), "%s, %zu runs per mode, "
				 "CV 10%%", eff ? "1.2×" : "A/A", n);
			row("legacy is N× slower/faster", cell, claims, reps,
			    eff ? '=' : '<', ALPHA);
		}
	}
	return 0;
}

/*
 * One adaptive bench by the default rule, the looks as run.c makes them:
 * its stop, and the ratio it printed (NAN without one).
 */
static enum seq_stop adaptive_bench(struct st_rng *rng, const struct seq_rule *r,
				    double ratio, double sigma, double *printed,
				    int *at)
{
	double x[64], y[64];
	struct seq_look l = { 0 };

	for (int i = 0; i < r->cap; i++) {
		x[i] = ratio * exp(sigma * st_rng_normal(rng));
		y[i] = exp(sigma * st_rng_normal(rng));
	}
	*printed = NAN;
	for (int n = 2; n <= r->cap; n += 2) {
		if (!seq_is_look(r, n))
			continue;
		if (seq_look(r, n, x, (size_t)n, y, (size_t)n, &l))
			return SEQ_GO_ON;
		if (l.stop != SEQ_GO_ON) {
			*printed = l.value;
			*at = n;
			return l.stop;
		}
	}
	return SEQ_GO_ON;
}

/*
 * The headline after an early stop: over true ratios 1.05-1.5 and CVs
 * 2-30%, the mean of printed / true among "different" stops, per runs
 * per mode at the stop; the largest over the grid is what adaptive.c's
 * seq_stop_bias() states, and the row fails if the simulation finds
 * more than it states (by 2 SE).
 */
static int bias(const struct seq_rule *rule, unsigned id)
{
	static const double ratios[] = { 1.05, 1.1, 1.2, 1.5 };
	static const double cvs[] = { 0.02, 0.10, 0.30 };
	double sum[33], sum2[33], worst[33], worst_se[33], v;
	size_t n[33];
	struct st_rng rng;
	char cell[128];
	int at;

	for (int i = 0; i < 33; i++)
		worst[i] = worst_se[i] = 0;
	for (size_t a = 0; a < 4; a++) {
		for (size_t c = 0; c < 3; c++) {
			double sigma = sqrt(log1p(cvs[c] * cvs[c]));

			memset(sum, 0, sizeof(sum));
			memset(sum2, 0, sizeof(sum2));
			memset(n, 0, sizeof(n));
			seed_row(&rng, id++);
			for (size_t s = 0; s < reps; s++) {
				if (adaptive_bench(&rng, rule, ratios[a], sigma, &v,
						   &at) != SEQ_DIFFERENT)
					continue;
				sum[at] += v / ratios[a];
				sum2[at] += v / ratios[a] * v / ratios[a];
				n[at]++;
			}
			for (int r = 2; r <= rule->cap; r += 2) {
				double m, se;

				/* A stop seen fewer than 30 times says little. */
				if (n[r] < 30)
					continue;
				m = sum[r] / (double)n[r];
				se = sqrt(fmax(0, sum2[r] / (double)n[r] - m * m) /
					  (double)n[r]);
				if (m > worst[r]) {
					worst[r] = m;
					worst_se[r] = se;
				}
			}
		}
	}
	for (int r = 2; r <= rule->cap; r += 2) {
		double stated = seq_stop_bias(rule, r);
		bool ok;

		if (!worst[r])
			continue;
		ok = !isnan(stated) && worst[r] - 1 <= stated + 2 * worst_se[r];
		snprintf(cell, sizeof(cell), "stop at %d runs per mode: worst "
			 "mean printed/true %.4f (SE %.4f), stated +%.0f%%", r,
			 worst[r], worst_se[r], 100 * stated);
		rows++;
		failed += !ok;
		if (markdown)
			printf("| different: the ratio printed | %s | | | "
			       "stated ≥ simulated − 2 SE | %s |\n", cell,
			       ok ? "ok" : "**FAIL**");
		else
			printf("%-28s %s%s\n", "different: the ratio printed",
			       cell, ok ? "" : "  <- FAIL");
	}
	return 0;
}


static int adaptive(void)
{
	static const struct {
		const char *word;
		double cv, ratio;
		enum seq_stop stop;
		char kind;
	} cells[] = {
		{ "different: the interval excludes 1", 0.10, 1, SEQ_DIFFERENT, '<' },
		{ "different: the interval excludes 1", 0.02, 1, SEQ_DIFFERENT, '<' },
		{ "different: the interval excludes 1", 0.10, 1.2, SEQ_DIFFERENT, '=' },
		{ "equivalent within ±2%", 0.02, 1.02, SEQ_EQUIVALENT, '<' },
		{ "equivalent within ±2%", 0.02, 1.0 / 1.02, SEQ_EQUIVALENT, '<' },
		{ "equivalent within ±2%", 0.02, 1, SEQ_EQUIVALENT, '=' },
	};
	struct seq_rule rule;
	struct st_rng rng;
	char cell[128];
	unsigned id = 500;

	seq_rule_default(&rule, SEQ_DEFAULT_CAP);
	for (size_t c = 0; c < sizeof(cells) / sizeof(*cells); c++) {
		double sigma = sqrt(log1p(cells[c].cv * cells[c].cv)), v;
		size_t hits = 0;
		int at;

		seed_row(&rng, id++);
		for (size_t s = 0; s < reps; s++)
			hits += adaptive_bench(&rng, &rule, cells[c].ratio, sigma,
					       &v, &at) == cells[c].stop;
		snprintf(cell, sizeof(cell), "--runs auto, true %.4g, CV %g%%",
			 cells[c].ratio, 100 * cells[c].cv);
		row(cells[c].word, cell, hits, reps, cells[c].kind, ALPHA);
	}
	return bias(&rule, id);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: verdict-sim [--reps N] [--seed S] [--max-hosts K] [--markdown]\n"
		   "                   SECTION...\n"
		   "SECTION: single, adaptive, hosts, pool, flags, all.  Each row: a verdict word, its cell,\n"
		   "the rate, its SE and the bound it is held to.  Exit 1 if a row\n"
		   "fails.  --max-hosts: leave out fleets of more hosts; --alpha-bound B:\n"
		   "hold every error rate to B instead of its own bound.  Defaults:\n"
		   "20000 replicates a row, seed 54, every fleet (2 to 64 hosts).\n");
}

int main(int argc, char **argv)
{
	static const struct sim_opt opts[] = {
		{ "reps", SIM_SIZE, &reps, NULL },
		{ "seed", SIM_SEED, &seed, NULL },
		{ "markdown", SIM_FLAG, &markdown, NULL },
		{ "max-hosts", SIM_SIZE, &max_hosts, NULL },
		{ "alpha-bound", SIM_DOUBLE, &alpha_bound, NULL },
	};
	int rc = sim_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			  usage), err = 0;

	if (rc >= 0)
		return rc;
	if (optind == argc || reps < 100 || max_hosts > MAX_HOSTS) {
		usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc && !err; i++) {
		bool all = !strcmp(argv[i], "all");

		if (all || !strcmp(argv[i], "single"))
			err = single();
		if (!err && (all || !strcmp(argv[i], "adaptive")))
			err = adaptive();
		if (!err && (all || !strcmp(argv[i], "hosts")))
			err = hosts();
		if (!err && (all || !strcmp(argv[i], "pool")))
			err = pool();
		if (!err && (all || !strcmp(argv[i], "flags")))
			err = flags();
	}
	if (err)
		return err;
	if (!markdown)
		printf("%s: %d of %d rows fail\n", failed ? "FAIL" : "PASS",
		       failed, rows);
	return failed ? 1 : 0;
}
