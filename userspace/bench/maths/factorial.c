// SPDX-License-Identifier: GPL-2.0
/*
 * The 2^k factorial's design and fit (factorial.h).  The least squares go
 * through a Householder QR of the design matrix rather than the normal
 * equations: with invalid runs left out the design is no longer
 * orthogonal, and QR keeps the digits that X'X squares away, which is
 * what lets factorial-check.py hold the fit to statsmodels' at 1e-9.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "factorial.h"

int fac_order(unsigned m)
{
	int n = 0;

	for (; m; m &= m - 1)
		n++;
	return n;
}

int fac_effects(int k, int order, unsigned *effects)
{
	int n = 0;

	/*
	 * statsmodels names A:B before A:C before B:C: by order, then by
	 * the lowest path, then the next: the masks' bit-reversed order.
	 */
	for (int o = 1; o <= order; o++) {
		unsigned list[FAC_MAX_CELLS];
		int c = 0;

		for (unsigned m = 1; m < (1u << k); m++)
			if (fac_order(m) == o)
				list[c++] = m;
		for (int i = 1; i < c; i++)
			for (int j = i; j > 0; j--) {
				unsigned a = list[j - 1], b = list[j];
				unsigned d = a ^ b, low = d & -d;

				/* The lowest differing bit: who has it sorts first. */
				if (a & low)
					break;
				list[j - 1] = b;
				list[j] = a;
			}
		for (int i = 0; i < c; i++)
			effects[n++] = list[i];
	}
	return n;
}

int fac_design(int k, int r, struct st_rng *rng, unsigned *cells)
{
	int c = 1 << k;

	if (k < 1 || k > FAC_MAX_K || r < 1 || r > FAC_MAX_REPS)
		return -EINVAL;
	for (int b = 0; b < r; b++) {
		unsigned *blk = cells + (size_t)b * c;

		for (int i = 0; i < c; i++)
			blk[i] = (unsigned)i;
		for (int i = c - 1; i > 0; i--) {
			int j = (int)st_rng_below(rng, (uint64_t)i + 1);
			unsigned t = blk[i];

			blk[i] = blk[j];
			blk[j] = t;
		}
	}
	return 0;
}

/* Parameters of the model: intercept, r - 1 blocks, the effects. */
static int model_params(int k, int r, int order)
{
	unsigned e[FAC_MAX_EFFECTS];

	return 1 + (r - 1) + fac_effects(k, order, e);
}

double fac_main_halfwidth(int k, int r, int order)
{
	int n = r << k;
	double df = n - model_params(k, r, order);

	if (df < 1)
		return INFINITY;
	/* 2 b_j's variance is 4 sigma^2 / n in the balanced design. */
	return st_t_quantile(0.975, df) * 2 / sqrt((double)n);
}

double fac_onepath_halfwidth(int n)
{
	return st_t_quantile(0.975, 2.0 * n - 2) * sqrt(2.0 / n);
}

int fac_default_reps(int k)
{
	double ref = fac_onepath_halfwidth(4);

	for (int r = 2; r < FAC_MAX_REPS; r++)
		if (fac_main_halfwidth(k, r, 2 < k ? 2 : k) <= ref)
			return r;
	return FAC_MAX_REPS;
}

int fac_holm(const double *p, int m, double *adj)
{
	int *idx = malloc(((size_t)m + 1) * sizeof(*idx));
	double run = 0;

	if (!idx)
		return -ENOMEM;
	for (int i = 0; i < m; i++)
		idx[i] = i;
	/* Insertion sort by p, ties by index: m is at most 15. */
	for (int i = 1; i < m; i++)
		for (int j = i; j > 0 && p[idx[j - 1]] > p[idx[j]]; j--) {
			int t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int j = 0; j < m; j++) {
		double a = (m - j) * p[idx[j]];

		if (a > 1)
			a = 1;
		if (a > run)
			run = a;
		adj[idx[j]] = run;
	}
	free(idx);
	return 0;
}

/*
 * Householder QR of the n x p matrix a (column-major, a[j * n + i]) in
 * place, R on and above the diagonal, the reflectors below with their
 * leading components in beta; y gets Q'y.  -ERANGE when a column is
 * (numerically) in the span of those before it.
 */
static int qr_solve(double *a, size_t n, int p, double *y, double *diag)
{
	double scale = 0;

	for (int j = 0; j < p; j++)
		for (size_t i = 0; i < n; i++)
			if (fabs(a[j * n + i]) > scale)
				scale = fabs(a[j * n + i]);
	for (int j = 0; j < p; j++) {
		double *c = a + (size_t)j * n, norm = 0, alpha, vnorm2 = 0;

		for (size_t i = (size_t)j; i < n; i++)
			norm += c[i] * c[i];
		norm = sqrt(norm);
		if (norm <= 1e-10 * scale * sqrt((double)n))
			return -ERANGE;
		alpha = c[j] > 0 ? -norm : norm;
		/* v = c[j..] - alpha e_j, kept in c[j..]; R_jj = alpha. */
		c[j] -= alpha;
		for (size_t i = (size_t)j; i < n; i++)
			vnorm2 += c[i] * c[i];
		for (int l = j + 1; l <= p; l++) {
			double *d = l < p ? a + (size_t)l * n : y, s = 0;

			for (size_t i = (size_t)j; i < n; i++)
				s += c[i] * d[i];
			s = 2 * s / vnorm2;
			for (size_t i = (size_t)j; i < n; i++)
				d[i] -= s * c[i];
		}
		diag[j] = alpha;
	}
	return 0;
}

int fac_fit(int k, int order, const unsigned *cell, const int *block,
	    int nblocks, const double *y, size_t n, double level,
	    struct fac_fit *f)
{
	unsigned eff[FAC_MAX_EFFECTS];
	int ne, p, used = 0, *bcol = NULL, ret = 0;
	double *a = NULL, *ly = NULL, *diag = NULL, *rinv = NULL, tq;
	double praw[FAC_MAX_EFFECTS] = { 0 }, padj[FAC_MAX_EFFECTS];

	if (k < 1 || k > FAC_MAX_K || order < 1 || order > k ||
	    nblocks < 1 || nblocks > FAC_MAX_REPS || !(level > 0 && level < 1))
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	ne = fac_effects(k, order, eff);
	bcol = malloc((size_t)nblocks * sizeof(*bcol));
	if (!bcol)
		return -ENOMEM;
	/* A block's column, or -1 for the first block seen (the base) or none. */
	for (int b = 0; b < nblocks; b++)
		bcol[b] = -2;
	for (size_t i = 0; i < n; i++) {
		if (block[i] < 0 || block[i] >= nblocks ||
		    cell[i] >= (1u << k)) {
			ret = -EINVAL;
			goto out;
		}
		if (!(y[i] > 0) || !isfinite(y[i])) {
			ret = -EDOM;
			goto out;
		}
	}
	for (int b = 0; b < nblocks; b++)
		for (size_t i = 0; i < n; i++)
			if (block[i] == b) {
				bcol[b] = used++ ? used - 1 : -1;
				break;
			}
	p = 1 + (used - 1) + ne;
	if ((double)n <= p) {
		ret = -ERANGE;
		goto out;
	}
	a = calloc(n * (size_t)p, sizeof(*a));
	ly = malloc(n * sizeof(*ly));
	diag = malloc((size_t)p * sizeof(*diag));
	rinv = calloc((size_t)p * (size_t)p, sizeof(*rinv));
	if (!a || !ly || !diag || !rinv) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ly[i] = log(y[i]);
		a[i] = 1;
		if (bcol[block[i]] >= 0)
			a[(size_t)bcol[block[i]] * n + i] = 1;
		for (int e = 0; e < ne; e++) {
			double x = 1;

			for (int j = 0; j < k; j++)
				if (eff[e] & (1u << j))
					x *= cell[i] & (1u << j) ? 1 : -1;
			a[(size_t)(used + e) * n + i] = x;
		}
	}
	ret = qr_solve(a, n, p, ly, diag);
	if (ret)
		goto out;
	/* R^-1, upper triangular, by back substitution column by column. */
	for (int j = 0; j < p; j++) {
		rinv[(size_t)j * p + j] = 1 / diag[j];
		for (int i = j - 1; i >= 0; i--) {
			double s = 0;

			for (int l = i + 1; l <= j; l++)
				s += a[(size_t)l * n + i] * rinv[(size_t)j * p + l];
			rinv[(size_t)j * p + i] = -s / diag[i];
		}
	}
	f->k = k;
	f->order = order;
	f->nblocks = used;
	f->n = n;
	f->params = p;
	f->df = (double)n - p;
	for (size_t i = (size_t)p; i < n; i++)
		f->rss += ly[i] * ly[i];
	f->sigma = sqrt(f->rss / f->df);
	tq = st_t_quantile(1 - (1 - level) / 2, f->df);
	/* The coefficients: R b = Q'y. */
	{
		double b[FAC_MAX_EFFECTS + FAC_MAX_REPS + 1];

		for (int i = p - 1; i >= 0; i--) {
			double s = ly[i];

			for (int l = i + 1; l < p; l++)
				s -= a[(size_t)l * n + i] * b[l];
			b[i] = s / diag[i];
		}
		f->intercept = b[0];
		for (int bl = 0; bl < nblocks; bl++)
			f->block[bl] = bcol[bl] >= 0 ? b[bcol[bl]] : 0;
		f->neffects = ne;
		for (int e = 0; e < ne; e++) {
			struct fac_effect *x = &f->e[e];
			int c = used + e;
			double v = 0, w = (double)(1u << fac_order(eff[e]));

			/* (X'X)^-1 = R^-1 R^-T: row c of R^-1 squared. */
			for (int l = c; l < p; l++)
				v += rinv[(size_t)l * p + c] * rinv[(size_t)l * p + c];
			x->mask = eff[e];
			x->coef = b[c];
			x->se = f->sigma * sqrt(v);
			x->t = x->coef / x->se;
			x->p = 2 * st_t_cdf(-fabs(x->t), f->df);
			x->lo = x->coef - tq * x->se;
			x->hi = x->coef + tq * x->se;
			x->ratio = exp(w * x->coef);
			x->ratio_lo = exp(w * x->lo);
			x->ratio_hi = exp(w * x->hi);
			praw[e] = x->p;
		}
	}
	ret = fac_holm(praw, ne, padj);
	if (!ret)
		for (int e = 0; e < ne; e++)
			f->e[e].p_holm = padj[e];
out:
	free(bcol);
	free(a);
	free(ly);
	free(diag);
	free(rinv);
	return ret;
}
