/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One child process of the bench (child.c), for the runs (run.c): what
 * it runs, where its output goes, and its wait.
 */
#ifndef ABPATH_BENCH_CHILD_H
#define ABPATH_BENCH_CHILD_H

#include <stdbool.h>
#include <stddef.h>

struct rusage;

/* One of the child's outputs, as read so far. */
struct bench_buf {
	char *p;
	size_t n, cap;
	int fd;		/* our end of the pipe, -1 once at EOF */
	size_t max;	/* what is kept, at most */
	bool discard;	/* past max: read on and drop (else an error) */
};

/* What to run: a workload, a command, or --prepare's shell. */
struct bench_child {
	char *const *argv;
	bool search;	/* look argv[0] up in $PATH (execvp) */
	bool stdout_kept;	/* into out, else /dev/null */
	/*
	 * Both onto our standard error, beside the progress lines
	 * (--show-output): standard output stays the report.
	 */
	bool shown;
};

/* CLOCK_MONOTONIC in seconds: what every wall time is measured on. */
double bench_now(void);
/*
 * Run c once, collecting its stdout and stderr, until it exits.  A stop
 * request turns into SIGTERM (the workloads clean up on it), then SIGKILL
 * after a grace period or a second request.  Returns 0 with *status, the
 * child's rusage (its waited-for descendants included) and its wall time
 * in seconds, or 1 after an error message.
 */
int bench_spawn(const struct bench_child *c, struct bench_buf *out,
		struct bench_buf *err, int *status, struct rusage *ru,
		double *wall);
/* A child's standard error under an error line, indented. */
void bench_show_stderr(const char *text);

#endif
