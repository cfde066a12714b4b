/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The experiments of 'abpath bench --suite history' (suite.c runs them)
 * and how each one is shown (tables.c prints the Markdown tables and
 * plots), in one table: suite_history[] in experiments.c.
 */
#ifndef ABPATH_BENCH_EXPERIMENTS_H
#define ABPATH_BENCH_EXPERIMENTS_H

#include <stdbool.h>

#define SUITE_MAX_POINTS	12
#define SUITE_MAX_COLS		14

/* A number per measured run, from the run's sample in the bench JSON. */
enum suite_metric_kind {
	SM_VALUE,	/* the workload's "value" */
	SM_RESULT,	/* results.<a>, or results.<b> where that is null */
	SM_RESULT_IN,	/* results.<a>.<b> */
	SM_COUNTERS,	/* counters.<path>.<a> / counters.<path>.<b>; a name
			 * "x+y" is the sum of two counters */
};

struct suite_metric {
	enum suite_metric_kind kind;
	const char *a, *b;
};

/* A table column, after the parameter's. */
enum suite_col_kind {
	SC_GMEAN,	/* geometric mean of the metric over one mode's runs */
	SC_MEAN,	/* arithmetic mean: for counts that may be 0 */
	SC_PER_HZ,	/* that mean / HZ (the workload's results.hz) */
	SC_RATIO_CI,	/* legacy/optimized, geometric means, Welch 95% CI */
	SC_P,		/* two-sided exact Mann-Whitney p, legacy vs optimized */
	SC_PER_CALL,	/* sum of counter a / sum of counter b, one mode */
	SC_FLAGGED,	/* "k/n": measured runs of both modes whose
			 * results.<m.a> is true, of those that have it */
	SC_STALLS,	/* RCU stalls kept with one mode's runs, warm-ups
			 * too (kernel_reports, kmsg.h): "k in r/n runs" */
};

struct suite_col {
	const char *head;
	enum suite_col_kind kind;
	int mode;			/* enum bench_mode, where it applies */
	struct suite_metric m;		/* SC_PER_CALL: m.a / m.b */
	double scale;			/* SC_GMEAN, SC_PER_CALL: times this
					 * (0: 1), for the unit in the head */
};

/*
 * The source's own figure at one point of the sweep, as the table's
 * "source" column shows it: its legacy/optimized (before/after,
 * unfixed/fixed) ratio from its own numbers, or a word where it measured
 * something that is not a ratio.
 */
struct suite_source {
	const char *param, *figure;
};

struct suite_exp {
	const char *id;		/* "experiment" in the JSON, DIR/<id>.json */
	const char *path, *workload;
	const char *title;	/* after "### <path>: " */
	const char *reproduces;	/* the historical source, no numbers */
	/*
	 * The source by subject line, commit or message id, its own numbers,
	 * and what the source column holds; the column itself is
	 * source[], a figure per point it has ("–" at the others).
	 */
	const char *published;
	struct suite_source source[SUITE_MAX_POINTS];	/* param NULL ends */
	const char *note;	/* under the table: what the columns are */
	/* The table's primary metric, as in the JSON and on the plot. */
	const char *metric, *unit;
	bool lower_is_better;
	struct suite_metric primary;
	const char *param_name;
	bool numeric;		/* the parameter is a number in the JSON */
	const char *params[SUITE_MAX_POINTS];	/* NULL-terminated */
	const char *quick_params[SUITE_MAX_POINTS];
	const char *args, *quick_args;	/* a word "@" is the parameter */
	/*
	 * head NULL ends.  The first SC_RATIO_CI is the experiment's
	 * headline, the one cell a table across results shows per point.
	 */
	struct suite_col cols[SUITE_MAX_COLS];
};

extern const struct suite_exp suite_history[];
extern const int suite_nr_history;

/* The definition of an experiment id, or NULL. */
const struct suite_exp *suite_find_exp(const char *id);
/* The source's figure at a point (the parameter as text), or NULL. */
const char *suite_source_at(const struct suite_exp *e, const char *param);

#endif
