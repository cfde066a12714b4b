/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The TAP of the wing's unit tests (test-*.c): one "ok N - ..." or
 * "not ok N - ..." line a check, the plan at the end (tap_done()), and an
 * exit status of 1 when any failed, which make test and bats read.
 */
#ifndef ABPATH_BENCH_TAP_H
#define ABPATH_BENCH_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int tests, failures;

static void __attribute__((format(printf, 2, 3)))
check(int ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failures++;
	printf("%s %d - ", ok ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Relative tolerance, with an absolute floor for values near zero. */
static inline void near(const char *what, double got, double want, double tol)
{
	double err = fabs(got - want);
	int ok = err <= tol * fmax(1, fabs(want));

	check(ok, "%s: got %.17g, want %.17g", what, got, want);
}

/* The plan, a count of the failures if any, and main()'s exit status. */
static inline int tap_done(void)
{
	printf("1..%d\n", tests);
	if (failures)
		printf("# %d of %d failed\n", failures, tests);
	return failures ? 1 : 0;
}

#endif
