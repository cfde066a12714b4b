// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for statistics.c, run by 'make -C userspace test'.  Prints
 * TAP and exits 1 if any check fails.
 *
 * The reference values come from scipy 1.17 (numpy 2), e.g.
 *   stats.t.interval(0.95, 5, loc=mean(X), scale=stats.sem(X))
 *   stats.t.ppf(0.975, df), stats.t.cdf(t, df), special.betainc(a, b, x)
 *   stats.mannwhitneyu(a, b, method="exact")	(no ties)
 *   stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True)
 *   stats.ttest_ind(log(X), log(Y), equal_var=False).confidence_interval()
 *   stats.ttest_rel(log(X), log(Y)), stats.gmean(X)
 * and, with ties, the exact conditional Mann-Whitney p by enumerating
 * every split of the midranks (itertools.combinations).  The median and
 * quantiles are checked by hand.  The coverage of the ratio intervals is
 * measured here by simulation, with a fixed seed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <stdio.h>

#include "statistics.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Six legacy-like and six optimized-like timings, ratio about 2. */
static const double X[] = { 2.1, 2.5, 1.9, 2.3, 2.2, 2.0 };
static const double Y[] = { 1.02, 0.97, 1.10, 0.99, 1.05, 1.01 };

static void test_descriptive(void)
{
	static const double odd[] = { 5, 1, 4, 2, 3 };
	static const double even[] = { 7, 1, 3, 10 };
	static const double sorted[] = { 1, 2, 3, 4, 5 };
	struct st_summary s;

	near("median of an odd sample", st_median(odd, N(odd)), 3, 0);
	near("median of an even sample", st_median(even, N(even)), 5, 0);
	check(isnan(st_median(NULL, 0)), "median of nothing is NaN");
	near("quantile 0.25 (type 7)", st_quantile_sorted(sorted, 5, 0.25), 2, 0);
	near("quantile 0.1 interpolates", st_quantile_sorted(sorted, 5, 0.1),
	     1.4, 1e-15);
	near("quantile 1", st_quantile_sorted(sorted, 5, 1), 5, 0);

	check(st_summarize(X, N(X), &s) == 0, "summarize");
	near("mean", s.mean, 2.1666666666666665, 1e-15);
	near("sd", s.sd, 0.2160246899469287, 1e-14);
	near("median", s.median, 2.15, 1e-15);
	near("min", s.min, 1.9, 0);
	near("max", s.max, 2.5, 0);
	near("95% CI low (Student t, 5 df)", s.ci_lo, 1.9399626579388798, 1e-12);
	near("95% CI high (Student t, 5 df)", s.ci_hi, 2.3933706753944533, 1e-12);
	near("geometric mean", s.gmean, 2.1578217657753065, 1e-14);
	near("geometric mean, 95% CI low", s.g_lo, 1.9452926746382735, 1e-12);
	near("geometric mean, 95% CI high", s.g_hi, 2.3935703010445351, 1e-12);
	check(st_summarize(X, 1, &s) == 0 && isnan(s.ci_lo) && isnan(s.sd),
	      "one sample has no CI");
	check(st_summarize(X, 0, &s) == -EINVAL, "an empty sample is refused");
}

static void test_distributions(void)
{
	static const struct { double df, q; } tq[] = {
		{ 1, 12.706204736174694 }, { 2, 4.302652729749462 },
		{ 5, 2.5705818356363146 }, { 9, 2.262157162798205 },
		{ 30, 2.0422724563012378 }, { 100, 1.9839715185235518 },
	};
	char what[64];

	for (size_t i = 0; i < N(tq); i++) {
		snprintf(what, sizeof(what), "t quantile 0.975, %g df", tq[i].df);
		near(what, st_t_quantile(0.975, tq[i].df), tq[i].q, 1e-10);
	}
	near("t quantile 0.025 is the negative", st_t_quantile(0.025, 5),
	     -2.5705818356363146, 1e-10);
	near("t cdf(1.5, 3 df)", st_t_cdf(1.5, 3), 0.8847080673775886, 1e-12);
	near("t cdf(-2, 7 df)", st_t_cdf(-2, 7), 0.042809664281488025, 1e-12);
	near("incomplete beta I_0.3(2.5, 0.5)", st_incbeta(2.5, 0.5, 0.3),
	     0.018927124071945658, 1e-12);
	near("normal cdf(1.96)", st_normal_cdf(1.96), 0.9750021048517795, 1e-14);
}

static void mw_case(const char *what, const double *a, size_t na,
		    const double *b, size_t nb, double u, double p, bool exact)
{
	struct st_mw r;
	char buf[96];

	check(st_mann_whitney(a, na, b, nb, &r) == 0, "%s: computed", what);
	snprintf(buf, sizeof(buf), "%s: U", what);
	near(buf, r.u, u, 0);
	snprintf(buf, sizeof(buf), "%s: p", what);
	near(buf, r.p, p, 1e-12);
	check(r.exact == exact, "%s: %s method", what,
	      exact ? "exact" : "normal");
}

static void test_mann_whitney(void)
{
	static const double a[] = { 1.1, 2.3, 3.5, 4.2, 5.9, 6.1, 7.7 };
	static const double b[] = { 2.0, 3.1, 4.8, 8.2, 9.0 };
	static const double a10[] = { 3.1, 4.5, 2.2, 5.8, 6.6, 7.3, 1.9, 8.8,
				      4.1, 5.2 };
	static const double b10[] = { 6.0, 7.9, 8.1, 9.4, 5.5, 10.2, 6.9, 7.1,
				      9.9, 11.3 };
	static const double c[] = { 1, 2, 2, 3, 4, 4, 4, 5 };
	static const double d[] = { 3, 4, 5, 5, 6, 6, 7, 8, 8 };
	static const double e[] = { 10.691, 11.643, 10.661, 7.394, 11.811,
				    10.893, 8.926, 11.162, 10.729, 10.588,
				    10.057, 11.093 };
	static const double f[] = { 9.527, 10.674, 10.036, 12.198, 11.079,
				    10.415, 9.436, 10.486, 11.016, 10.449,
				    13.588, 13.013, 5.578, 7.222 };
	/* #18's example: the normal approximation said p = 0.0455. */
	static const double g[] = { 7, 11, 9, 8, 10, 11 };
	static const double h[] = { 11, 10, 11, 11, 12, 12 };
	static const double one[] = { 1, 2, 3 }, four[] = { 4, 5, 6 };
	static const double same[] = { 1, 1, 1 };
	double big_x[31], big_y[33];
	struct st_mw r;

	/* No overlap, 6 vs 6: the smallest exact p, 2 / C(12, 6). */
	mw_case("exact, separated 6 vs 6", X, N(X), Y, N(Y), 36,
		0.0021645021645021645, true);
	mw_case("exact, separated 6 vs 6, swapped", Y, N(Y), X, N(X), 0,
		0.0021645021645021645, true);
	mw_case("exact, overlapping 7 vs 5", a, N(a), b, N(b), 14,
		0.638888888888889, true);
	mw_case("exact, 10 vs 10", a10, N(a10), b10, N(b10), 13,
		0.003886206672584382, true);
	mw_case("exact, 12 vs 14", e, N(e), f, N(f), 96, 0.5604495894467627,
		true);
	mw_case("exact with ties, 8 vs 9", c, N(c), d, N(d), 8,
		0.0046071575483340186, true);
	mw_case("exact with ties, #18's 6 vs 6", g, N(g), h, N(h), 5.5,
		0.05844155844155844, true);
	st_mann_whitney(g, N(g), h, N(h), &r);
	near("exact with ties: the smallest p these ties allow", r.p_min,
	     0.010822510822510822, 1e-12);
	st_mann_whitney(one, 3, four, 3, &r);
	near("3 vs 3, separated: p = 2 / C(6, 3)", r.p, 0.1, 1e-14);
	near("3 vs 3: no split can reach p < 0.05", r.p_min, 0.1, 1e-14);
	/* 64 values with ties: past ST_MW_EXACT_MAX_N. */
	for (int i = 0; i < 31; i++)
		big_x[i] = (i * 7) % 31 + 0.5 * (i % 2);
	for (int i = 0; i < 33; i++)
		big_y[i] = (i * 5) % 37 + 1;
	mw_case("31 vs 33 with ties: normal, tie- and continuity-corrected",
		big_x, 31, big_y, 33, 434, 0.3008735747147835, false);
	check(st_mann_whitney(same, 3, same, 2, &r) == 0 && r.p == 1,
	      "all values equal: p = 1");
	check(st_mann_whitney(X, 0, Y, 6, &r) == -EINVAL,
	      "an empty group is refused");
}

static void test_ratio(void)
{
	static const double zero[] = { 1, 0 };
	struct st_ratio r;
	struct st_paired q;
	struct st_rng rng;
	int counts[6] = { 0 }, ok = 1;
	double sum = 0, ss = 0, z;

	check(st_ratio_welch(X, N(X), Y, N(Y), 0.95, &r) == 0, "Welch ratio");
	near("Welch: the ratio of geometric means", r.value, 2.11039537469938,
	     1e-14);
	near("Welch: CI low", r.lo, 1.9004113124911761, 1e-12);
	near("Welch: CI high", r.hi, 2.3435814174954905, 1e-12);
	near("Welch: degrees of freedom", r.df, 6.9700402572840074, 1e-12);
	check(st_ratio_welch(X, 1, Y, 3, 0.95, &r) == 0 && isnan(r.lo) &&
	      isfinite(r.value), "Welch: one run in a mode gives no CI");
	check(st_ratio_welch(X, 2, zero, 2, 0.95, &r) == -EDOM,
	      "Welch: a value of 0 is -EDOM");

	check(st_ratio_paired(X, Y, N(X), 0.95, &q) == 0, "paired ratio");
	near("paired: the same estimate", q.value, 2.11039537469938, 1e-14);
	near("paired: CI low", q.lo, 1.8275167746728724, 1e-12);
	near("paired: CI high", q.hi, 2.4370603319631727, 1e-12);
	near("paired: t test p", q.p, 4.2332376363834365e-05, 1e-9);
	check(st_ratio_paired(X, zero, 2, 0.95, &q) == -EDOM,
	      "paired: a value of 0 is -EDOM");

	/* Uniform draws: each of 6 bins within 5% of 10000 in 60000. */
	st_rng_seed(&rng, 7);
	for (int i = 0; i < 60000; i++)
		counts[st_rng_below(&rng, 6)]++;
	for (int i = 0; i < 6; i++)
		ok &= counts[i] > 9500 && counts[i] < 10500;
	check(ok, "st_rng_below is uniform");
	for (int i = 0; i < 100000; i++) {
		z = st_rng_normal(&rng);
		sum += z;
		ss += z * z;
	}
	check(fabs(sum / 1e5) < 0.01 && fabs(ss / 1e5 - 1) < 0.02,
	      "st_rng_normal: mean %.4f, variance %.4f", sum / 1e5, ss / 1e5);
}

/*
 * How often the 95% intervals hold the true ratio, over SIM_TRIALS
 * simulated benches: lognormal runs with a known ratio of 2, a spread
 * (sd of the log) of sx and sy per mode, n runs per mode.  Welch's runs
 * are independent, as its model says; the paired runs share a factor per
 * pair (sd 0.2 on the log), the drift that ABBA pairing cancels.  At
 * 20000 trials the binomial sd of a coverage of 0.95 is 0.0015.
 */
#define SIM_TRIALS 20000

static void coverage(int n, double sx, double sy, double want)
{
	struct st_rng rng;
	double x[16], y[16], px[16], py[16], c;
	int hit = 0, phit = 0;
	struct st_ratio r;
	struct st_paired q;

	st_rng_seed(&rng, 0x5eed + (uint64_t)n);
	for (int t = 0; t < SIM_TRIALS; t++) {
		for (int i = 0; i < n; i++) {
			x[i] = 2 * exp(sx * st_rng_normal(&rng));
			y[i] = exp(sy * st_rng_normal(&rng));
			c = 0.2 * st_rng_normal(&rng);
			px[i] = x[i] * exp(c);
			py[i] = y[i] * exp(c);
		}
		st_ratio_welch(x, (size_t)n, y, (size_t)n, 0.95, &r);
		st_ratio_paired(px, py, (size_t)n, 0.95, &q);
		hit += r.lo <= 2 && 2 <= r.hi;
		phit += q.lo <= 2 && 2 <= q.hi;
	}
	c = (double)hit / SIM_TRIALS;
	check(c >= want, "coverage, Welch ratio, %d runs per mode, spread %.2f/%.2f: %.4f (at least %.2f)",
	      n, sx, sy, c, want);
	c = (double)phit / SIM_TRIALS;
	check(c >= want, "coverage, paired ratio, %d pairs with drift, spread %.2f/%.2f: %.4f (at least %.2f)",
	      n, sx, sy, c, want);
}

static void test_coverage(void)
{
	static const int runs[] = { 2, 3, 4, 6, 10 };

	for (size_t i = 0; i < N(runs); i++) {
		coverage(runs[i], 0.2, 0.2, 0.94);
		coverage(runs[i], 0.1, 0.3, 0.94);
	}
}

static void fmt_case(double p, const char *want)
{
	char buf[32];

	st_fmt_p(buf, sizeof(buf), p);
	check(!strcmp(buf, want), "p %.17g prints as %s (got %s)", p, want, buf);
}

static void test_fmt_p(void)
{
	fmt_case(0.0496, "p=0.0496");
	fmt_case(0.04999, "p=0.04999");
	fmt_case(0.0504, "p=0.05");
	fmt_case(0.05844155844155844, "p=0.06");
	fmt_case(0.0021645021645021645, "p=0.002");
	fmt_case(0.0004, "p<0.001");
	fmt_case(0.48, "p=0.48");
}

/*
 * The same runs in another order tie: summed in the order given, these
 * logs' means differ by 8.9e-16 (python3 finds it), which made a ratio of
 * 1.0000000000000009 of what is no difference at all.
 */
static void test_tie(void)
{
	static const double a[] = { 1383.5, 2434.3, 2081.9, 2099.3, 1794.3, 2722.0 };
	static const double b[] = { 1794.3, 1383.5, 2081.9, 2099.3, 2722.0, 2434.3 };
	struct st_ratio r = { 0 };
	int err = st_ratio_welch(a, N(a), b, N(b), 0.95, &r);

	check(!err && r.value == 1,
	      "the same runs reordered: a ratio of exactly 1 (%.17g)", r.value);
	check(r.lo < 1 && r.hi > 1 && r.lo * r.hi > 1 - 1e-15 &&
	      r.lo * r.hi < 1 + 1e-15,
	      "and an interval symmetric about it on the logs");
}

int main(void)
{
	test_descriptive();
	test_distributions();
	test_mann_whitney();
	test_ratio();
	test_tie();
	test_coverage();
	test_fmt_p();
	return tap_done();
}
