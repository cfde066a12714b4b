// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for sequential.c, the stopping rule of 'abpath bench --runs
 * auto', run by 'make -C userspace test-sequential'.  Prints TAP and
 * exits 1 if any check fails.  The spending function is checked against
 * its closed form written out again here, each look's interval against
 * statistics.c's Welch interval at the look's level, and each boundary
 * on runs made to cross it.  Its error rates are seq-sim.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sequential.h"
#include "statistics.h"
#include "tap.h"

/* Hwang-Shih-DeCani, as the paper writes it. */
static double hsd(double alpha, double gamma, double t)
{
	return alpha * (1 - exp(-gamma * t)) / (1 - exp(-gamma));
}

static void test_schedule(void)
{
	struct seq_rule r;
	int looks[16], n = 0;
	double sum = 0, prev = 0;

	check(seq_cap(7) == 6 && seq_cap(20) == 20 && seq_cap(2) == 2 &&
	      seq_cap(3) == 2, "an odd cap is rounded down to a whole block");
	seq_rule_default(&r, 20);
	check(!seq_rule_check(&r), "the default rule is valid");
	for (int runs = 0; runs <= 24; runs++)
		if (seq_is_look(&r, runs))
			looks[n++] = runs;
	check(n == 9 && looks[0] == 4 && looks[8] == 20,
	      "cap 20: 9 looks, at 4, 6, ..., 20 runs per mode (got %d, "
	      "%d to %d)", n, looks[0], looks[n - 1]);
	near("cap 20: spent by the first look (HSD, gamma -4, t 0.2)",
	     seq_spent(&r, 4), hsd(0.05, -4, 0.2), 1e-14);
	near("cap 20: spent by the look at 10 runs", seq_spent(&r, 10),
	     hsd(0.05, -4, 0.5), 1e-14);
	near("cap 20: all of alpha by the cap", seq_spent(&r, 20), 0.05, 0);
	for (int i = 0; i < n; i++) {
		sum += seq_spent(&r, looks[i]) - prev;
		prev = seq_spent(&r, looks[i]);
	}
	near("the looks' shares add up to alpha", sum, 0.05, 1e-15);
	seq_rule_default(&r, 2);
	check(seq_is_look(&r, 2) && !seq_is_look(&r, 4),
	      "cap 2: one look, at 2 runs per mode");
	seq_rule_default(&r, 7);
	check(r.cap == 6 && seq_is_look(&r, 4) && seq_is_look(&r, 6) &&
	      !seq_is_look(&r, 2) && !seq_is_look(&r, 7),
	      "cap 7: looks at 4 and 6 runs per mode");
	seq_rule_default(&r, 20);
	r.precision = -0.05;
	check(seq_rule_check(&r) != NULL, "a negative precision is refused");
	seq_rule_default(&r, 20);
	r.cap = 0;
	check(seq_rule_check(&r) != NULL, "a cap of 0 is refused");
	seq_rule_default(&r, 20);
	r.margin = 1;
	check(seq_rule_check(&r) != NULL, "a margin of 100%% is refused");
}

static void test_looks(void)
{
	static const double x2[] = { 2.02, 1.98, 2.05, 1.96, 2.01, 1.99 };
	static const double y1[] = { 1.01, 0.99, 1.02, 0.98, 1.00, 1.00 };
	static const double a[] = { 1.001, 0.999, 1.0005, 0.9995, 1.0002, 0.9998 };
	static const double b[] = { 0.9995, 1.0004, 0.9998, 1.0003, 1.0001, 0.9999 };
	static const double wide_x[] = { 1.2, 0.8, 1.1, 0.9 };
	static const double wide_y[] = { 0.85, 1.15, 0.95, 1.05 };
	static const double zero[] = { 1, 0, 1, 1 };
	struct seq_rule r;
	struct seq_look l;
	struct st_ratio q;
	int ret;

	seq_rule_default(&r, 20);
	/* Each look before its check: the message reads l too. */
	ret = seq_look(&r, 4, x2, 4, y1, 4, &l);
	check(ret == 0 && l.look == 1 && l.stop == SEQ_DIFFERENT,
	      "2x apart at 4 runs per mode: look 1 stops, 'different' (%s)",
	      seq_stop_name[l.stop]);
	st_ratio_welch(x2, 4, y1, 4, 1 - l.alpha, &q);
	near("the look's interval is Welch's at level 1 - its share: low",
	     l.lo, q.lo, 1e-15);
	near("... high", l.hi, q.hi, 1e-15);
	near("... its df", l.df, q.df, 1e-15);
	near("the relative half-width is sqrt(hi/lo) - 1", l.half,
	     sqrt(q.hi / q.lo) - 1, 1e-15);
	check(l.lo > 1 && seq_look(&r, 6, x2, 6, y1, 6, &l) == 0 &&
	      l.look == 2, "the look at 6 runs per mode is look 2");
	ret = seq_look(&r, 6, a, 6, b, 6, &l);
	check(ret == 0 && l.stop == SEQ_EQUIVALENT && l.lo > 1 / 1.02 &&
	      l.hi < 1.02,
	      "0.05%% noise, equal modes: 'equivalent' within 2%% (%.5f-%.5f)",
	      l.lo, l.hi);
	r.margin = 0;
	check(seq_look(&r, 6, a, 6, b, 6, &l) == 0 && l.stop == SEQ_GO_ON,
	      "without a margin or a precision the same runs go on");
	r.precision = 0.01;
	ret = seq_look(&r, 6, a, 6, b, 6, &l);
	check(ret == 0 && l.stop == SEQ_PRECISE,
	      "with a precision of 1%%: 'precise' (half-width %.5f)", l.half);
	seq_rule_default(&r, 4);
	check(seq_look(&r, 4, wide_x, 4, wide_y, 4, &l) == 0 &&
	      l.stop == SEQ_CAP && l.lo < 1 && l.hi > 1,
	      "at the cap, no boundary crossed: 'cap'");
	near("the look at the cap spends the rest of alpha", l.spent, 0.05, 0);
	seq_rule_default(&r, 20);
	check(seq_look(&r, 4, wide_x, 1, wide_y, 4, &l) == 0 &&
	      isnan(l.lo) && l.stop == SEQ_GO_ON && l.n[0] == 1,
	      "one valid run of a mode: no interval, the look goes on");
	check(seq_look(&r, 4, zero, 4, y1, 4, &l) == -EDOM,
	      "a value of 0 is -EDOM");
	check(seq_look(&r, 5, x2, 5, y1, 5, &l) == -EINVAL &&
	      seq_look(&r, 2, x2, 2, y1, 2, &l) == -EINVAL,
	      "no look inside a block or before the first look");
}

int main(void)
{
	test_schedule();
	test_looks();
	return tap_done();
}
