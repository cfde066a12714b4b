/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many digits a number of the bench's results is printed with: its
 * measurements at SIG significant digits, ratios and intervals at as
 * many as they need to show which side of 1 (or of a margin) they lie
 * on.  For every file that prints a result, report.c's and the
 * stopping rule's (adaptive.c), the pool's (pooled.c) and the exports;
 * it knows nothing of a bench.
 */
#ifndef ABPATH_BENCH_DIGITS_H
#define ABPATH_BENCH_DIGITS_H

#include <stddef.h>

/* Significant digits of measurements in the text output. */
#define SIG 4

/*
 * The significant digits, sig or more, that x needs for its printed value
 * to lie on the same side of each of the nb bounds b as x does (equal to
 * one only if x is): an interval that excludes 1 is never printed as
 * "1.00–1.20", nor one inside a margin of 2% as "0.980–1.01".
 */
int report_sig_beside(double x, int sig, const double *b, size_t nb);
/* The digits both ends of an interval need, for out_range(). */
int report_range_sig(double lo, double hi, int sig, const double *b,
		     size_t nb);
/* x at report_sig_beside()'s digits, into buf. */
const char *report_fmt_beside(char *buf, size_t len, double x, int sig,
			      const double *b, size_t nb);
/*
 * "2.11 (95% CI 1.90–2.34)", or without the CI when there is none; each
 * number with 3 significant digits or as many more as it needs to show
 * which side of 1 it lies on.
 */
const char *report_fmt_ratio_ci(char *buf, size_t len, double v, double lo,
				double hi);
/* The same, beside the bounds b as well as 1. */
const char *report_fmt_ratio_ci_beside(char *buf, size_t len, double v,
				       double lo, double hi, const double *b,
				       size_t nb);

#endif
