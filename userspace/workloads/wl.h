/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the abpath benchmark workloads: option parsing,
 * timing, a fixed unit of CPU work, idle background tasks, and the
 * result report (human text or one JSON object).
 *
 * Exit codes: 0 ok, 1 failed check or runtime error ("<name>: error: ..."
 * on stderr), 2 usage error (usage on stderr).
 */
#ifndef ABPATH_WL_H
#define ABPATH_WL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

extern const char *wl_name;
extern bool wl_json;

/* Options every workload accepts; append to its own tables. */
#define WL_SHORTOPTS "hj"
#define WL_LONGOPTS { "help", no_argument, NULL, 'h' }, \
		    { "json", no_argument, NULL, 'j' }

/* @usage: the workload's own text; the common options are appended. */
void wl_init(const char *name, const char *usage);
_Noreturn void wl_usage(int code);
_Noreturn void wl_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Handles -h/-j; anything else is a usage error. */
void wl_common_opt(int c);
/* Rejects positional arguments left after getopt_long(). */
void wl_no_args(int argc, char **argv);
long long wl_arg_ll(const char *opt, const char *arg, long long min,
		    long long max);
/*
 * A workload whose options are all integers (with -h and -j): each
 * option's letter, long name, bounds and variable, in a table that
 * wl_int_opts() parses argv by, positional arguments refused.
 */
struct wl_int_opt {
	char letter;
	const char *name;	/* without "--" */
	long long min, max;
	long long *val;
};
void wl_int_opts(int argc, char **argv, const struct wl_int_opt *opts,
		 int n);
double wl_arg_double(const char *opt, const char *arg, double min,
		     double max);

_Noreturn void wl_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Like wl_die() with ": strerror(err)" appended. */
_Noreturn void wl_die_err(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

double wl_now(void);		/* CLOCK_MONOTONIC, seconds */
double wl_cpu_now(void);	/* CLOCK_PROCESS_CPUTIME_ID, seconds */
void wl_rusage(double *user_s, double *sys_s);	/* RUSAGE_SELF */
void wl_sleep(double s);

/*
 * One "loop" of CPU work: a fixed chain of dependent ALU operations,
 * about a microsecond natively. Thread the returned state through the
 * next call and hand the last one to wl_consume() so it is not elided.
 */
uint64_t wl_spin(uint64_t state, uint64_t loops);
void wl_consume(uint64_t state);

/*
 * Idle background tasks: @n forked processes sleeping in pause(), in a
 * process group of their own, gone when wl_idle_stop() runs, at exit,
 * on SIGINT/SIGTERM/SIGHUP, and (PR_SET_PDEATHSIG) if we are killed.
 * Returns the seconds it took to create them.
 */
double wl_idle_start(int n);
void wl_idle_stop(void);

/* Checks: a failing one prints "<name>: error: ..." and makes the exit 1. */
void wl_check(const char *key, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void wl_check_skip(const char *key);
bool wl_checks_passed(void);

/*
 * The report. Call wl_report_begin(), then fill "params" and "results"
 * with wl_obj()/wl_arr() ... wl_end() and the value setters (key is
 * ignored inside an array); wl_report_end() adds "checks", prints
 * everything and returns the exit code.
 */
void wl_report_begin(const char *metric, double value, const char *unit,
		     bool lower_is_better);
void wl_obj(const char *key);
void wl_arr(const char *key);
void wl_end(void);
void wl_num(const char *key, double v);	/* non-finite becomes null */
void wl_int(const char *key, long long v);
void wl_str(const char *key, const char *v);
void wl_bool(const char *key, bool v);
void wl_null(const char *key);
int wl_report_end(void);

#endif
