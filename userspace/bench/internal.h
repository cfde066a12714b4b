/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the bench: what its files share.  cli.c parses 'abpath bench'
 * and ties the runs to the report (bench_run()); run.c makes the runs,
 * each a child process (child.c) in the mode modes.c sets and checks,
 * stopped by signals.c, with the provenance of provenance.c; report.c
 * computes the statistics (maths/statistics.c) and emits the result as one
 * tree for text and JSON, plot.c draws it and export.c writes it out
 * (report.h); from.c reads a saved result back through result.c
 * (result.h: a saved file read and checked, and the result in memory,
 * which no reader takes from run.c, and factorial.c not from from.c);
 * suite.c runs the experiments of experiments.c, and tables.c prints
 * them.  With --runs auto, adaptive.c applies the stopping rule of
 * maths/sequential.c to the runs, for run.c (whether to stop) and report.c
 * (the looks and the verdict).  factorial.c plans, reports, reads back
 * and pools a 2^k factorial of the paths (--factorial), whose runs are
 * run.c's, with the design and the fit of maths/factorial.c.  No two
 * files depend on each other both ways.
 */
#ifndef ABPATH_BENCH_INTERNAL_H
#define ABPATH_BENCH_INTERNAL_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../control.h"
#include "../kmsg.h"
#include "bench.h"
#include "result.h"
#include "maths/sequential.h"

#define BENCH_DEFAULT_RUNS	6
#define BENCH_DEFAULT_WARMUP	1

/* --from files: up to 8 suite results side by side, 64 hosts to pool. */
#define BENCH_MAX_FROM		64
#define BENCH_MAX_ACROSS	8

/* --runs auto: the largest --max-runs (per mode). */
#define BENCH_MAX_AUTO_RUNS	1000

/* --factorial: at most this many paths, 2^4 = 16 cells (maths/factorial.h). */
#define BENCH_FAC_MAX_K		4

#define SUITE_DEFAULT_RUNS	4
#define SUITE_QUICK_RUNS	2
/* --suite with --runs auto: the cap per mode, --max-runs unless given. */
#define SUITE_AUTO_CAP		8
#define SUITE_QUICK_AUTO_CAP	4

struct bench_opts {
	const char *workload;	/* as given: a name, or a path with a '/' */
	const char *exe;	/* the file to run */
	const char *path;	/* a path name, or "all" */
	int runs, warmup;	/* per mode; with adaptive, runs is the cap */
	bool runs_given, warmup_given;
	/*
	 * --runs auto: the stopping rule (sequential.h, adaptive.c) decides
	 * after each ABBA block; seq is its parameters, set by --max-runs,
	 * --precision and --margin (each *_given when on the command line).
	 */
	bool adaptive;
	struct seq_rule seq;
	bool max_runs_given, precision_given, margin_given;
	bool json;
	const char *plot;	/* NULL, or a .svg/.png file */
	char **args;		/* after "--", for the workload (NULL-ended) */
	int nargs;
	/*
	 * No WORKLOAD: args is a command, timed by the wall clock and wait4's
	 * rusage, its output discarded (abpath bench --path P -- CMD).
	 */
	bool command;
	const char *prepare;	/* --prepare CMD: sh -c CMD before each run */
	const char *export_md;	/* --export-markdown FILE: the summary */
	const char *export_csv;	/* --export-csv FILE: one row per run */
	const char *export_json;	/* --export-json FILE: what -j prints */
	/*
	 * A command's own output on our standard error instead of
	 * /dev/null (--show-output); a non-zero exit or a signal death
	 * recorded with the run instead of stopping the bench
	 * (--ignore-failure).
	 */
	bool show_output, ignore_failure;
	const char *label;	/* NULL, or prefixed to the progress lines */
	/* The other forms of the command. */
	/*
	 * --from FILE, each time it was given (nfrom may pass
	 * BENCH_MAX_FROM: a usage error): re-report, run nothing; several
	 * suite results make one table per experiment across them.
	 */
	const char *from[BENCH_MAX_FROM];
	int nfrom;
	/* --pool: the --from files are one bench's results from as many hosts. */
	bool pool;
	const char *suite;	/* --suite NAME */
	const char *out;	/* --out DIR (suite) */
	bool quick;		/* --quick (suite) */
	/*
	 * --factorial PATHS: the 2^fac_k cells of these paths' modes, in
	 * runs replicates (factorial.c); fac_order: the highest interaction
	 * in the model (--order, default 2).
	 */
	const char *factorial;
	int fac_k, fac_order;
	bool order_given;
	char fac_path[BENCH_FAC_MAX_K][CTL_NAME_MAX];
};

/* cli.c: the command line. */
/* The path a built-in workload exercises, or NULL. */
const char *bench_default_path(const char *workload);
/* "svg" or "png" by the file name's extension, or NULL. */
const char *bench_plot_format(const char *file);
/*
 * Runs everything and returns the exit code (0 or 1); after a stop signal
 * it reports and then dies of that signal.
 */
int bench_run(const struct bench_opts *o);

/* run.c: the runs. */
/* The mode of run i (0-based): warm-ups, then measured, each ABBA. */
enum bench_mode bench_order(int i, int warmup_per_mode);
/*
 * The pieces of bench_run(), for the suite.  bench_prepare() checks the
 * module and sets b up for o; bench_collect() does the runs (modes saved
 * first, restored after, whatever happens) and returns 0, 1 or 128 +
 * signal; bench_free() (result.h) releases what either allocated.
 */
int bench_prepare(struct bench *b, const struct bench_opts *o);
int bench_collect(struct bench *b);

/* adaptive.c: --runs auto, the stopping rule over a bench's runs. */
struct bench_looks {
	int n;			/* looks made, up to and with the stop */
	struct seq_look *look;
	enum seq_stop stop;	/* of the last look (SEQ_GO_ON: no stop) */
	int extra;		/* measured runs after the stop */
};
/*
 * The looks of b->o->seq over b's runs, in the order they ran, up to the
 * first that stops; 0 or -errno (-EDOM: a value <= 0).  Free with
 * bench_looks_free().
 */
int bench_looks(const struct bench *b, struct bench_looks *L);
void bench_looks_free(struct bench_looks *L);
/*
 * After a run: says on stderr a look that run completed, and whether the
 * rule stops the bench there.
 */
bool bench_rule_stops(struct bench *b);
/*
 * The rule's verdict, its interval the headline; @speed: "slower" and
 * "faster" rather than "worse" and "better".
 */
void bench_seq_verdict(const struct bench *b, const struct bench_looks *L,
		       bool speed, char *buf, size_t len);
/* The "sequential" node of the result: the rule and every look. */
void bench_emit_sequential(const struct bench *b, const struct bench_looks *L);

/* provenance.c: where and when. */
/*
 * Where and when the runs were made: {abpath_version, kernel, cpus, host,
 * time (UTC, ISO 8601), ...}; NULL if out of memory.
 */
struct json_t *bench_provenance(void);
/* "kernel K, N CPUs, host H, TIME, abpath V": returns buf. */
char *bench_fmt_provenance(char *buf, size_t len, struct json_t *pv);
/*
 * "CPU MODEL, microcode M, cpufreq governor G, clocksource C" and
 * "name=value, ..." of the module's parameters: returns buf, "" when the
 * provenance has none of it (a file from an older abpath).
 */
char *bench_fmt_machine(char *buf, size_t len, struct json_t *pv);
char *bench_fmt_params(char *buf, size_t len, struct json_t *pv);

/* modes.c: the module around the runs. */
struct counter_set;
/*
 * Save the paths' modes (0, or 1 after the error), to be restored by
 * bench_modes_restore() (0, or 1 after saying which path is left in which
 * mode), or at exit if nothing else did.
 */
int bench_modes_save(const struct ctl_paths *p);
int bench_modes_restore(void);
/* "; restored P to M, Q to N": after an interruption's message. */
void bench_modes_say_restored(FILE *f);
/* Switch every path of p to m and check that it did: 0, or 1 after why. */
int bench_mode_set(const struct ctl_paths *p, enum bench_mode m);
/* The same, path p->name[i] to m[i] (a factorial's cell). */
int bench_modes_set(const struct ctl_paths *p, const enum bench_mode *m);
/*
 * {path: {counter: delta}} for the benched paths in the mode that ran.
 * A maximum (ns_max, any "*_max") is its value after the run: a
 * difference of maxima means nothing.  A counter that went down was reset
 * during the run, and has no delta (null).
 */
struct json_t *bench_counter_deltas(const struct ctl_paths *p,
				    const char *mode,
				    const struct counter_set *before,
				    const struct counter_set *after);
/* The same, each path in its own mode m[i]. */
struct json_t *bench_counter_deltas_modes(const struct ctl_paths *p,
					  const enum bench_mode *m,
					  const struct counter_set *before,
					  const struct counter_set *after);
/*
 * Why a run did not measure mode @m, into @why (left "" for a good run):
 * the watchdog sent a benched path back to optimized during it (the run
 * then ran partly in the other mode), a cross-check disagreed (the
 * legacy arm did not do what it reproduces), or a path was not in @m at
 * the end (someone else switched it).  The counters, read before and
 * after every run, show a revert or a mismatch even when the mode is
 * back by the end; a switch and back by someone else is not seen.
 */
void bench_judge_run(const struct ctl_paths *p, enum bench_mode m,
		     const struct counter_set *before,
		     const struct counter_set *after, char *why, size_t len);
/* The same, each path meant to be in its own mode m[i]. */
void bench_judge_modes(const struct ctl_paths *p, const enum bench_mode *m,
		       const struct counter_set *before,
		       const struct counter_set *after, char *why, size_t len);

/* signals.c: stop requests. */
/*
 * Keep SIGINT/SIGTERM/SIGHUP caught between bench_collect() calls, so
 * that a Ctrl-C between two points stops the suite cleanly; nests.
 * bench_stop_signal(): the signal that asked to stop, or 0.
 */
void bench_signals_begin(void);
void bench_signals_end(void);
int bench_stop_signal(void);
/*
 * Inside bench_signals_begin/end: let a pending signal in
 * (bench_signals_poll()); the stop request seen so far, or 0
 * (bench_stopping()); how many there were (a second one kills a run);
 * the mask to sleep with and to give a child.
 */
void bench_signals_poll(void);
int bench_stopping(void);
int bench_stop_requests(void);
const sigset_t *bench_orig_sigmask(void);
/* "SIGINT", "SIGTERM" or "SIGHUP": the ones bench stops on. */
const char *bench_signal_name(int sig);
/*
 * After reporting an interrupted bench: die of the same signal, so that
 * the shell around abpath sees it (a loop stops on Ctrl-C, not on exit
 * 130).  Returns 128 + sig only if the signal cannot kill us.
 */
int bench_reraise(int sig);

/* A counter whose value is a maximum, not a count: no delta, no mean. */
static inline bool bench_is_max_counter(const char *name)
{
	size_t n = strlen(name);

	return n >= 4 && !strcmp(name + n - 4, "_max");
}

/*
 * export.c: print the result (text or JSON), draw the plot, write the
 * exports.
 */
int bench_report(const struct bench *b);
/* report.c: the result as 'abpath bench -j' prints it, or NULL (message given). */
struct json_t *bench_json(const struct bench *b);

/* plot.c: gnuplot for a bench and for a suite. */
/* gnuplot's location, or NULL: checked before a long bench, not after. */
const char *bench_find_gnuplot(void);
/*
 * Run gnuplot on the script that write(f, ctx) prints after the terminal
 * and output lines for file (.svg or .png); 0, or 1 after a message.
 */
int bench_gnuplot(const char *file, void (*write)(FILE *f, const void *ctx),
		  const void *ctx);
/* gnuplot's single-quoted string. */
void bench_gp_quote(FILE *f, const char *s);

/* factorial.c: abpath bench --factorial PATHS. */
struct cmd;
/* NULL if the options go with --factorial, else why not. */
const char *bench_factorial_check(const struct bench_opts *o);
/*
 * Parse --factorial's list into o (fac_k, fac_path), with the default
 * replicates and order: -1, or the exit code after a usage error.
 */
int bench_factorial_paths(const struct cmd *c, struct bench_opts *o);
/*
 * For bench_run(), after bench_prepare(): the plan (its random order),
 * the module's other paths held, a path that refuses legacy refused (0,
 * or 1 after the error; nothing has run); and after the runs, the report
 * (text or JSON, the exports, the plots), as bench_report() for a single
 * bench.
 */
int bench_factorial_plan(struct bench *b);
int bench_factorial_report(const struct bench *b);
/* --from: a factorial's result @j (schema 5) reported again. */
int bench_factorial_from(const struct bench_opts *o, struct json_t *j,
			 const char *what);
/*
 * --pool of factorial results, the first already read (@first, @what):
 * each effect pooled over the hosts; the exit code.
 */
int bench_factorial_pool(const struct bench_opts *o, struct json_t *first,
			 const char *what);

/*
 * from.c: abpath bench --from FILE (a bench or a suite result), or
 * --from FILE --from FILE ... (suite results: one table across them).
 */
int bench_from(const struct bench_opts *o);
/*
 * cli.c: NULL if @o is a form the command line takes (@operands given
 * before "--", @dashdash whether there was one), else why not; the fuzz
 * harnesses drive only such forms.
 */
const char *bench_check_forms(const struct bench_opts *o, int operands,
			      bool dashdash);
/*
 * pooled.c: abpath bench --pool --from FILE --from FILE ...: one bench's
 * results from several hosts, pooled (pool.h).
 */
int bench_pool(const struct bench_opts *o);

/* suite.c: abpath bench --suite NAME. */
int bench_suite(const struct bench_opts *o);
/* NULL if NAME is a suite, else the usage error's text. */
const char *bench_suite_check(const char *name);
/*
 * --suite with --path LIST: NULL if LIST is "all" or comma-separated
 * paths each with an experiment, else why not, with *bad the word.
 */
const char *bench_suite_path_check(const char *list, const char **bad);

/*
 * tables.c: a suite result (history.json) as tables and plots.  The
 * tables are one tree, built once (suite_tables(): per experiment its
 * heading, columns, a row per point whose cells hold the text shown and
 * the numbers it rounds, and the paragraphs under it; NULL after the
 * error), which suite_report() prints as Markdown, or with @json as
 * @doc (the result as saved) with the tree beside it as "tables":
 * 0, or 1 after the error.
 */
struct json_t *suite_tables(struct json_t *history);
int suite_report(FILE *f, struct json_t *doc, struct json_t *history,
		 bool json);
/*
 * Several suite results (histories, named for the caption): per
 * experiment one table, the source's figures and each result's
 * legacy/optimized of the experiment's metric, a column per result,
 * headed by its label where one was given (--from LABEL=FILE; "" for
 * none), else by what its provenance says.
 */
int suite_print_across(FILE *f, struct json_t *const *histories,
		       const char *const *names, const char *const *given,
		       int n);
/* One plot per experiment: FILE-<experiment>.svg for FILE.svg. */
int suite_plot(struct json_t *history, const char *file);

#endif
