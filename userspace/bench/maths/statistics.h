/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics behind 'abpath bench': descriptive statistics, Student-t
 * confidence intervals, the exact Mann-Whitney U test and t intervals for
 * a ratio of geometric means, unpaired (Welch) and paired.  Pure functions (no I/O, no global state) so that
 * test-statistics.c can check them against reference values.
 */
#ifndef ABPATH_STATISTICS_H
#define ABPATH_STATISTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Largest total sample size for which the Mann-Whitney p is exact (the
 * conditional distribution given the ties, counted in doubles: exact to
 * C(52, 26) and within rounding above).
 */
#define ST_MW_EXACT_MAX_N	60

/*
 * One estimator throughout: the geometric mean of each mode and the ratio
 * of the geometric means, i.e. the mean and the difference of the logs.
 * Timings are skewed and positive, a ratio is what is reported, and on the
 * log scale the t interval of a ratio is a Welch interval of a difference.
 */
struct st_summary {
	size_t n;
	double median, mean, sd;	/* sd: sample (n - 1) */
	double ci_lo, ci_hi;		/* 95% CI of the mean; NaN if n < 2 */
	double min, max;
	/* NaN if a value is <= 0; the CI is NaN if n < 2 too. */
	double gmean, g_lo, g_hi;	/* geometric mean, its 95% t CI */
};

struct st_mw {
	double u;	/* U of the first sample: pairs (x, y) with x > y, ties 1/2 */
	double p;	/* two-sided: P(|U - E U| >= |u - E U|) */
	/* The smallest p these sizes (and, if exact, these ties) can give. */
	double p_min;
	bool exact;	/* exact conditional distribution, else normal */
};

/* The ratio of geometric means of x over y, Welch t interval on the logs. */
struct st_ratio {
	double value;
	double lo, hi;	/* NaN if either sample has one value */
	double df;	/* Welch-Satterthwaite degrees of freedom */
};

/* The same ratio from n pairs (x[i], y[i]): a paired t on the log ratios. */
struct st_paired {
	size_t n;
	double value;	/* exp(mean log(x[i] / y[i])) */
	double lo, hi;	/* NaN if n < 2 */
	double p;	/* two-sided t test of "ratio = 1"; NaN if n < 2 */
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

/* A standard normal deviate (Box-Muller), for simulations. */
double st_rng_normal(struct st_rng *r);

/* All return 0, -EINVAL (bad sizes or values) or -ENOMEM. */
int st_summarize(const double *x, size_t n, struct st_summary *s);
int st_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		    struct st_mw *r);
/* At confidence level (e.g. 0.95); -EDOM if a value is <= 0. */
int st_ratio_welch(const double *x, size_t nx, const double *y, size_t ny,
		   double level, struct st_ratio *r);
int st_ratio_paired(const double *x, const double *y, size_t n, double level,
		    struct st_paired *r);
/*
 * p printed so that it never crosses 0.05 by rounding: "p=0.0496", not
 * "p=0.05"; "p<0.001" below that.  Returns buf.
 */
char *st_fmt_p(char *buf, size_t len, double p);

#endif
