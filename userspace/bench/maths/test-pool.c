// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for pool.c, run by 'make -C userspace test-pool'.  Prints TAP
 * and exits 1 if any check fails.  The reference values are worked by
 * hand (two or three hosts with round numbers), from statistics.c's own
 * Welch interval, or from the binomial distribution; the comparison with
 * an independent implementation (statsmodels) is tests/tools/pool-check.py.
 *
 *   test-pool FIXTURE...
 * instead prints pool.c's results for each fixture (one host a line:
 * NAME legacy RUNS... optimized RUNS...) as one JSON object a line, every
 * HKSJ scale, for pool-check.py and the host test.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "statistics.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void hosts_yv(struct pool_host *h, const double *y, const double *v,
		     size_t k)
{
	for (size_t i = 0; i < k; i++)
		h[i] = (struct pool_host){ .y = y[i], .v = v[i] };
}

/* The bench's own Welch ratio gives y, and v is its squared SE. */
static void test_host(void)
{
	static const double x[] = { 2.1, 2.5, 1.9, 2.3, 2.2, 2.0 };
	static const double y[] = { 1.02, 0.97, 1.10, 0.99 };
	static const double same[] = { 1.5, 1.5, 1.5 }, bad[] = { 1, 0, 2 };
	struct pool_host h;
	struct pool_result pr;
	struct st_ratio r;
	double t;

	check(pool_host_from_samples(x, N(x), y, N(y), &h) == 0,
	      "host from 6 legacy and 4 optimized runs");
	st_ratio_welch(x, N(x), y, N(y), 0.95, &r);
	near("y is the log of the bench's ratio", h.y, log(r.value), 1e-14);
	/* The Welch half-width on the logs is t(df) * sqrt(v). */
	t = st_t_quantile(0.975, r.df);
	near("v is the square of the Welch interval's SE", h.v,
	     pow((log(r.hi) - log(r.lo)) / (2 * t), 2), 1e-10);
	near("df is the Welch interval's", h.df, r.df, 1e-12);
	check(pool_combine(&h, 1, 0.95, POOL_HKSJ_WELCH_FLOOR, &pr) == 0,
	      "one host pools");
	near("v_t is v in the units of t(df)", h.v_t,
	     h.v * pow(t / 1.959963984540054, 2), 1e-12);
	check(pool_host_from_samples(x, 1, y, N(y), &h) == -EINVAL,
	      "one legacy run is refused");
	check(pool_host_from_samples(x, N(x), bad, N(bad), &h) == -EDOM,
	      "a run of 0 is refused");
	check(pool_host_from_samples(same, N(same), same, N(same), &h) == -EDOM,
	      "no variance at all is refused");
}

/*
 * Two hosts, y = 0.1 and 0.3, v = 0.01 each: W = 200, Q = 2, C = 100,
 * tau^2 = (2 - 1) / 100 = 0.01, RE weights 50 each, mu = 0.2,
 * q = (50 * 0.01 + 50 * 0.01) / 1 = 1, se^2 = 1 / 100, I^2 = 1/2.
 */
static void test_two_hosts(void)
{
	static const double y[] = { 0.1, 0.3 }, v[] = { 0.01, 0.01 };
	struct pool_host h[2];
	struct pool_result r;
	double t1 = st_t_quantile(0.975, 1);

	hosts_yv(h, y, v, 2);
	check(pool_combine(h, 2, 0.95, POOL_HKSJ, &r) == 0, "pool 2 hosts");
	near("2 hosts: Q", r.q, 2, 1e-14);
	near("2 hosts: tau^2", r.tau2, 0.01, 1e-14);
	near("2 hosts: mu", r.mean.est, 0.2, 1e-14);
	near("2 hosts: HKSJ q", r.hksj_q, 1, 1e-14);
	near("2 hosts: se", r.se, 0.1, 1e-14);
	near("2 hosts: CI low, t(1)", r.mean.lo, 0.2 - t1 * 0.1, 1e-14);
	near("2 hosts: CI high, t(1)", r.mean.hi, 0.2 + t1 * 0.1, 1e-14);
	near("2 hosts: I^2", r.i2, 0.5, 1e-14);
	near("2 hosts: ratio", r.mean.ratio, exp(0.2), 1e-14);
	near("2 hosts: ratio CI high", r.mean.ratio_hi, exp(0.2 + t1 * 0.1),
	     1e-13);
	near("2 hosts: tau as a factor", r.tau_factor, exp(0.1), 1e-14);
	near("2 hosts: equal weights", h[0].weight, 0.5, 1e-14);
	check(isnan(r.predict.lo) && isnan(h[0].loo_lo) && !r.outliers,
	      "2 hosts: no prediction interval, no flags");
}

/*
 * Three hosts that agree: y = 0, 0.01, 0.02, v = 0.01: Q = 0.02 < 2, so
 * tau^2 = 0 and I^2 = 0; mu = 0.01, q = 0.01, W = 300.  The plain HKSJ
 * variance is q / W, the truncated one 1 / W, the DL floor (z / t(2))^2 / W.
 */
static void test_homogeneous(void)
{
	static const double y[] = { 0, 0.01, 0.02 }, v[] = { 0.01, 0.01, 0.01 };
	const double z = 1.959963984540054, t2 = st_t_quantile(0.975, 2);
	const double t1 = st_t_quantile(0.975, 1);
	struct pool_host h[3];
	struct pool_result r;

	hosts_yv(h, y, v, 3);
	check(pool_combine(h, 3, 0.95, POOL_HKSJ, &r) == 0, "pool 3 hosts");
	near("agreeing hosts: Q", r.q, 0.02, 1e-12);
	check(r.tau2 == 0 && r.i2 == 0, "agreeing hosts: tau^2 = %g and I^2 = %g are 0",
	      r.tau2, r.i2);
	near("agreeing hosts: mu", r.mean.est, 0.01, 1e-14);
	near("agreeing hosts: HKSJ q", r.hksj_q, 0.01, 1e-12);
	near("agreeing hosts: plain HKSJ se", r.se, sqrt(0.01 / 300), 1e-12);
	near("agreeing hosts: prediction interval, t(1)", r.predict.hi,
	     0.01 + t1 * sqrt(0.01 / 300), 1e-12);
	pool_combine(h, 3, 0.95, POOL_HKSJ_TRUNCATED, &r);
	near("agreeing hosts: truncated se", r.se, sqrt(1.0 / 300), 1e-12);
	near("agreeing hosts: truncated CI low", r.mean.lo,
	     0.01 - t2 * sqrt(1.0 / 300), 1e-12);
	pool_combine(h, 3, 0.95, POOL_HKSJ_DL_FLOOR, &r);
	near("agreeing hosts: DL floor is the normal interval", r.mean.hi,
	     0.01 + z * sqrt(1.0 / 300), 1e-12);
	pool_combine(h, 3, 0.95, POOL_HKSJ_WELCH_FLOOR, &r);
	near("agreeing hosts, v known (df 0): the Welch floor is the DL floor",
	     r.mean.hi, 0.01 + z * sqrt(1.0 / 300), 1e-12);
	/* With 5 df each, z gives way to t(5) in the floor, not in mu. */
	for (size_t i = 0; i < 3; i++)
		h[i].df = 5;
	pool_combine(h, 3, 0.95, POOL_HKSJ_WELCH_FLOOR, &r);
	near("agreeing hosts, 5 df each: the floor on t(5)", r.mean.hi,
	     0.01 + st_t_quantile(0.975, 5) * sqrt(1.0 / 300), 1e-12);
	near("agreeing hosts, 5 df each: mu stays", r.mean.est, 0.01, 1e-14);
	check(r.tau2 == 0, "agreeing hosts, 5 df each: tau^2 stays 0");
	h[1].df = -1;
	check(pool_combine(h, 3, 0.95, POOL_HKSJ_WELCH_FLOOR, &r) == -EDOM,
	      "a negative df is refused");
}

static void test_sign(void)
{
	static const double y[] = { 0.2, -0.1, 0, 0.3, 0.1 };
	static const double v[] = { 0.01, 0.01, 0.01, 0.01, 0.01 };
	struct pool_host h[5];
	struct pool_result r;

	near("sign test 10 of 10 above: 2 / 2^10", pool_sign_p(10, 0),
	     2.0 / 1024, 1e-13);
	near("sign test 7 against 3: 2 * 176 / 1024", pool_sign_p(7, 3),
	     352.0 / 1024, 1e-13);
	near("sign test 3 against 7 is the same", pool_sign_p(3, 7),
	     352.0 / 1024, 1e-13);
	near("sign test 5 against 5", pool_sign_p(5, 5), 1, 0);
	near("sign test with no host", pool_sign_p(0, 0), 1, 0);
	near("sign test 1 against 0", pool_sign_p(1, 0), 1, 0);
	hosts_yv(h, y, v, 5);
	pool_combine(h, 5, 0.95, POOL_SCALE_DEFAULT, &r);
	check(r.above == 3 && r.below == 1 && r.ties == 1,
	      "a ratio of exactly 1 is a tie, left out: %zu above, %zu below, %zu tie",
	      r.above, r.below, r.ties);
	near("sign test p of 3 against 1", r.sign_p, 10.0 / 16, 1e-13);
}

/* Properties any pooling must have, on hosts of unequal noise. */
static void test_invariance(void)
{
	static const double y[] = { 0.52, 0.61, 0.38, 0.70, 0.55, 0.47 };
	static const double v[] = { 0.004, 0.0009, 0.012, 0.002, 0.0004, 0.006 };
	struct pool_host h[6], g[6];
	struct pool_result r, s;

	hosts_yv(h, y, v, 6);
	pool_combine(h, 6, 0.95, POOL_SCALE_DEFAULT, &r);
	check(r.tau2 > 0, "unequal hosts: tau^2 = %g > 0", r.tau2);
	/* Legacy and optimized swapped: the ratio inverts. */
	for (size_t i = 0; i < 6; i++)
		g[i] = (struct pool_host){ .y = -y[i], .v = v[i] };
	pool_combine(g, 6, 0.95, POOL_SCALE_DEFAULT, &s);
	near("swapped modes: the mean negates", s.mean.est, -r.mean.est, 1e-13);
	near("swapped modes: the interval mirrors", s.mean.lo, -r.mean.hi, 1e-13);
	near("swapped modes: the ratio inverts", s.mean.ratio, 1 / r.mean.ratio,
	     1e-13);
	/* Hosts in another order. */
	for (size_t i = 0; i < 6; i++)
		g[i] = (struct pool_host){ .y = y[5 - i], .v = v[5 - i] };
	pool_combine(g, 6, 0.95, POOL_SCALE_DEFAULT, &s);
	near("hosts reversed: the same mean", s.mean.est, r.mean.est, 1e-13);
	near("hosts reversed: the same tau^2", s.tau2, r.tau2, 1e-12);
	near("hosts reversed: the same prediction", s.predict.lo, r.predict.lo,
	     1e-13);
	/* Every ratio times 2: the mean moves by log 2, the spread stays. */
	for (size_t i = 0; i < 6; i++)
		g[i] = (struct pool_host){ .y = y[i] + M_LN2, .v = v[i] };
	pool_combine(g, 6, 0.95, POOL_SCALE_DEFAULT, &s);
	near("ratios doubled: the mean ratio doubles", s.mean.ratio,
	     2 * r.mean.ratio, 1e-13);
	near("ratios doubled: the same se", s.se, r.se, 1e-12);
	near("ratios doubled: the same I^2", s.i2, r.i2, 1e-12);
	check(r.mean.lo < r.mean.est && r.mean.est < r.mean.hi &&
	      r.predict.lo < r.mean.lo && r.mean.hi < r.predict.hi,
	      "the prediction interval holds the interval of the mean");
	check(!r.outliers, "no host of these is an outlier");
}

/*
 * Leave one out: six hosts near 0.7 and one at 0.2.  Without it the other
 * six predict it near 0.7 +- a few of their spreads: it is flagged, they
 * are not.
 */
static void test_outlier(void)
{
	static const double y[] = { 0.69, 0.72, 0.70, 0.2, 0.68, 0.71, 0.73 };
	static const double v[] = { 4e-4, 3e-4, 5e-4, 4e-4, 2e-4, 6e-4, 3e-4 };
	struct pool_host h[7];
	struct pool_result r;
	size_t others = 0;

	hosts_yv(h, y, v, 7);
	pool_combine(h, 7, 0.95, POOL_SCALE_DEFAULT, &r);
	for (size_t i = 0; i < 7; i++)
		others += i != 3 && h[i].outlier;
	check(h[3].outlier && r.outliers == 1 && !others,
	      "the host at 0.2 among six at 0.7 is the one outlier (%zu flagged)",
	      r.outliers);
	check(h[3].loo_lo > 0.2 && h[0].loo_lo < 0.69 && 0.69 < h[0].loo_hi,
	      "its interval from the others excludes it: [%g, %g]",
	      h[3].loo_lo, h[3].loo_hi);
	hosts_yv(h, y, v, 3);
	pool_combine(h, 3, 0.95, POOL_SCALE_DEFAULT, &r);
	check(isnan(h[0].loo_lo) && !r.outliers, "3 hosts: no leave-one-out");
}

/*
 * Holm by hand: p = 0.01, 0.04, 0.03 over 3 hosts.  Sorted 0.01, 0.03,
 * 0.04: adjusted 3 * 0.01 = 0.03, max(0.03, 2 * 0.03) = 0.06, max(0.06,
 * 0.04) = 0.06; only the first is below 0.05.  The y that give these p
 * come from t(df) quantiles, so the test runs through pool_combine().
 */
static void test_holm(void)
{
	static const double p[] = { 0.01, 0.04, 0.03 };
	struct pool_host h[3];
	struct pool_result r;

	for (size_t i = 0; i < 3; i++)
		h[i] = (struct pool_host){
			.y = st_t_quantile(1 - p[i] / 2, 6) * 0.1, .v = 0.01,
			.df = 6,
		};
	pool_combine(h, 3, 0.95, POOL_SCALE_DEFAULT, &r);
	near("Holm: the host's own p", h[1].p, 0.04, 1e-9);
	near("Holm: smallest p times 3", h[0].p_holm, 0.03, 1e-9);
	near("Holm: second times 2", h[2].p_holm, 0.06, 1e-9);
	near("Holm: third, the running maximum", h[1].p_holm, 0.06, 1e-9);
	check(h[0].differs && !h[1].differs && !h[2].differs &&
	      r.differ_above == 1 && r.differ_below == 0,
	      "Holm: one host of three differs, though all three have p < 0.05");
}

/*
 * Equal runs in another order: y is 0 to the bit, a tie.  Summed in the
 * order given, these logs differ by 7e-18 in the mean (python3 finds it).
 */
static void test_ties(void)
{
	static const double a[] = { 0.63, 1.496, 0.662, 0.746, 1.76, 1.056 };
	static const double b[] = { 0.662, 1.496, 1.76, 0.746, 0.63, 1.056 };
	static const double c[] = { 0.662, 1.496, 1.76, 0.746, 0.63, 1.057 };
	struct pool_host h[2] = { { 0 } };
	struct pool_result r;
	int e0 = pool_host_from_samples(a, N(a), b, N(b), &h[0]);
	int e1 = pool_host_from_samples(b, N(b), a, N(a), &h[1]);

	check(!e0 && h[0].y == 0,
	      "legacy's runs are optimized's reordered: y = %g", h[0].y);
	check(!e1 && h[1].y == 0, "and the other way: y = %g", h[1].y);
	pool_combine(h, 2, 0.95, POOL_SCALE_DEFAULT, &r);
	check(r.ties == 2 && !r.above && !r.below && !r.differ_above &&
	      !r.differ_below, "both are ties: %zu", r.ties);
	check(pool_same_runs(a, N(a), b, N(b), b, N(b), a, N(a)),
	      "the same runs in another order are the same runs");
	check(!pool_same_runs(a, N(a), b, N(b), a, N(a), c, N(c)),
	      "one run apart is another bench");
	check(!pool_same_runs(a, N(a), b, N(b), a, N(a) - 1, b, N(b)),
	      "one run fewer is another bench");
}

/*
 * The pool without a host is the pool of the others: pooling them alone
 * gives the same mean and interval.
 */
static void test_without(void)
{
	static const double y[] = { 0.69, 0.72, 0.70, 0.2, 0.68, 0.71, 0.73 };
	static const double v[] = { 4e-4, 3e-4, 5e-4, 4e-4, 2e-4, 6e-4, 3e-4 };
	struct pool_host h[7], g[6];
	struct pool_result r, s;

	hosts_yv(h, y, v, 7);
	pool_combine(h, 7, 0.95, POOL_SCALE_DEFAULT, &r);
	for (size_t i = 0, j = 0; i < 7; i++)
		if (i != 3)
			g[j++] = (struct pool_host){ .y = y[i], .v = v[i] };
	pool_combine(g, 6, 0.95, POOL_SCALE_DEFAULT, &s);
	near("without host 4: the others' mean", h[3].without.est, s.mean.est,
	     1e-14);
	near("without host 4: the others' interval", h[3].without.lo,
	     s.mean.lo, 1e-13);
	near("without host 4: its high end", h[3].without.hi, s.mean.hi, 1e-13);
	near("the flags' level is Bonferroni's, 1 - 0.05 / 7", r.loo_level,
	     1 - 0.05 / 7, 1e-15);
	check(isnan(pool_predict_coverage(POOL_PREDICT_MIN_K - 1)) &&
	      pool_predict_coverage(POOL_PREDICT_MIN_K) > 0.8 &&
	      pool_predict_coverage(1000) > 0.8,
	      "a stated coverage from %d hosts on, none below",
	      POOL_PREDICT_MIN_K);
}

static void test_edges(void)
{
	static const double y[] = { 0.3, 0.5 }, v[] = { 0.01, 0.02 };
	struct pool_host h[2];
	struct pool_result r;

	hosts_yv(h, y, v, 2);
	check(pool_combine(h, 0, 0.95, POOL_HKSJ, &r) == -EINVAL, "no host is refused");
	check(pool_combine(h, 2, 1, POOL_HKSJ, &r) == -EINVAL, "level 1 is refused");
	check(pool_combine(h, 2, 0.95, POOL_SCALES, &r) == -EINVAL,
	      "an unknown scale is refused");
	check(pool_combine(h, 1, 0.95, POOL_HKSJ, &r) == 0 && r.mean.est == 0.3 &&
	      isnan(r.mean.lo) && isnan(r.se) && r.tau2 == 0,
	      "one host: its own ratio, no interval");
	h[1].v = 0;
	check(pool_combine(h, 2, 0.95, POOL_HKSJ, &r) == -EDOM, "v = 0 is refused");
	h[1].v = 0.02;
	h[0].y = NAN;
	check(pool_combine(h, 2, 0.95, POOL_HKSJ, &r) == -EDOM, "y = NaN is refused");
}

static int unit_tests(void)
{
	test_host();
	test_two_hosts();
	test_homogeneous();
	test_sign();
	test_invariance();
	test_outlier();
	test_holm();
	test_ties();
	test_without();
	test_edges();
	return tap_done();
}

/* ---- fixtures: pool.c's results as JSON for pool-check.py ------------- */

#define MAX_HOSTS	64
#define MAX_RUNS	64

struct fixture {
	size_t k;
	char name[MAX_HOSTS][32];
	struct pool_host h[MAX_HOSTS];
};

/* Fails with a message naming the file and line. */
static int parse_line(char *line, struct fixture *f)
{
	double run[2][MAX_RUNS];
	size_t n[2] = { 0, 0 };
	int mode = -1;
	char *tok, *end;

	tok = strtok(line, " \t\n");
	if (!tok || *tok == '#')
		return 0;
	if (f->k == MAX_HOSTS)
		return -E2BIG;
	snprintf(f->name[f->k], sizeof(f->name[0]), "%s", tok);
	while ((tok = strtok(NULL, " \t\n"))) {
		if (!strcmp(tok, "legacy") || !strcmp(tok, "optimized")) {
			mode = *tok == 'o';
			continue;
		}
		if (mode < 0 || n[mode] == MAX_RUNS)
			return -EINVAL;
		run[mode][n[mode]++] = strtod(tok, &end);
		if (*end)
			return -EINVAL;
	}
	return pool_host_from_samples(run[0], n[0], run[1], n[1],
				      &f->h[f->k++]);
}

static void json_num(const char *key, double x, const char *sep)
{
	if (isfinite(x))
		printf("\"%s\": %.17g%s", key, x, sep);
	else
		printf("\"%s\": null%s", key, sep);
}

static void json_interval(const char *key, const struct pool_interval *iv)
{
	printf("\"%s\": {", key);
	json_num("est", iv->est, ", ");
	json_num("lo", iv->lo, ", ");
	json_num("hi", iv->hi, ", ");
	json_num("ratio", iv->ratio, ", ");
	json_num("ratio_lo", iv->ratio_lo, ", ");
	json_num("ratio_hi", iv->ratio_hi, "}, ");
}

static void print_result(const char *path, const struct fixture *f,
			 enum pool_scale scale)
{
	static const char *const names[POOL_SCALES] = {
		"hksj", "truncated", "dl-floor", "welch-floor",
	};
	struct pool_host h[MAX_HOSTS];
	struct pool_result r;

	memcpy(h, f->h, sizeof(h));
	pool_combine(h, f->k, 0.95, scale, &r);
	printf("{\"fixture\": \"%s\", \"scale\": \"%s\", \"k\": %zu, ", path,
	       names[scale], r.k);
	json_interval("mean", &r.mean);
	json_interval("predict", &r.predict);
	json_num("se", r.se, ", ");
	json_num("hksj_q", r.hksj_q, ", ");
	json_num("tau2", r.tau2, ", ");
	json_num("q", r.q, ", ");
	json_num("i2", r.i2, ", ");
	printf("\"above\": %zu, \"below\": %zu, \"ties\": %zu, ", r.above,
	       r.below, r.ties);
	json_num("sign_p", r.sign_p, ", ");
	printf("\"outliers\": %zu, \"hosts\": [", r.outliers);
	for (size_t i = 0; i < f->k; i++) {
		printf("{\"name\": \"%s\", ", f->name[i]);
		json_num("y", h[i].y, ", ");
		json_num("v", h[i].v, ", ");
		json_num("df", h[i].df, ", ");
		json_num("v_t", h[i].v_t, ", ");
		json_num("weight", h[i].weight, ", ");
		json_num("loo_lo", h[i].loo_lo, ", ");
		json_num("loo_hi", h[i].loo_hi, ", ");
		json_num("p", h[i].p, ", ");
		json_num("p_holm", h[i].p_holm, ", ");
		json_num("without_est", h[i].without.est, ", ");
		json_num("without_lo", h[i].without.lo, ", ");
		json_num("without_hi", h[i].without.hi, ", ");
		printf("\"differs\": %s, ", h[i].differs ? "true" : "false");
		printf("\"outlier\": %s}%s", h[i].outlier ? "true" : "false",
		       i + 1 < f->k ? ", " : "");
	}
	printf("]}\n");
}

static int print_fixture(const char *path)
{
	static struct fixture f;
	char line[8192];
	int lineno = 0, err = 0;
	FILE *in = fopen(path, "r");

	if (!in) {
		fprintf(stderr, "test-pool: %s: %s\n", path, strerror(errno));
		return 1;
	}
	f.k = 0;
	while (!err && fgets(line, sizeof(line), in)) {
		lineno++;
		err = parse_line(line, &f);
	}
	fclose(in);
	if (err) {
		fprintf(stderr, "test-pool: %s:%d: %s\n", path, lineno, strerror(-err));
		return 1;
	}
	for (int s = 0; s < POOL_SCALES; s++)
		print_result(path, &f, (enum pool_scale)s);
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2)
		return unit_tests();
	for (int i = 1; i < argc; i++)
		ret |= print_fixture(argv[i]);
	return ret;
}
