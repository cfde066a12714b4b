// SPDX-License-Identifier: GPL-2.0
/*
 * The digits of a printed result (digits.h): out_fmt_sig() at as many
 * significant digits as keep a number on its side of the bounds that
 * the verdict compares it with.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "digits.h"
#include "../output.h"

int report_sig_beside(double x, int sig, const double *b, size_t nb)
{
	char buf[64];
	double shown;
	bool same;

	if (!isfinite(x))
		return sig;
	/* out_fmt_sig() stops at 9 decimals: 17 digits is past that. */
	for (; sig < 17; sig++) {
		out_fmt_sig(buf, sizeof(buf), x, sig);
		shown = strtod(buf, NULL);
		same = true;
		for (size_t i = 0; i < nb && same; i++)
			same = (shown > b[i]) == (x > b[i]) &&
			       (shown < b[i]) == (x < b[i]);
		if (same)
			break;
	}
	return sig;
}

int report_range_sig(double lo, double hi, int sig, const double *b,
		     size_t nb)
{
	int a = report_sig_beside(lo, sig, b, nb);
	int z = report_sig_beside(hi, sig, b, nb);

	return a > z ? a : z;
}

const char *report_fmt_beside(char *buf, size_t len, double x, int sig,
			      const double *b, size_t nb)
{
	return out_fmt_sig(buf, len, x, report_sig_beside(x, sig, b, nb));
}

const char *report_fmt_ratio_ci_beside(char *buf, size_t len, double v,
				       double lo, double hi, const double *b,
				       size_t nb)
{
	double all[8] = { 1 };
	char x[32], y[32], z[32];
	size_t n = 1;

	for (size_t i = 0; i < nb && n < sizeof(all) / sizeof(all[0]); i++)
		all[n++] = b[i];
	report_fmt_beside(x, sizeof(x), v, 3, all, n);
	if (isfinite(lo) && isfinite(hi))
		snprintf(buf, len, "%s (95%% CI %s–%s)", x,
			 report_fmt_beside(y, sizeof(y), lo, 3, all, n),
			 report_fmt_beside(z, sizeof(z), hi, 3, all, n));
	else
		snprintf(buf, len, "%s (no CI)", x);
	return buf;
}

const char *report_fmt_ratio_ci(char *buf, size_t len, double v, double lo,
				double hi)
{
	return report_fmt_ratio_ci_beside(buf, len, v, lo, hi, NULL, 0);
}
