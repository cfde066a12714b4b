/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One bench's result: the statistics report.c computes from its runs,
 * for what shows them: the tree of text and JSON (report.c), the plot
 * (plot.c) and the exports (export.c).
 */
#ifndef ABPATH_BENCH_REPORT_H
#define ABPATH_BENCH_REPORT_H

#include <stdio.h>

#include "digits.h"
#include "internal.h"
#include "maths/statistics.h"

struct mode_stats {
	double *v;
	size_t n;
	struct st_summary s;
};

struct report {
	struct mode_stats m[2];
	struct st_ratio ratio;		/* Welch, on the logs */
	int ratio_err;			/* -EDOM: a value <= 0 */
	struct st_paired paired;	/* adjacent legacy/optimized runs */
	int paired_err;
	struct st_mw mw;
	char verdict[512];
	char warning[160];		/* "" or why the runs are too few */
	char invalid_note[160];		/* "" or how many runs were left out */
	/* --runs auto: the rule's looks, whose verdict replaces the above. */
	struct bench_looks looks;
};

/*
 * The statistics of b's valid measured runs into r, which report_free()
 * releases; 0 or -errno.
 */
int report_compute(const struct bench *b, struct report *r);
void report_free(struct report *r);
/*
 * How many runs, warm-ups included, did not measure their mode (each
 * sample says why).
 */
int report_invalid_runs(const struct bench *b);
/*
 * An interrupted bench's extent: "after 7 of 22 runs: it holds 3 legacy
 * and 2 optimized measured runs of the 10 per mode planned, and 2
 * warm-ups"; returns buf.
 */
const char *report_fmt_interrupted(char *buf, size_t len,
				   const struct bench *b);
/*
 * Whether the metric's worse side reads as "slower" (a time, or a
 * throughput) rather than "worse".
 */
bool report_speed_words(const char *unit, bool lower_is_better);
/*
 * The mean of results.<key> (a command's CPU times, from wait4) over the
 * valid measured runs of mode @m; NaN without one.
 */
double report_results_mean(const struct bench *b, enum bench_mode m,
			   const char *key);
/* The tree of 'abpath bench -j' through output.h. */
void report_emit(const struct bench *b, const struct report *r);
/* What a result's JSON opens with: workload, args, command, prepare. */
void report_emit_command(const struct bench *b);
/* The bench's paths, an array @key ("paths", "factorial") on one line. */
void report_emit_paths(const struct bench *b, const char *key);
/* What it measured: metric, unit, lower_is_better. */
void report_emit_metric(const struct bench *b);
/*
 * "samples", a row a run: its index, what @place emits to say where it
 * stands (its mode, or a factorial's block and cell), warmup, value,
 * invalid, and hidden in text its counters, results and kernel reports.
 */
void report_emit_samples(const struct bench *b,
			 void (*place)(const struct bench *b,
				       const struct bench_sample *s));

/* plot.c: the runs of one bench, to @file; 0, or 1 after a message. */
int bench_plot(const struct bench *b, const struct report *r,
	       const char *file);

/* export.c: one export to @file ("-": standard output). */
enum export_kind { EXPORT_MD, EXPORT_CSV, EXPORT_JSON };
/* 0, or 1 after a message. */
int bench_export(const char *file, const struct bench *b,
		 const struct report *r, enum export_kind kind);
/*
 * What write() (0, or non-zero after a failed write) prints, to @file
 * ("-": standard output, after the report): 0, or 1 after a message.
 */
int export_to(const char *file, int (*write)(FILE *f, const void *ctx),
	      const void *ctx);
/* s in a Markdown table's cell: a '|' escaped, a newline a space. */
void md_cell(FILE *f, const char *s);

#endif
