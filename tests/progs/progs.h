/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VM test programs share: the error and usage conventions (exit 1
 * with "<prog>: error: ..." for a wrong answer, 2 with the usage for bad
 * arguments) and the clocks. A program defines USAGE before including it.
 */
#ifndef ABPATH_TEST_PROGS_H
#define ABPATH_TEST_PROGS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define fail(...) do {							\
	fprintf(stderr, "%s: error: ", program_invocation_short_name);	\
	fprintf(stderr, __VA_ARGS__);					\
	fputc('\n', stderr);						\
	exit(1);							\
} while (0)

static inline void usage(void)
{
	fputs(USAGE, stderr);
	exit(2);
}

/* A number in [min, max], or the usage. */
static inline double num(const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: bad number '%s' (%g..%g)\n",
			program_invocation_short_name, s, min, max);
		usage();
	}
	return v;
}

/*
 * A command's options when all are numbers: each letter's bounds and its
 * variable, an int (the number truncated) or a double.  num_opts() parses
 * argv by them with getopt() and then wants exactly @operands operands;
 * anything else is the usage.
 */
struct num_opt {
	char letter;
	double min, max;
	int *i;
	double *d;
};

static inline void num_opts(int argc, char **argv, const struct num_opt *o,
			    int n, int operands)
{
	char spec[2 * 8 + 1] = "";
	int opt, k;

	if (n > 8)
		fail("num_opts: %d options, 8 at most", n);
	for (k = 0; k < n; k++) {
		spec[2 * k] = o[k].letter;
		spec[2 * k + 1] = ':';
	}
	while ((opt = getopt(argc, argv, spec)) != -1) {
		for (k = 0; k < n && o[k].letter != opt; k++)
			;
		if (k == n)
			usage();
		if (o[k].i)
			*o[k].i = (int)num(optarg, o[k].min, o[k].max);
		else
			*o[k].d = num(optarg, o[k].min, o[k].max);
	}
	if (argc - optind != operands)
		usage();
}

/* A program's commands: argv[1] names one, which runs on argv from there. */
struct prog_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
};

static inline int run_cmd(int argc, char **argv, const struct prog_cmd *c,
			  int n)
{
	for (int k = 0; argc >= 2 && k < n; k++)
		if (!strcmp(argv[1], c[k].name))
			return c[k].run(argc - 1, argv + 1);
	usage();
	return 2;
}

static inline int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		fail("clock_gettime(%d): %s", (int)clk, strerror(errno));
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline struct timespec ts_of(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	return ts;
}

/* Sleeps the whole time even when signals (SIGPROF, ...) interrupt it. */
static inline void sleep_ns(int64_t ns)
{
	struct timespec ts = ts_of(ns);

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline int64_t tv_us(struct timeval tv)
{
	return tv.tv_sec * 1000000LL + tv.tv_usec;
}

static inline int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

#endif
