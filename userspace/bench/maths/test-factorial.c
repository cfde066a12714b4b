// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the factorial's maths (maths/factorial.c) that need no
 * reference program: the effects' order, the design, the default
 * replicates, Holm against hand-computed values, a noise-free fit that
 * must return its coefficients, and the errors.  The fit's numbers are
 * held to statsmodels' by tests/tools/factorial-check.py.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "factorial.h"
#include "tap.h"

static void test_effects(void)
{
	unsigned e[FAC_MAX_EFFECTS];
	/* A, B, C, D, AB, AC, AD, BC, BD, CD: statsmodels' (A+B+C+D)**2. */
	static const unsigned want[] = { 1, 2, 4, 8, 3, 5, 9, 6, 10, 12 };
	int n = fac_effects(4, 2, e);

	check(n == 10 && !memcmp(e, want, sizeof(want)),
	      "effects of 4 paths to order 2: 10, in statsmodels' order");
	check(fac_effects(4, 4, e) == 15 && e[14] == 15 && e[10] == 7,
	      "effects of 4 paths to order 4: 15, ABC first of the triples");
	check(fac_effects(2, 1, e) == 2, "effects of 2 paths to order 1: 2");
}

static void test_design(void)
{
	unsigned cells[4 * 16];
	struct st_rng rng;
	int ok = 1, same = 1;

	st_rng_seed(&rng, 7);
	check(!fac_design(4, 4, &rng, cells), "a design of 4 paths, 4 blocks");
	for (int b = 0; b < 4; b++) {
		unsigned seen = 0;

		for (int i = 0; i < 16; i++)
			seen |= 1u << cells[b * 16 + i];
		ok &= seen == 0xffff;
		if (b)
			same &= !memcmp(cells, cells + b * 16,
					16 * sizeof(*cells));
	}
	check(ok, "each block holds each of the 16 cells once");
	check(!same, "the blocks' orders differ");
	check(fac_design(5, 2, &rng, cells) == -EINVAL &&
	      fac_design(2, 0, &rng, cells) == -EINVAL,
	      "5 paths or 0 blocks: -EINVAL");
}

static void test_default_reps(void)
{
	check(fac_default_reps(2) == 3 && fac_default_reps(3) == 2 &&
	      fac_default_reps(4) == 2,
	      "default replicates: 3 for 2 paths, 2 for 3 and 4 (got %d %d %d)",
	      fac_default_reps(2), fac_default_reps(3), fac_default_reps(4));
	near("one-path 4 + 4 half-width, t(6) sqrt(1/2)",
	     fac_onepath_halfwidth(4), 2.4469118511449692 * sqrt(0.5), 1e-9);
	near("4 paths, 2 blocks: t(20) 2 / sqrt(32)",
	     fac_main_halfwidth(4, 2, 2), 2.0859634472658644 * 2 / sqrt(32),
	     1e-9);
	check(fac_main_halfwidth(2, 2, 2) > fac_onepath_halfwidth(4),
	      "2 paths, 2 blocks: wider than 4 + 4 (so the default is 3)");
}

static void test_holm(void)
{
	/* Hand: sorted 0.01 0.02 0.03 0.5 -> 0.04 0.06 0.06 0.5. */
	double p[] = { 0.03, 0.01, 0.5, 0.02 }, adj[4];
	double want[] = { 0.06, 0.04, 0.5, 0.06 };
	int ok = !fac_holm(p, 4, adj);

	for (int i = 0; i < 4; i++)
		ok &= fabs(adj[i] - want[i]) < 1e-15;
	check(ok, "Holm of 0.03 0.01 0.5 0.02: 0.06 0.04 0.5 0.06 (got %g %g "
	      "%g %g)", adj[0], adj[1], adj[2], adj[3]);
	p[0] = 0.04;
	p[1] = 0.03;
	fac_holm(p, 2, adj);
	check(fabs(adj[0] - 0.06) < 1e-15 && fabs(adj[1] - 0.06) < 1e-15,
	      "Holm is monotone: 0.04 0.03 -> 0.06 0.06 (got %g %g)", adj[0],
	      adj[1]);
	p[0] = 0.9;
	p[1] = 0.8;
	fac_holm(p, 2, adj);
	check(adj[0] == 1 && adj[1] == 1, "and capped at 1: 0.9 0.8 -> 1 1");
}

/* A 2^3 design in 3 blocks with exact effects and a tiny, balanced noise. */
static void test_fit(void)
{
	unsigned cell[24];
	int block[24];
	double y[24];
	struct fac_fit f;
	/* b_A = log 2 / 2, b_B = log 1.5 / 2, b_AB = log 1.2 / 4. */
	double bA = log(2) / 2, bB = log(1.5) / 2, bAB = log(1.2) / 4;
	int n = 0, err;

	for (int b = 0; b < 3; b++)
		for (unsigned c = 0; c < 8; c++) {
			double xa = c & 1 ? 1 : -1, xb = c & 2 ? 1 : -1;
			/* +-1e-3, a different sign pattern per block. */
			double e = 1e-3 * ((c + (unsigned)b) % 2 ? 1 : -1) *
				   (c & 4 ? 1 : -1);

			cell[n] = c;
			block[n] = b;
			y[n++] = exp(0.1 * b + bA * xa + bB * xb + bAB * xa * xb + e);
		}
	err = fac_fit(3, 2, cell, block, 3, y, 24, 0.95, &f);
	check(!err, "fit of 24 runs: %d", err);
	check(f.neffects == 6 && f.df == 24 - 1 - 2 - 6,
	      "6 effects, 15 residual df (got %d, %g)", f.neffects, f.df);
	near("A's ratio", f.e[0].ratio, 2, 2e-3);
	near("B's ratio", f.e[1].ratio, 1.5, 2e-3);
	near("C's ratio", f.e[2].ratio, 1, 2e-3);
	near("AB's ratio", f.e[3].ratio, 1.2, 4e-3);
	check(f.e[0].lo < bA && bA < f.e[0].hi && f.e[0].p_holm < 1e-10,
	      "A's interval holds its coefficient, and Holm's p is tiny");
	near("block 2's shift", f.block[2], 0.2, 1e-3);

	/* Without cell 3 (A and B legacy, C optimized) in every block, and
	 * cell 7 too: AB cannot be told from the rest. */
	n = 0;
	for (int i = 0; i < 24; i++)
		if (cell[i] != 3 && cell[i] != 7) {
			cell[n] = cell[i];
			block[n] = block[i];
			y[n++] = y[i];
		}
	check(fac_fit(3, 2, cell, block, 3, y, (size_t)n, 0.95, &f) == -ERANGE,
	      "no run with A and B both legacy: -ERANGE");
	y[0] = 0;
	check(fac_fit(3, 2, cell, block, 3, y, (size_t)n, 0.95, &f) == -EDOM,
	      "a value of 0: -EDOM");
	check(fac_fit(3, 4, cell, block, 3, y, (size_t)n, 0.95, &f) == -EINVAL,
	      "order 4 of 3 paths: -EINVAL");
	/* The first 6 runs are all block 1's: 1 + 6 effects, 7 parameters. */
	check(fac_fit(3, 2, cell, block, 3, y + 1, 6, 0.95, &f) == -ERANGE,
	      "6 runs for 7 parameters: -ERANGE");
}

int main(void)
{
	test_effects();
	test_design();
	test_default_reps();
	test_holm();
	test_fit();
	return tap_done();
}
