/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics behind 'abpath bench': descriptive statistics, Student-t
 * confidence intervals, the Mann-Whitney U test and a bootstrap CI for a
 * ratio of means.  Pure functions (no I/O, no global state) so that
 * test-statistics.c can check them against reference values.
 */
#ifndef ABPATH_STATISTICS_H
#define ABPATH_STATISTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bench reports use these; the functions take any value. */
#define ST_BOOTSTRAP_RESAMPLES	10000
#define ST_BOOTSTRAP_SEED	UINT64_C(0xab9a7b)
/* Largest group size for which the exact U distribution is used. */
#define ST_MW_EXACT_MAX		10

struct st_summary {
	size_t n;
	double median, mean, sd;	/* sd: sample (n - 1) */
	double ci_lo, ci_hi;		/* 95% CI of the mean; NaN if n < 2 */
	double min, max;
};

struct st_mw {
	double u;	/* U of the first sample: pairs (x, y) with x > y, ties 1/2 */
	double p;	/* two-sided */
	bool exact;	/* exact distribution, else normal approximation */
};

struct st_ratio {
	double value;	/* mean(x) / mean(y) */
	double lo, hi;	/* percentile bootstrap CI */
};

/* xoshiro256**: small, fast, and identical everywhere for one seed. */
struct st_rng {
	uint64_t s[4];
};

void st_rng_seed(struct st_rng *r, uint64_t seed);
uint64_t st_rng_next(struct st_rng *r);
/* Uniform in [0, n), without modulo bias; n > 0. */
uint64_t st_rng_below(struct st_rng *r, uint64_t n);

double st_mean(const double *x, size_t n);
double st_sd(const double *x, size_t n);
/* Return NaN for n == 0 or when out of memory. */
double st_median(const double *x, size_t n);
/* Linear interpolation between order statistics (R type 7, numpy's default). */
double st_quantile_sorted(const double *sorted, size_t n, double p);
void st_sort(double *x, size_t n);

double st_normal_cdf(double z);
/* Regularized incomplete beta function I_x(a, b). */
double st_incbeta(double a, double b, double x);
double st_t_cdf(double t, double df);
double st_t_quantile(double p, double df);

/* All return 0, -EINVAL (bad sizes or values) or -ENOMEM. */
int st_summarize(const double *x, size_t n, struct st_summary *s);
int st_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		    struct st_mw *r);
/*
 * Percentile bootstrap of mean(x) / mean(y) at confidence level (e.g.
 * 0.95): x and y are resampled independently, each with replacement and
 * its own size, from one generator seeded with seed.  -EDOM if a
 * resampled mean of y is 0, where the ratio has no value.
 */
int st_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny,
		       unsigned resamples, uint64_t seed, double level,
		       struct st_ratio *r);

#endif
