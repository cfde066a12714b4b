// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for A/B runs of a handful of samples per mode (4 to 6 as a
 * rule, 2 at least).  Timings are positive and skewed and the answer is a
 * ratio, so the one estimator is the geometric mean: per mode, and their
 * ratio with a Welch t interval on the logs: at a handful of runs a
 * percentile bootstrap's interval is too narrow to hold its 95%, and
 * test-statistics.c measures by simulation that these intervals do.  The
 * rank test is Mann-Whitney's, exact given the ties, as benchstat's; the
 * ABBA order also gives adjacent pairs, tested by a paired t on their log
 * ratios.
 *
 * No I/O (snprintf only) and no global state: everything here is checked by
 * test-statistics.c against values computed with scipy.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
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

double st_rng_normal(struct st_rng *r)
{
	/* 53 random bits in (0, 1]: log() never sees 0. */
	double u1 = (double)((st_rng_next(r) >> 11) + 1) * 0x1p-53;
	double u2 = (double)(st_rng_next(r) >> 11) * 0x1p-53;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
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

/*
 * The mean and sd of log(x); false if a value is <= 0 (or NaN).  The logs
 * are summed in sorted order, so that the mean depends on the values and
 * not on their order: a bench whose legacy runs are its optimized runs in
 * another order has a ratio of exactly 1, a tie, not 1 - 4e-16.  Out of
 * memory, the order given (the same mean to rounding).
 */
static bool log_moments(const double *x, size_t n, double *mean, double *sd)
{
	double sum = 0, ss = 0, *lg = malloc(n * sizeof(*lg) + 1);

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0)) {
			free(lg);
			return false;
		}
		if (lg)
			lg[i] = log(x[i]);
	}
	if (lg)
		st_sort(lg, n);
	for (size_t i = 0; i < n; i++)
		sum += lg ? lg[i] : log(x[i]);
	*mean = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = (lg ? lg[i] : log(x[i])) - *mean;

		ss += d * d;
	}
	free(lg);
	*sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	return true;
}

static void log_summary(const double *x, size_t n, struct st_summary *s)
{
	double m, sd, half;

	s->gmean = s->g_lo = s->g_hi = NAN;
	if (!log_moments(x, n, &m, &sd))
		return;
	s->gmean = exp(m);
	if (n < 2)
		return;
	half = st_t_quantile(0.975, (double)(n - 1)) * sd / sqrt((double)n);
	s->g_lo = exp(m - half);
	s->g_hi = exp(m + half);
}

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
	log_summary(x, n, s);
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
 * The exact conditional distribution of the rank sum given the ties: with
 * doubled midranks (integers), count the subsets of nx of the n ranks by
 * their sum, f[k][s] over the ranks taken one at a time.  Benchstat does
 * the same; without ties it is the classic exact test.  p is the share of
 * subsets whose U lies at least as far from its mean as u does, and p_min
 * the share at the most extreme U that exists.
 */
static int mw_exact(const double *rank2, size_t n, size_t nx, double u,
		    struct st_mw *r)
{
	size_t smax = 0, k, i;
	double *f, total = 0, tail = 0, edge = 0, dev, far = 0;
	const double base = (double)nx * (double)(nx + 1), mu2 = (double)nx * (double)(n - nx);
	long s;

	for (i = 0; i < n; i++)
		smax += (size_t)rank2[i];
	f = calloc((nx + 1) * (smax + 1), sizeof(*f));
	if (!f)
		return -ENOMEM;
#define F(k, s) f[(k) * (smax + 1) + (s)]
	F(0, 0) = 1;
	for (i = 0; i < n; i++) {
		size_t w = (size_t)rank2[i];

		/* Downwards in k and s, so each rank is taken at most once. */
		for (k = (i + 1 < nx ? i + 1 : nx); k >= 1; k--)
			for (s = (long)smax; s >= (long)w; s--)
				F(k, (size_t)s) += F(k - 1, (size_t)s - w);
	}
	/* 2U = rank-sum2 - nx(nx+1); E[2U] = nx*ny. */
	dev = fabs(2 * u - mu2);
	for (s = 0; s <= (long)smax; s++) {
		double c = F(nx, (size_t)s), d = fabs((double)s - base - mu2);

		if (c == 0)
			continue;
		total += c;
		/* 2U takes half-integer steps apart: 1e-9 absorbs nothing real. */
		if (d >= dev - 1e-9)
			tail += c;
		far = fmax(far, d);
	}
	for (s = 0; s <= (long)smax; s++)
		if (F(nx, (size_t)s) && fabs((double)s - base - mu2) >= far - 1e-9)
			edge += F(nx, (size_t)s);
#undef F
	free(f);
	r->p = fmin(1, tail / total);
	r->p_min = fmin(1, edge / total);
	return 0;
}

int st_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		    struct st_mw *r)
{
	size_t n = nx + ny, i, j;
	double rx = 0, tie_sum = 0, mu, var, z, *rank2;
	struct ranked *all;
	int err = 0;

	if (!nx || !ny)
		return -EINVAL;
	all = malloc(n * sizeof(*all));
	rank2 = malloc(n * sizeof(*rank2));
	if (!all || !rank2) {
		err = -ENOMEM;
		goto out;
	}
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
		for (size_t k = i; k < j; k++) {
			rank2[k] = 2 * rank;
			if (all[k].group == 0)
				rx += rank;
		}
		tie_sum += t * t * t - t;
	}
	r->u = rx - (double)nx * (double)(nx + 1) / 2;
	r->exact = n <= ST_MW_EXACT_MAX_N;
	if (r->exact) {
		err = mw_exact(rank2, n, nx, r->u, r);
		goto out;
	}
	/*
	 * Normal approximation with the tie-corrected variance and a
	 * continuity correction of 1/2 toward the mean, as scipy's
	 * mannwhitneyu(method="asymptotic", use_continuity=True).
	 */
	mu = (double)nx * (double)ny / 2;
	var = (double)nx * (double)ny / 12 *
	      ((double)n + 1 - tie_sum / ((double)n * (double)(n - 1)));
	r->p_min = var > 0 ? fmin(1, erfc((mu - 0.5) / sqrt(var) / M_SQRT2)) : 1;
	if (var <= 0) {
		/* Every value equal: no evidence of any difference. */
		r->p = 1;
		goto out;
	}
	z = (fabs(r->u - mu) - 0.5) / sqrt(var);
	/* 2 * (1 - cdf(z)), through erfc so the far tail keeps its digits. */
	r->p = z <= 0 ? 1 : fmin(1, erfc(z / M_SQRT2));
out:
	free(all);
	free(rank2);
	return err;
}

int st_ratio_welch(const double *x, size_t nx, const double *y, size_t ny,
		   double level, struct st_ratio *r)
{
	double mx, sx, my, sy, vx, vy, se, half;

	if (!nx || !ny || !(level > 0 && level < 1))
		return -EINVAL;
	r->value = r->lo = r->hi = r->df = NAN;
	if (!log_moments(x, nx, &mx, &sx) || !log_moments(y, ny, &my, &sy))
		return -EDOM;
	r->value = exp(mx - my);
	if (nx < 2 || ny < 2)
		return 0;
	vx = sx * sx / (double)nx;
	vy = sy * sy / (double)ny;
	se = sqrt(vx + vy);
	if (se == 0) {
		/* Every run of each mode equal: nothing to be unsure of. */
		r->lo = r->hi = r->value;
		return 0;
	}
	r->df = (vx + vy) * (vx + vy) /
		(vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1));
	half = st_t_quantile(1 - (1 - level) / 2, r->df) * se;
	r->lo = exp(mx - my - half);
	r->hi = exp(mx - my + half);
	return 0;
}

int st_ratio_paired(const double *x, const double *y, size_t n, double level,
		    struct st_paired *r)
{
	double *d, m, sd, se, half;
	size_t i;

	if (!n || !(level > 0 && level < 1))
		return -EINVAL;
	r->n = n;
	r->value = r->lo = r->hi = r->p = NAN;
	for (i = 0; i < n; i++)
		if (!(x[i] > 0 && y[i] > 0))
			return -EDOM;
	d = malloc(n * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		d[i] = log(x[i] / y[i]);
	m = st_mean(d, n);
	sd = st_sd(d, n);
	free(d);
	r->value = exp(m);
	if (n < 2)
		return 0;
	se = sd / sqrt((double)n);
	if (se == 0) {
		r->lo = r->hi = r->value;
		r->p = m == 0 ? 1 : 0;
		return 0;
	}
	half = st_t_quantile(1 - (1 - level) / 2, (double)(n - 1)) * se;
	r->lo = exp(m - half);
	r->hi = exp(m + half);
	r->p = 2 * st_t_cdf(-fabs(m / se), (double)(n - 1));
	return 0;
}

char *st_fmt_p(char *buf, size_t len, double p)
{
	int digits;

	if (isnan(p)) {
		snprintf(buf, len, "p=–");
		return buf;
	}
	if (p < 0.001) {
		snprintf(buf, len, "p<0.001");
		return buf;
	}
	/* Two significant digits, more while rounding crosses 0.05. */
	digits = p < 0.01 ? 3 : 2;
	for (;; digits++) {
		snprintf(buf, len, "p=%.*f", digits, p);
		if ((strtod(buf + 2, NULL) < 0.05) == (p < 0.05) || digits >= 17)
			break;
	}
	return buf;
}
