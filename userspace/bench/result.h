/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bench's result in memory: its runs (samples) and what they were
 * of, as a running bench records them (run.c) and as a saved result is
 * read back (result.c, for --from, --pool and a suite's tables).  What
 * reads a result needs this and the statistics, never the runner.
 */
#ifndef ABPATH_BENCH_RESULT_H
#define ABPATH_BENCH_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "../control.h"
#include "../kmsg.h"

struct bench_opts;
struct json_t;

/* The modes in the order of the enum: index into bench_mode_name. */
enum bench_mode { BENCH_LEGACY, BENCH_OPTIMIZED };
extern const char *const bench_mode_name[2];

struct bench_sample {
	int index;		/* 1-based, execution order */
	enum bench_mode mode;
	bool warmup;
	double value;
	struct json_t *counters;	/* {path: {counter: delta or null}} */
	struct json_t *results;		/* the workload's "results" */
	/*
	 * NULL, or the kernel's reports that came with the run and were the
	 * legacy arm's collapse: {rcu_stalls_starved, from_s, to_s}.
	 */
	struct json_t *kernel_reports;
	/*
	 * "" for a run that measured the mode it was meant to, else why
	 * not: the watchdog sent a benched path back to optimized, a
	 * cross-check disagreed, or the mode was not the one benched at
	 * the end.  Such a run is kept and shown, but in no statistic.
	 */
	char invalid[256];
	/*
	 * A factorial's run: its replicate (block, 0-based; -1 for a
	 * warm-up) and its cell, bit j set when fac_path[j] was legacy.
	 */
	int block;
	unsigned cell;
};

struct bench {
	const struct bench_opts *o;
	struct ctl_paths paths;		/* the path(s) being switched */
	int total;			/* runs in all, warm-ups included */
	int done;			/* samples recorded */
	/*
	 * s's length: total for a bench that runs, the samples present for
	 * one read back (an interrupted file has fewer than its total).
	 */
	int slots;
	struct bench_sample *s;
	/* From the workload's first report. */
	char *workload_name, *metric, *unit;
	bool lower_is_better;
	int restore_err;		/* 1 if a mode could not be restored */
	int stop_sig;			/* the signal that interrupted, or 0 */
	bool incomplete;		/* interrupted, here or in the file */
	struct json_t *provenance;	/* bench_provenance(), or the file's */
	struct kmsg kmsg;		/* the kernel's log, while running */
	int last_mode;			/* of the last run, -1 before one */
	int looks_seen;			/* --runs auto: looks said so far */
	/*
	 * --factorial: the cell of each measured run, in the order run
	 * (replicate after replicate); the module's other paths, each held
	 * in the mode it had (others_mode) and checked after every run.
	 */
	unsigned *plan;
	struct ctl_paths others;
	enum bench_mode others_mode[CTL_MAX_PATHS];
	unsigned long long seed;	/* of the plan's random order */
};

/* Whether sample s is in the statistics: measured, and valid. */
static inline bool bench_counts(const struct bench_sample *s)
{
	return !s->warmup && !s->invalid[0];
}

/*
 * Every JSON result (a bench, a suite's history or one experiment) names
 * its schema; --from refuses any other than these.  Version 3 marks
 * invalid runs (a sample's "invalid"), which an older reader would have
 * counted; version 2 adds the provenance and summarizes by geometric
 * means; version 1 (no "schema") has the same runs, and --from
 * recomputes every summary.
 */
#define BENCH_SCHEMA	"abpath-bench/3"
/*
 * An adaptive bench's (--runs auto): version 4 adds "sequential", the
 * rule and its looks, whose verdict an older reader would have replaced
 * by the fixed-count one over runs the rule chose to stop at.
 */
#define BENCH_SCHEMA_ADAPTIVE	"abpath-bench/4"

/*
 * A factorial's (--factorial): version 5 has one run per cell and a fit
 * of effects, no legacy and optimized arms an older reader would look for.
 */
#define BENCH_SCHEMA_FACTORIAL	"abpath-bench/5"

/*
 * Fill b and o from a bench JSON object (borrowed: keep j alive): its
 * runs, and with --runs auto its rule; 0, or 1 after the error.
 */
int bench_load(struct json_t *j, const char *what, struct bench *b,
	       struct bench_opts *o);
/*
 * What every result holds beside its design, for bench_load() and a
 * factorial's load: the command's args, a slot per sample, the workload,
 * metric and unit, lower_is_better, provenance, command and prepare.  0;
 * -ENOMEM after the error; -EINVAL when "args" is not a list of strings,
 * which the caller says as its kind of result's error.
 */
int bench_load_common(struct json_t *j, struct bench *b,
		      struct bench_opts *o);
/*
 * A run's fields beside what places it (mode, or block and cell), which
 * the caller has checked, "value" a number among them: index (else
 * @i + 1), value, counters, results, kernel_reports, invalid.
 */
void bench_load_run(struct json_t *js, int i, struct bench_sample *s);
/*
 * --from of one result @j: @loader (bench_load(), or a factorial's) into
 * a bench of its own with o's output options, then @reporter; the exit
 * code.
 */
int bench_from_one(const struct bench_opts *o, struct json_t *j,
		   const char *what,
		   int (*loader)(struct json_t *, const char *, struct bench *,
			       struct bench_opts *),
		   int (*reporter)(const struct bench *));
/* Release what bench_load() or a bench's runs (run.c) allocated. */
void bench_free(struct bench *b);
/*
 * The JSON object in @file ("-": standard input), a bench's or a suite's
 * result of a schema this abpath reads, or NULL after the error; @what
 * is set to what the messages call it.
 */
struct json_t *bench_from_file(const char *file, const char **what);
/*
 * --from LABEL=FILE: true with @label set and *@file FILE, unless a file
 * is called that (a name with a '=') or LABEL has a '/' (a directory
 * with a '='); else false, *@file @arg and @label "".
 */
bool bench_from_label(const char *arg, const char **file, char *label,
		      size_t len);

#endif
