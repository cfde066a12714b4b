/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stopping rule of 'abpath bench --runs auto': after each ABBA block
 * (two more runs of each mode), a look at the ratio of geometric means,
 * legacy/optimized, decides whether to stop.  Pure functions, no I/O and
 * no global state: the bench (run.c), the report and --from (report.c),
 * the simulation (seq-sim.c) and the unit test (test-sequential.c) call
 * the same code with the same looks.
 *
 * The rule, and why (docs/design.md has the reference): a group-sequential
 * design whose looks each spend part of alpha by an O'Brien-Fleming-like
 * spending function (Hwang-Shih-DeCani, gamma -4, over the runs per mode
 * as a fraction of the cap), each look a Welch t interval on the logs at
 * the level its share leaves.  The shares add up to alpha at the cap, so
 * by the union bound the chance that any look's interval misses the true
 * ratio is at most alpha, whatever the looks' correlation: the interval
 * at the look that stopped (or at the last look before a Ctrl-C) is a
 * 1 - alpha interval however the stop came.  The usual recursion for
 * group-sequential boundaries assumes a known variance; with 3 to 30
 * degrees of freedom it does not hold, and the union bound needs only
 * each look's own Welch interval, with its own t quantile and degrees of
 * freedom, to hold its level.  Its price is some width, measured by
 * simulation.
 */
#ifndef ABPATH_SEQUENTIAL_H
#define ABPATH_SEQUENTIAL_H

#include <stdbool.h>
#include <stddef.h>

/* The rule's defaults: the CLI's, the simulation's and the tests'. */
#define SEQ_ALPHA	0.05
#define SEQ_GAMMA	(-4.0)
/* The first look waits for this many runs per mode (Welch's df >= 3). */
#define SEQ_FIRST	4
#define SEQ_DEFAULT_CAP	20
#define SEQ_DEFAULT_MARGIN	0.02

struct seq_rule {
	double alpha;		/* spent in all by the cap */
	double gamma;		/* Hwang-Shih-DeCani spending parameter */
	int first;		/* runs per mode at the first look, even */
	int cap;		/* runs per mode at most, even, >= 2 */
	double margin;		/* "equivalent" within [1/(1+m), 1+m]; 0: none */
	double precision;	/* "precise" at this relative half-width; 0: none */
};

enum seq_stop {
	SEQ_GO_ON,		/* no boundary crossed: another block */
	SEQ_DIFFERENT,		/* the interval excludes 1 */
	SEQ_EQUIVALENT,		/* the interval lies inside the margin */
	SEQ_PRECISE,		/* the interval is as narrow as asked */
	SEQ_CAP,		/* the cap is reached, none of the above */
};
#define SEQ_STOPS	5

/* "continue", "different", "equivalent", "precise", "cap". */
extern const char *const seq_stop_name[SEQ_STOPS];

struct seq_look {
	int look;		/* 1-based */
	int runs;		/* runs per mode made by this look */
	size_t n[2];		/* of them valid: legacy, optimized */
	double alpha;		/* this look's share of alpha */
	double spent;		/* the shares so far, this one included */
	double value;		/* the ratio of geometric means (NaN: none) */
	double lo, hi;		/* at level 1 - alpha (NaN: no interval) */
	double df;		/* Welch-Satterthwaite */
	double half;		/* relative half-width, sqrt(hi / lo) - 1 */
	enum seq_stop stop;
};

/*
 * How far a "different" stop at @runs runs per mode overstates the
 * ratio: conditional on stopping there, the printed ratio is biased away
 * from 1, and this is the largest mean of printed / true - 1 that
 * tests/tools/verdict-table found over true ratios 1.05-1.5 and CVs
 * 2-30% (0.25: on average up to 25% above the true ratio).  For the
 * default rule (cap 20) only; NaN for another rule or a stop never
 * simulated.  The interval is not biased: it holds its level at any stop.
 */
double seq_stop_bias(const struct seq_rule *r, int runs);

/* The defaults, with @cap runs per mode (made even: seq_cap()). */
void seq_rule_default(struct seq_rule *r, int cap);
/* A cap of @max_runs per mode rounded down to a whole block (even). */
int seq_cap(int max_runs);
/* Why the rule cannot be used, or NULL. */
const char *seq_rule_check(const struct seq_rule *r);
/* Whether a look comes after @runs runs per mode. */
bool seq_is_look(const struct seq_rule *r, int runs);
/* The shares of alpha spent by the look at @runs, cumulative. */
double seq_spent(const struct seq_rule *r, int runs);
/*
 * The look after @runs runs per mode (seq_is_look()), over the valid
 * runs x (legacy) and y (optimized) made so far: its interval and whether
 * to stop.  A mode with fewer than two valid runs gives no interval: the
 * look spends its share and goes on (or stops at the cap).  0, -EINVAL
 * (not a look, or a bad rule) or -EDOM (a value <= 0).
 */
int seq_look(const struct seq_rule *r, int runs, const double *x, size_t nx,
	     const double *y, size_t ny, struct seq_look *l);

#endif
