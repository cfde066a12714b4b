/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 2^k factorial A/B: k paths, each legacy or optimized, every one of
 * the 2^k combinations (cells) run once in each of r replicates, each
 * replicate a block in its own random order.  The model, by least squares
 * on the runs that count:
 *
 *   log(value) = block + sum_j b_j x_j + sum_{i<j} b_ij x_i x_j [+ higher]
 *
 * with x_j = +1 when path j is legacy and -1 when optimized.  A main
 * effect as a ratio is exp(2 b_j): legacy over optimized, averaged over
 * the other paths' modes.  A two-way interaction as a ratio is
 * exp(4 b_ij): what both legacy cost over what each alone does,
 * (y_LL / y_OO) / ((y_LO / y_OO) (y_OL / y_OO)); 1 when their costs
 * multiply.  Each coefficient has a t interval on the residual df, and a
 * p that Holm's step-down adjusts over the whole family of effects.
 *
 * Pure functions: no I/O, no global state.  The random order takes its
 * generator from the caller.  tests/tools/factorial-check.py checks the
 * fit against statsmodels, bench/factorial-sim.c by simulation.
 */
#ifndef ABPATH_MATHS_FACTORIAL_H
#define ABPATH_MATHS_FACTORIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "statistics.h"

/* The most paths a factorial takes: 2^4 = 16 cells. */
#define FAC_MAX_K	4
#define FAC_MAX_CELLS	(1 << FAC_MAX_K)
/* The most replicates (blocks). */
#define FAC_MAX_REPS	1000
/* Effects: every nonempty subset of k paths, 2^k - 1. */
#define FAC_MAX_EFFECTS	(FAC_MAX_CELLS - 1)

/*
 * A cell is a bit mask over the k paths: bit j set when path j is legacy.
 * An effect is a mask too: the paths whose product x_i x_j ... it is the
 * coefficient of (one bit: a main effect, two: a two-way interaction).
 */

/* The number of bits set in m: the effect's order. */
int fac_order(unsigned m);

/*
 * The effects of a model up to order @order (1 to k) over k paths, in
 * statsmodels' order (mains, then pairs (0,1), (0,2), ..., then triples):
 * into effects[], returns how many.
 */
int fac_effects(int k, int order, unsigned *effects);

/*
 * The order of r blocks of the 2^k cells, each block a uniformly random
 * permutation (Fisher-Yates), into cells[r * 2^k]; 0 or -EINVAL.
 */
int fac_design(int k, int r, struct st_rng *rng, unsigned *cells);

/*
 * The default replicates for k paths: the fewest r >= 2 for which a main
 * effect's 95% interval, t(df) * 2 sigma / sqrt(r 2^k), is no wider than
 * a one-path bench's of 4 + 4 runs, t(6) * sigma * sqrt(1/4 + 1/4), at
 * the same run-to-run noise sigma (on the logs).
 */
int fac_default_reps(int k);
/* That half-width in units of sigma, for k paths and r replicates. */
double fac_main_halfwidth(int k, int r, int order);
/* The one-path bench's at n + n runs (Welch at equal variances). */
double fac_onepath_halfwidth(int n);

/* One effect of the fit. */
struct fac_effect {
	unsigned mask;
	double coef, se;	/* b and its standard error, on the logs */
	double t, p;		/* t = coef / se, two-sided p on the df */
	double p_holm;		/* p adjusted by Holm over the family */
	double lo, hi;		/* coef's 95% t interval */
	double ratio;		/* exp(2^order b): see above */
	double ratio_lo, ratio_hi;
};

struct fac_fit {
	int k, order, nblocks;
	size_t n;		/* runs in the fit */
	int params;		/* columns: 1 + (blocks - 1) + effects */
	double df;		/* n - params */
	double rss, sigma;	/* residual sum of squares, its sqrt(rss / df) */
	int neffects;
	struct fac_effect e[FAC_MAX_EFFECTS];
	double block[FAC_MAX_REPS];	/* block j's coefficient (0: base) */
	double intercept;
};

/*
 * Fit the model up to @order on n runs: run i in cell[i] (a mask over k
 * paths) and block[i] (0-based, < nblocks), value y[i] > 0, at level
 * (e.g. 0.95).  Blocks with no run are left out of the model.  0, -EINVAL
 * (bad sizes, order), -EDOM (a value <= 0 or not finite), -ERANGE (the
 * design is singular: runs missing so that an effect cannot be told from
 * another or from a block, or no residual df left), -ENOMEM.
 */
int fac_fit(int k, int order, const unsigned *cell, const int *block,
	    int nblocks, const double *y, size_t n, double level,
	    struct fac_fit *f);

/*
 * Holm's step-down over m p-values: adj[i] = max over the j-th smallest
 * p's up to p[i] of min(1, (m - j) p_(j)) (j 0-based).  -ENOMEM or 0.
 */
int fac_holm(const double *p, int m, double *adj);

#endif
