// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for A/B runs of a handful of samples per mode.  The samples
 * are few (6 per mode by default) and benchmark timings are skewed, so the
 * report leans on methods that do not assume normality: the median, a
 * rank test, and a bootstrap CI for the ratio; the Student-t CI of the
 * mean is there because kernel engineers expect it next to the mean.
 *
 * No I/O and no global state: everything here is checked by
 * test-statistics.c against values computed with scipy.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "statistics.h"

/* ---- random numbers ---------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Seeding through splitmix64 is what xoshiro's authors recommend. */
void st_rng_seed(struct st_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t st_rng_next(struct st_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Lemire's multiply-and-reject: unbiased, and rarely needs a division. */
uint64_t st_rng_below(struct st_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)st_rng_next(r) * n;
	uint64_t low = (uint64_t)m, floor_;

	if (low < n) {
		floor_ = -n % n;
		while (low < floor_) {
			m = (unsigned __int128)st_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* ---- descriptive ------------------------------------------------------- */

double st_mean(const double *x, size_t n)
{
	double sum = 0;

	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

/* Two passes: the one-pass formula cancels badly for values like 1e9+-1. */
double st_sd(const double *x, size_t n)
{
	double m = st_mean(x, n), ss = 0;

	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void st_sort(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
}

double st_quantile_sorted(const double *s, size_t n, double p)
{
	double h, frac;
	size_t lo;

	if (!n || !(p >= 0 && p <= 1))
		return NAN;
	h = (double)(n - 1) * p;
	lo = (size_t)floor(h);
	if (lo + 1 >= n)
		return s[n - 1];
	frac = h - (double)lo;
	return s[lo] + frac * (s[lo + 1] - s[lo]);
}

double st_median(const double *x, size_t n)
{
	double *s, med;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	st_sort(s, n);
	med = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return med;
}

/* ---- distributions ----------------------------------------------------- */

double st_normal_cdf(double z)
{
	/* erfc keeps full relative precision far out in the lower tail. */
	return 0.5 * erfc(-z / M_SQRT2);
}

/*
 * Continued fraction for I_x(a, b), evaluated with the modified Lentz
 * method (Numerical Recipes, 6.4); converges fast for x < (a+1)/(a+b+2).
 */
static double incbeta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, num, delta;

	d = fabs(d) < tiny ? 1 / tiny : 1 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		/* Even step. */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		/* Odd step. */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return h;
}

double st_incbeta(double a, double b, double x)
{
	double front;

	if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) +
		    a * log(x) + b * log1p(-x));
	/* Use the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where it converges. */
	if (x < (a + 1) / (a + b + 2))
		return front * incbeta_cf(a, b, x) / a;
	return 1 - front * incbeta_cf(b, a, 1 - x) / b;
}

double st_t_cdf(double t, double df)
{
	double tail;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2). */
	tail = 0.5 * st_incbeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

/*
 * Bisection: slower than Newton but it cannot diverge, and a bench needs
 * two quantiles, not millions.
 */
double st_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;

	if (!(df > 0) || !(p > 0 && p < 1))
		return NAN;
	if (p < 0.5)
		return -st_t_quantile(1 - p, df);
	if (p == 0.5)
		return 0;
	while (st_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 300 && hi - lo > 1e-13 * hi; i++) {
		mid = (lo + hi) / 2;
		if (st_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- summaries and tests ----------------------------------------------- */

int st_summarize(const double *x, size_t n, struct st_summary *s)
{
	double half;

	if (!n)
		return -EINVAL;
	s->n = n;
	s->mean = st_mean(x, n);
	s->sd = st_sd(x, n);
	s->median = st_median(x, n);
	if (isnan(s->median))
		return -ENOMEM;
	s->min = s->max = x[0];
	for (size_t i = 1; i < n; i++) {
		s->min = fmin(s->min, x[i]);
		s->max = fmax(s->max, x[i]);
	}
	s->ci_lo = s->ci_hi = NAN;
	if (n >= 2) {
		half = st_t_quantile(0.975, (double)(n - 1)) * s->sd /
		       sqrt((double)n);
		s->ci_lo = s->mean - half;
		s->ci_hi = s->mean + half;
	}
	return 0;
}

struct ranked {
	double v;
	int group;	/* 0: x, 1: y */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v,
			  &((const struct ranked *)b)->v);
}

/*
 * Two-sided exact p-value: the number of orderings of nx x's and ny y's
 * giving each U, by the recurrence on which sample holds the largest
 * value, f(i, j, u) = f(i-1, j, u-j) + f(i, j-1, u).  Counts stay below
 * C(20, 10), exact in a double.
 */
static double mw_exact_p(size_t nx, size_t ny, double u)
{
	static const size_t M = ST_MW_EXACT_MAX;
	double f[2][ST_MW_EXACT_MAX + 1][ST_MW_EXACT_MAX * ST_MW_EXACT_MAX + 1];
	size_t umax = nx * ny, i, j, k;
	double total = 0, tail = 0, hi = fmax(u, (double)umax - u), p;

	if (nx > M || ny > M)
		return NAN;
	for (i = 0; i <= nx; i++) {
		double (*cur)[M * M + 1] = f[i % 2], (*prev)[M * M + 1] = f[(i + 1) % 2];

		for (j = 0; j <= ny; j++)
			for (k = 0; k <= umax; k++) {
				if (i == 0 || j == 0) {
					cur[j][k] = k == 0;
					continue;
				}
				cur[j][k] = cur[j - 1][k] +
					    (k >= j ? prev[j][k - j] : 0);
			}
	}
	for (k = 0; k <= umax; k++) {
		total += f[nx % 2][ny][k];
		/* U is symmetric about umax/2: double the upper tail. */
		if ((double)k >= hi)
			tail += f[nx % 2][ny][k];
	}
	p = 2 * tail / total;
	return p > 1 ? 1 : p;
}

int st_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		    struct st_mw *r)
{
	size_t n = nx + ny, i, j;
	double rx = 0, tie_sum = 0, mu, var, z;
	struct ranked *all;
	bool ties = false;

	if (!nx || !ny)
		return -EINVAL;
	all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < nx; i++)
		all[i] = (struct ranked){ x[i], 0 };
	for (i = 0; i < ny; i++)
		all[nx + i] = (struct ranked){ y[i], 1 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	/* Midranks: a run of equal values shares the mean of its ranks. */
	for (i = 0; i < n; i = j) {
		double t, rank;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		rank = ((double)i + 1 + (double)j) / 2;
		for (size_t k = i; k < j; k++)
			if (all[k].group == 0)
				rx += rank;
		if (j - i > 1) {
			ties = true;
			tie_sum += t * t * t - t;
		}
	}
	free(all);
	r->u = rx - (double)nx * (double)(nx + 1) / 2;
	r->exact = !ties && nx <= ST_MW_EXACT_MAX && ny <= ST_MW_EXACT_MAX;
	if (r->exact) {
		r->p = mw_exact_p(nx, ny, r->u);
		return 0;
	}
	/*
	 * Normal approximation with the tie-corrected variance and a
	 * continuity correction of 1/2 toward the mean, as scipy's
	 * mannwhitneyu(method="asymptotic", use_continuity=True).
	 */
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 *
	      ((double)n + 1 - tie_sum / ((double)n * (double)(n - 1)));
	if (var <= 0) {
		/* Every value equal: no evidence of any difference. */
		r->p = 1;
		return 0;
	}
	z = (fabs(r->u - mu) - 0.5) / sqrt(var);
	/* 2 * (1 - cdf(z)), through erfc so the far tail keeps its digits. */
	r->p = z <= 0 ? 1 : fmin(1, erfc(z / M_SQRT2));
	return 0;
}

static double resampled_mean(struct st_rng *rng, const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[st_rng_below(rng, n)];
	return sum / (double)n;
}

int st_bootstrap_ratio(const double *x, size_t nx, const double *y, size_t ny,
		       unsigned resamples, uint64_t seed, double level,
		       struct st_ratio *r)
{
	double my = st_mean(y, ny), *ratios, alpha = (1 - level) / 2;
	struct st_rng rng;
	int err = 0;

	if (!nx || !ny || resamples < 2 || !(level > 0 && level < 1))
		return -EINVAL;
	r->value = r->lo = r->hi = NAN;
	if (my == 0)
		return -EDOM;
	r->value = st_mean(x, nx) / my;
	ratios = malloc(resamples * sizeof(*ratios));
	if (!ratios)
		return -ENOMEM;
	st_rng_seed(&rng, seed);
	/* x's draws first, then y's, resample after resample: reproducible. */
	for (unsigned b = 0; b < resamples; b++) {
		double sx = resampled_mean(&rng, x, nx);
		double sy = resampled_mean(&rng, y, ny);

		if (sy == 0) {
			err = -EDOM;
			break;
		}
		ratios[b] = sx / sy;
	}
	if (!err) {
		st_sort(ratios, resamples);
		r->lo = st_quantile_sorted(ratios, resamples, alpha);
		r->hi = st_quantile_sorted(ratios, resamples, 1 - alpha);
	}
	free(ratios);
	return err;
}
