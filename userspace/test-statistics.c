// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for statistics.c, run by 'make -C userspace test'.  Prints
 * TAP and exits 1 if any check fails.
 *
 * The reference values come from scipy 1.17 (numpy 2), e.g.
 *   stats.t.interval(0.95, 5, loc=mean(X), scale=stats.sem(X))
 *   stats.t.ppf(0.975, df), stats.t.cdf(t, df), special.betainc(a, b, x)
 *   stats.mannwhitneyu(a, b, method="exact")
 *   stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True)
 *   stats.bootstrap((X, Y), ratio_of_means, n_resamples=200000,
 *                   method="percentile")
 * and the median and quantiles are checked by hand.  The scipy bootstrap
 * uses another generator, so it is matched within Monte Carlo error; the
 * exact bootstrap values were checked against an independent Python
 * implementation of the same xoshiro256** / Lemire / type-7 procedure.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "statistics.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int tests, failures;

static void __attribute__((format(printf, 2, 3)))
check(int ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failures++;
	printf("%s %d - ", ok ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Relative tolerance, with an absolute floor for values near zero. */
static void near(const char *what, double got, double want, double tol)
{
	double err = fabs(got - want);
	int ok = err <= tol * fmax(1, fabs(want));

	check(ok, "%s: got %.17g, want %.17g", what, got, want);
}

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
	static const double same[] = { 1, 1, 1 };
	struct st_mw r;

	/* No overlap, 6 vs 6: the smallest exact p, 2 / C(12, 6). */
	mw_case("exact, separated 6 vs 6", X, N(X), Y, N(Y), 36,
		0.0021645021645021645, true);
	mw_case("exact, separated 6 vs 6, swapped", Y, N(Y), X, N(X), 0,
		0.0021645021645021645, true);
	mw_case("exact, overlapping 7 vs 5", a, N(a), b, N(b), 14,
		0.638888888888889, true);
	mw_case("exact at the limit, 10 vs 10", a10, N(a10), b10, N(b10), 13,
		0.003886206672584382, true);
	mw_case("ties: normal, tie- and continuity-corrected", c, N(c), d,
		N(d), 8, 0.007453631850691216, false);
	mw_case("12 vs 14: normal", e, N(e), f, N(f), 96, 0.554188017359466,
		false);
	check(st_mann_whitney(same, 3, same, 2, &r) == 0 && r.p == 1,
	      "all values equal: p = 1");
	check(st_mann_whitney(X, 0, Y, 6, &r) == -EINVAL,
	      "an empty group is refused");
}

static void test_bootstrap(void)
{
	static const double zero[] = { 0, 0 };
	struct st_ratio r, again, other;
	struct st_rng rng;
	int counts[6] = { 0 }, ok = 1;

	check(st_bootstrap_ratio(X, N(X), Y, N(Y), ST_BOOTSTRAP_RESAMPLES,
				 ST_BOOTSTRAP_SEED, 0.95, &r) == 0,
	      "bootstrap computed");
	near("bootstrap: the point estimate is the ratio of means", r.value,
	     2.1172638436482085, 1e-14);
	/* scipy, 200000 resamples: (1.95477, 2.29133); our MC error ~0.003. */
	near("bootstrap: low end near scipy's", r.lo, 1.9547657512116319, 0.01);
	near("bootstrap: high end near scipy's", r.hi, 2.291325695581015, 0.01);
	/* The same seed must give the same digits, on every machine. */
	near("bootstrap: exact low end for the fixed seed", r.lo,
	     1.9540134733957528, 1e-12);
	near("bootstrap: exact high end for the fixed seed", r.hi,
	     2.288557213930348, 1e-12);
	st_bootstrap_ratio(X, N(X), Y, N(Y), ST_BOOTSTRAP_RESAMPLES,
			   ST_BOOTSTRAP_SEED, 0.95, &again);
	check(again.lo == r.lo && again.hi == r.hi, "bootstrap is reproducible");
	st_bootstrap_ratio(X, N(X), Y, N(Y), ST_BOOTSTRAP_RESAMPLES, 1, 0.95,
			   &other);
	check(other.lo != r.lo && fabs(other.lo - r.lo) < 0.02,
	      "another seed moves the CI only by Monte Carlo error");
	check(r.lo < r.value && r.value < r.hi, "the CI holds the estimate");
	check(st_bootstrap_ratio(X, 2, zero, 2, 100, 1, 0.95, &other) == -EDOM,
	      "a zero denominator is -EDOM");

	/* Uniform draws: each of 6 bins within 5% of 10000 in 60000. */
	st_rng_seed(&rng, 7);
	for (int i = 0; i < 60000; i++)
		counts[st_rng_below(&rng, 6)]++;
	for (int i = 0; i < 6; i++)
		ok &= counts[i] > 9500 && counts[i] < 10500;
	check(ok, "st_rng_below is uniform");
}

int main(void)
{
	test_descriptive();
	test_distributions();
	test_mann_whitney();
	test_bootstrap();
	printf("1..%d\n", tests);
	if (failures)
		printf("# %d of %d failed\n", failures, tests);
	return failures ? 1 : 0;
}
