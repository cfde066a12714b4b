// SPDX-License-Identifier: GPL-2.0
/*
 * The 2^k factorial's intervals and family-wise error by simulation,
 * through the real design and fit (maths/factorial.c): tests/tools/
 * factorial-sim runs this, and docs/benchmarks.md keeps its table.
 *
 * Each replicate is one factorial bench: r blocks of the 2^k cells, each
 * run's log value its block's shift (normal, sd --block-sd) plus the
 * cell's true effects plus normal noise (sd --sigma).  Two scenarios per
 * design: "null", every effect 0 (the family-wise error: how often any
 * effect's Holm p is below 0.05, i.e. any path or pair is said to
 * differ), and "effects", the first path 2x, the second 1.5x, the first
 * pair 1.2x, the rest 1 (each effect's interval's coverage).  Beside
 * them, the efficiency: the mean width of a main effect's interval over
 * that of one of k one-path benches sharing the same runs, each n + n
 * runs with n = r 2^k / 2k (rounded to the nearest; the row says n), by Welch's t
 * on the logs as the single bench does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "factorial.h"
#include "simopts.h"
#include "statistics.h"

struct design {
	int k, r, order;
};

static const struct design dflt_designs[] = {
	{ 2, 3, 2 }, { 3, 2, 2 }, { 4, 2, 2 }, { 4, 3, 2 }, { 4, 2, 4 },
};

/* True coefficients on the logs, by effect mask (see the header). */
static void truth(int k, bool effects, double *beta)
{
	memset(beta, 0, sizeof(double) * FAC_MAX_CELLS);
	if (!effects)
		return;
	beta[1] = log(2.0) / 2;
	beta[2] = log(1.5) / 2;
	beta[3] = log(1.2) / 4;
	(void)k;
}

struct tally {
	size_t reps, any_holm, fails;
	size_t covered[FAC_MAX_EFFECTS];
	double width_main, width_one;	/* sums, on the log-ratio scale */
	size_t n_main, n_one;
};

static int one_factorial(struct st_rng *rng, const struct design *d,
			 const double *beta, double sigma, double block_sd,
			 unsigned *cell, int *block, double *y,
			 struct fac_fit *f, struct tally *t)
{
	int c = 1 << d->k, n = d->r * c, err;
	bool any = false;

	err = fac_design(d->k, d->r, rng, cell);
	if (err)
		return err;
	for (int b = 0; b < d->r; b++) {
		double shift = block_sd * st_rng_normal(rng);

		for (int i = 0; i < c; i++) {
			int j = b * c + i;
			double ly = shift + sigma * st_rng_normal(rng);

			for (unsigned m = 1; m < (unsigned)c; m++) {
				double x = 1;

				if (!beta[m])
					continue;
				for (int p = 0; p < d->k; p++)
					if (m & (1u << p))
						x *= cell[j] & (1u << p) ? 1 : -1;
				ly += beta[m] * x;
			}
			block[j] = b;
			y[j] = exp(ly);
		}
	}
	err = fac_fit(d->k, d->order, cell, block, d->r, y, (size_t)n, 0.95,
		      f);
	if (err)
		return err;
	for (int e = 0; e < f->neffects; e++) {
		const struct fac_effect *x = &f->e[e];
		double b = beta[x->mask];

		t->covered[e] += x->lo <= b && b <= x->hi;
		any |= x->p_holm < 0.05;
		if (fac_order(x->mask) == 1) {
			t->width_main += 2 * (x->hi - x->lo);
			t->n_main++;
		}
	}
	t->any_holm += any;
	t->reps++;
	return 0;
}

/* One of the k one-path benches of the same runs: n + n, Welch on logs. */
static void one_path(struct st_rng *rng, int n, double sigma, double *x,
		     double *z, struct tally *t)
{
	struct st_ratio q;

	for (int i = 0; i < n; i++) {
		x[i] = 2 * exp(sigma * st_rng_normal(rng));
		z[i] = exp(sigma * st_rng_normal(rng));
	}
	if (st_ratio_welch(x, (size_t)n, z, (size_t)n, 0.95, &q))
		return;
	t->width_one += log(q.hi) - log(q.lo);
	t->n_one++;
}

static void usage(FILE *f)
{
	fputs("usage: factorial-sim [--reps N] [--seed S] [--sigma S] "
	      "[--block-sd S]\n"
	      "                     [--design K:R:ORDER ...] [--min-cov C] "
	      "[--max-cov C]\n"
	      "                     [--max-fwer F]\n"
	      "Per design (default 2:3:2 3:2:2 4:2:2 4:3:2 4:2:4; 20,000 reps "
	      "each, seed 1,\n"
	      "noise 0.05 and block shifts 0.05 on the logs): the coverage "
	      "of each effect's\n"
	      "95% interval with effects (2x, 1.5x, a 1.2x pair), the "
	      "family-wise error\n"
	      "(any Holm p < 0.05) with none, and a main effect's interval "
	      "width over a\n"
	      "one-path bench's of the same runs.  Exits 1 when a coverage "
	      "lies outside\n"
	      "[--min-cov, --max-cov] (0.94, 0.96) or the family-wise error "
	      "is above\n"
	      "--max-fwer (0.05).\n", f);
}

/* --design K:R:ORDER, one more design to run; at most 16. */
struct designs {
	struct design d[16];
	int n;
};

static bool parse_design(const char *arg, void *val)
{
	struct designs *ds = val;
	struct design *d = &ds->d[ds->n];

	if (ds->n >= 16 || sscanf(arg, "%d:%d:%d", &d->k, &d->r,
				  &d->order) != 3 ||
	    d->k < 2 || d->k > FAC_MAX_K || d->r < 2 || d->r > 100 ||
	    d->order < 1 || d->order > d->k) {
		fprintf(stderr, "factorial-sim: bad --design '%s': K:R:ORDER, "
			"K 2-4, R 2-100\n", arg);
		return false;
	}
	ds->n++;
	return true;
}

int main(int argc, char **argv)
{
	struct designs designs = { .n = 0 };
	int bad = 0, cells = 0, rc;
	long reps = 20000;
	unsigned long long seed = 1;
	double sigma = 0.05, block_sd = 0.05, min_cov = 0.94, max_cov = 0.96;
	double max_fwer = 0.05;
	const struct sim_opt opts[] = {
		{ "reps", SIM_LONG, &reps, NULL },
		{ "seed", SIM_SEED, &seed, NULL },
		{ "sigma", SIM_DOUBLE, &sigma, NULL },
		{ "block-sd", SIM_DOUBLE, &block_sd, NULL },
		{ "design", SIM_PARSE, &designs, parse_design },
		{ "min-cov", SIM_DOUBLE, &min_cov, NULL },
		{ "max-cov", SIM_DOUBLE, &max_cov, NULL },
		{ "max-fwer", SIM_DOUBLE, &max_fwer, NULL },
	};
	struct st_rng rng;
	struct fac_fit *f = malloc(sizeof(*f));
	unsigned *cell = malloc(sizeof(unsigned) * FAC_MAX_CELLS * FAC_MAX_REPS);
	int *block = malloc(sizeof(int) * FAC_MAX_CELLS * FAC_MAX_REPS);
	double *y = malloc(sizeof(double) * FAC_MAX_CELLS * FAC_MAX_REPS);

	if (!f || !cell || !block || !y)
		return 2;
	rc = sim_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage);
	if (rc >= 0)
		return rc;
	if (reps < 100 || !(sigma > 0) || !(block_sd >= 0)) {
		fputs("factorial-sim: --reps 100 or more, --sigma above 0\n",
		      stderr);
		return 2;
	}
	if (!designs.n) {
		designs.n = (int)(sizeof(dflt_designs) / sizeof(dflt_designs[0]));
		memcpy(designs.d, dflt_designs, sizeof(dflt_designs));
	}
	st_rng_seed(&rng, seed);
	printf("# %ld replicates a cell, seed %llu, noise sd %g and block sd %g "
	       "on the logs\n", reps, seed, sigma, block_sd);
	printf("# design k:r:order; runs; df; FWER (null: any Holm p < 0.05); "
	       "coverage per effect (effects: path 1 2x, path 2 1.5x, pair "
	       "1x2 1.2x); width ratio vs one-path n+n\n");
	for (int di = 0; di < designs.n; di++) {
		const struct design *d = &designs.d[di];
		struct tally tn = { 0 }, te = { 0 };
		double beta[FAC_MAX_CELLS], fwer;
		int runs = d->r << d->k, n1 = (runs + d->k) / (2 * d->k);
		unsigned eff[FAC_MAX_EFFECTS];
		int ne = fac_effects(d->k, d->order, eff);
		bool fail = false;
		char line[1024];
		size_t used = 0;

		for (long i = 0; i < reps; i++) {
			truth(d->k, false, beta);
			if (one_factorial(&rng, d, beta, sigma, block_sd, cell,
					  block, y, f, &tn))
				return 2;
			truth(d->k, true, beta);
			if (one_factorial(&rng, d, beta, sigma, block_sd, cell,
					  block, y, f, &te))
				return 2;
			for (int p = 0; p < d->k && n1 >= 2; p++)
				one_path(&rng, n1, sigma, y,
					 y + FAC_MAX_CELLS * FAC_MAX_REPS / 2,
					 &te);
		}
		fwer = (double)tn.any_holm / (double)tn.reps;
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "%d:%d:%d runs %d df %g FWER %.4f%s; "
					 "coverage", d->k, d->r, d->order,
					 runs, f->df, fwer,
					 fwer > max_fwer ? " <- above" : "");
		fail |= fwer > max_fwer;
		for (int e = 0; e < ne; e++) {
			double cov = (double)te.covered[e] / (double)te.reps;
			double cn = (double)tn.covered[e] / (double)tn.reps;
			char name[8] = "";

			for (int p = 0, q = 0; p < d->k; p++)
				if (eff[e] & (1u << p))
					name[q++] = (char)('A' + p), name[q] = 0;
			used += (size_t)snprintf(line + used,
						 sizeof(line) - used,
						 " %s %.4f/%.4f%s", name, cov, cn,
						 cov < min_cov || cov > max_cov ||
						 cn < min_cov || cn > max_cov ?
						 " <- outside" : "");
			fail |= cov < min_cov || cov > max_cov ||
				cn < min_cov || cn > max_cov;
		}
		if (te.n_one)
			used += (size_t)snprintf(line + used,
						 sizeof(line) - used,
						 "; width ratio %.3f vs %d+%d",
						 (te.width_main / te.n_main) /
						 (te.width_one / te.n_one), n1, n1);
		printf("%s\n", line);
		bad += fail;
		cells++;
	}
	printf("%s: %d of %d designs fail (coverage effects/null outside "
	       "%.4f-%.4f, or FWER above %.4f)\n", bad ? "FAIL" : "PASS", bad,
	       cells, min_cov, max_cov, max_fwer);
	free(f);
	free(cell);
	free(block);
	free(y);
	return bad ? 1 : 0;
}
