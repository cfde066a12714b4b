/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abpath bench: run a workload alternately in legacy and optimized mode
 * (bench.c) and report the comparison (bench-report.c).  abpath.c parses
 * the command line and catches the usage errors; everything after that
 * is here.
 */
#ifndef ABPATH_BENCH_H
#define ABPATH_BENCH_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "control.h"

#define BENCH_DEFAULT_RUNS	6
#define BENCH_DEFAULT_WARMUP	1

struct bench_opts {
	const char *workload;	/* as given: a name, or a path with a '/' */
	const char *exe;	/* the file to run */
	const char *path;	/* a path name, or "all" */
	int runs, warmup;	/* per mode */
	bool json;
	const char *plot;	/* NULL, or a .svg/.png file */
	char **args;		/* after "--", for the workload */
	int nargs;
};

/* The modes in the order of the enum: index into bench_mode_name. */
enum bench_mode { BENCH_LEGACY, BENCH_OPTIMIZED };
extern const char *const bench_mode_name[2];

struct json_t;

struct bench_sample {
	int index;		/* 1-based, execution order */
	enum bench_mode mode;
	bool warmup;
	double value;
	struct json_t *counters;	/* {path: {counter: delta or null}} */
	struct json_t *results;		/* the workload's "results" */
};

struct bench {
	const struct bench_opts *o;
	struct ctl_paths paths;		/* the path(s) being switched */
	int total;			/* runs in all, warm-ups included */
	int done;			/* samples recorded */
	struct bench_sample *s;
	/* From the workload's first report. */
	char *workload_name, *metric, *unit;
	bool lower_is_better;
};

/* bench's options (abpath.c parses them), for getopt_long. */
extern const struct option bench_options[];
/* Index of the "--" that starts the workload's arguments, or argc. */
int bench_find_dashdash(int argc, char **argv);

/* $ABPATH_WORKLOAD_DIR, or the directory fixed at build time. */
const char *bench_workload_dir(void);
/* The path a built-in workload exercises, or NULL. */
const char *bench_default_path(const char *workload);
/* "svg" or "png" by the file name's extension, or NULL. */
const char *bench_plot_format(const char *file);
/* The mode of run i (0-based): warm-ups, then measured, each ABBA. */
enum bench_mode bench_order(int i, int warmup_per_mode);

/* Runs everything; returns the exit code (0, 1, or 128 + signal). */
int bench_run(const struct bench_opts *o);

/* bench-report.c: print the result (text or JSON), draw the plot. */
int bench_report(const struct bench *b);
/* gnuplot's location, or NULL: checked before a long bench, not after. */
const char *bench_find_gnuplot(void);

#endif
