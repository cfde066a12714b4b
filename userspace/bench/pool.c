// SPDX-License-Identifier: GPL-2.0
/*
 * Random-effects pooling of per-host A/B ratios (pool.h says what and
 * why).  A handful of hosts is the rule, so everything is one pass or two
 * over k values, and the leave-one-out fits skip a host by index instead
 * of copying the others.  Checked by test-pool.c, against statsmodels by
 * tests/tools/pool-check.py, and its coverage by tests/tools/pool-coverage.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "pool.h"
#include "statistics.h"

/* One random-effects fit over the hosts other than skip. */
struct fit {
	size_t k;
	double mu, se2, tau2, q, hksj_q;
};

/*
 * The two-sided quantile t[d] of t with k - 1 - d df, d = 0, 1, 2: the mean's
 * interval, the prediction interval (both from all k hosts) and the one
 * from k - 1 hosts, leave one out.  z for the normal; NaN where df < 1.
 */
struct quantiles {
	double z, t[3];
};

/* Bisection on the normal cdf, as st_t_quantile does on t's. */
static double normal_quantile(double p)
{
	double lo = 0, hi = 40, mid;

	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		mid = (lo + hi) / 2;
		if (st_normal_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * t's quantile at p > 1/2 by Newton's method from the Cornish-Fisher
 * start: the hosts' quantiles, which the coverage simulation asks for
 * millions of times, st_t_quantile()'s bisection being too slow for
 * that.  t's cdf is concave above 0, so the steps climb to the root from
 * below; bisection is the fallback.
 */
static double t_quantile(double p, double df, double z)
{
	double x = z + (z * z * z + z) / (4 * df), step;
	double c = lgamma((df + 1) / 2) - lgamma(df / 2) - log(df * M_PI) / 2;

	for (int i = 0; i < 40; i++) {
		step = (st_t_cdf(x, df) - p) /
		       exp(c - (df + 1) / 2 * log1p(x * x / df));
		x -= step;
		if (fabs(step) <= 1e-13 * x)
			return x;
	}
	return st_t_quantile(p, df);
}

static void quantiles(size_t k, double level, struct quantiles *qs)
{
	double p = 1 - (1 - level) / 2;

	qs->z = normal_quantile(p);
	for (size_t d = 0; d < 3; d++)
		qs->t[d] = k >= d + 2 ? st_t_quantile(p, (double)(k - 1 - d))
				      : NAN;
}

/*
 * The floor of the HKSJ variance (pool.h): (z/t)^2 / sum(1 / (u_i + tau^2))
 * with u_i = v_i, or v_t for POOL_HKSJ_WELCH_FLOOR; 1 / sum(w) for the
 * truncated q; 0 for plain HKSJ.  t is the fit's t(k-1).
 */
static double floor_var(const struct pool_host *h, size_t k, size_t skip,
			double tau2, enum pool_scale scale, double z, double t)
{
	double s = 0;

	if (scale == POOL_HKSJ)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (i != skip)
			s += 1 / ((scale == POOL_HKSJ_WELCH_FLOOR ? h[i].v_t
								  : h[i].v) +
				  tau2);
	return (scale == POOL_HKSJ_TRUNCATED ? 1 : (z / t) * (z / t)) / s;
}

/*
 * DerSimonian-Laird, then the HKSJ variance of the weighted mean.  The
 * sums of squares are taken about the weighted mean (two passes), not by
 * the one-pass sum w y^2 - (sum w y)^2 / W, which cancels when the log
 * ratios agree to many digits, as on quiet hosts.
 */
static void fit(const struct pool_host *h, size_t k, size_t skip,
		enum pool_scale scale, double z, double t, struct fit *f)
{
	double w, sw = 0, sw2 = 0, swy = 0, mu_fe, c, ss = 0;

	f->k = 0;
	for (size_t i = 0; i < k; i++) {
		if (i == skip)
			continue;
		w = 1 / h[i].v;
		f->k++;
		sw += w;
		sw2 += w * w;
		swy += w * h[i].y;
	}
	mu_fe = swy / sw;
	f->q = 0;
	for (size_t i = 0; i < k; i++)
		if (i != skip)
			f->q += (h[i].y - mu_fe) * (h[i].y - mu_fe) / h[i].v;
	/* c = 0 only for one host, where Q = 0 too: no spread to estimate. */
	c = sw - sw2 / sw;
	f->tau2 = c > 0 ? fmax(0, (f->q - (double)(f->k - 1)) / c) : 0;

	sw = swy = 0;
	for (size_t i = 0; i < k; i++) {
		if (i == skip)
			continue;
		w = 1 / (h[i].v + f->tau2);
		sw += w;
		swy += w * h[i].y;
	}
	f->mu = swy / sw;
	for (size_t i = 0; i < k; i++)
		if (i != skip)
			ss += (h[i].y - f->mu) * (h[i].y - f->mu) /
			      (h[i].v + f->tau2);
	f->hksj_q = f->k > 1 ? ss / (double)(f->k - 1) : NAN;
	f->se2 = f->k > 1 ? fmax(f->hksj_q / sw, floor_var(h, k, skip, f->tau2,
							   scale, z, t))
			  : NAN;
}

static void set_interval(struct pool_interval *iv, double est, double half)
{
	iv->est = est;
	iv->lo = est - half;
	iv->hi = est + half;
	iv->ratio = exp(iv->est);
	iv->ratio_lo = exp(iv->lo);
	iv->ratio_hi = exp(iv->hi);
}

double pool_sign_p(size_t above, size_t below)
{
	size_t n = above + below, m = above < below ? above : below;

	if (!n)
		return 1;
	/* P(X <= m) for X ~ Bin(n, 1/2) is I_{1/2}(n - m, m + 1). */
	return fmin(1, 2 * st_incbeta((double)(n - m), (double)m + 1, 0.5));
}

int pool_host_from_samples(const double *legacy, size_t nl,
			   const double *optimized, size_t no,
			   struct pool_host *h)
{
	const double *x[2] = { legacy, optimized };
	size_t n[2] = { nl, no };
	double *lg, mean[2], var[2], df;

	if (nl < 2 || no < 2)
		return -EINVAL;
	lg = malloc((nl > no ? nl : no) * sizeof(*lg));
	if (!lg)
		return -ENOMEM;
	for (int m = 0; m < 2; m++) {
		for (size_t i = 0; i < n[m]; i++) {
			if (!(x[m][i] > 0 && isfinite(x[m][i]))) {
				free(lg);
				return -EDOM;
			}
			lg[i] = log(x[m][i]);
		}
		/* statistics.c's two-pass mean and sd: the bench's own numbers. */
		mean[m] = st_mean(lg, n[m]);
		var[m] = st_sd(lg, n[m]) * st_sd(lg, n[m]) / (double)n[m];
	}
	free(lg);
	/* Welch-Satterthwaite, as st_ratio_welch() has it. */
	df = (var[0] + var[1]) * (var[0] + var[1]) /
	     (var[0] * var[0] / (double)(nl - 1) +
	      var[1] * var[1] / (double)(no - 1));
	*h = (struct pool_host){
		.y = mean[0] - mean[1],
		.v = var[0] + var[1],
		.df = isfinite(df) ? df : 0,
		.weight = NAN, .v_t = NAN, .loo_lo = NAN, .loo_hi = NAN,
	};
	return h->v > 0 ? 0 : -EDOM;
}

/*
 * Leave one out, from 4 hosts on: the other k - 1 predict a new host's
 * true log ratio as mu +- t(k-3) * sqrt(tau^2 + se^2).  Host i's y is that
 * plus its own sampling error, so its interval adds v_i: without it, hosts
 * that agree within their noise (tau = 0) would be flagged for that noise
 * alone, the more of them the more hosts predict it.
 */
static void flag_outliers(struct pool_host *h, size_t k,
			  enum pool_scale scale, const struct quantiles *qs,
			  struct pool_result *r)
{
	struct fit f;
	double half;

	for (size_t i = 0; i < k; i++) {
		fit(h, k, i, scale, qs->z, qs->t[1], &f);
		half = qs->t[2] * sqrt(f.tau2 + f.se2 + h[i].v);
		h[i].loo_lo = f.mu - half;
		h[i].loo_hi = f.mu + half;
		h[i].outlier = h[i].y < h[i].loo_lo || h[i].y > h[i].loo_hi;
		r->outliers += h[i].outlier;
	}
}

int pool_combine(struct pool_host *h, size_t k, double level,
		 enum pool_scale scale, struct pool_result *r)
{
	struct quantiles qs;
	double sw = 0;
	struct fit f;

	if (!k || !(level > 0 && level < 1) || scale >= POOL_SCALES)
		return -EINVAL;
	for (size_t i = 0; i < k; i++)
		if (!isfinite(h[i].y) || !(h[i].v > 0 && isfinite(h[i].v)) ||
		    !(h[i].df >= 0))
			return -EDOM;
	*r = (struct pool_result){ .k = k, .scale = scale, .df = (double)k - 1 };
	quantiles(k, level, &qs);
	for (size_t i = 0; i < k; i++) {
		double t = h[i].df > 0 && isfinite(h[i].df) ?
			   t_quantile(1 - (1 - level) / 2, h[i].df, qs.z) :
			   qs.z;

		h[i].v_t = h[i].v * (t / qs.z) * (t / qs.z);
	}
	fit(h, k, k, scale, qs.z, qs.t[0], &f);
	r->tau2 = f.tau2;
	r->tau = sqrt(f.tau2);
	r->tau_factor = exp(r->tau);
	r->q = f.q;
	r->hksj_q = f.hksj_q;
	for (size_t i = 0; i < k; i++) {
		h[i].weight = 1 / (h[i].v + f.tau2);
		sw += h[i].weight;
		h[i].loo_lo = h[i].loo_hi = NAN;
		h[i].outlier = false;
		if (h[i].y > 0)
			r->above++;
		else if (h[i].y < 0)
			r->below++;
		else
			r->ties++;
	}
	for (size_t i = 0; i < k; i++)
		h[i].weight /= sw;
	r->sign_p = pool_sign_p(r->above, r->below);
	set_interval(&r->predict, NAN, NAN);
	if (k < 2) {
		set_interval(&r->mean, f.mu, NAN);
		r->se = r->i2 = NAN;
		return 0;
	}
	r->i2 = f.q > 0 ? fmax(0, (f.q - (double)(k - 1)) / f.q) : 0;
	r->se = sqrt(f.se2);
	set_interval(&r->mean, f.mu, qs.t[0] * r->se);
	if (k >= 3)
		set_interval(&r->predict, f.mu,
			     qs.t[1] * sqrt(f.tau2 + f.se2));
	if (k >= 4)
		flag_outliers(h, k, scale, &qs, r);
	return 0;
}
