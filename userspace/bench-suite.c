// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench --suite history: the historical experiments, one per path
 * plus sleep-loop, each a sweep of bench points over one parameter.  A
 * point is an ordinary bench (same ABBA order, counters and statistics:
 * bench_prepare/bench_collect/bench_json, in this process), and keeps the
 * whole 'abpath bench -j' object, so that every number in the tables can
 * be traced back to its runs and recomputed with --from.
 *
 * Output: a JSON object per experiment
 *   {schema, provenance, experiment, path, workload, metric, unit,
 *    lower_is_better, param_name, title, reproduces, cpus, kernel,
 *    args_template, runs_per_mode, warmup_per_mode,
 *    points: [{param, args: [...], bench: {abpath bench -j}}]}
 * written to DIR/<experiment>.json with --out, and all of them in
 *   {schema, provenance, suite: "history", version, kernel, cpus, quick,
 *    runs_per_mode, warmup_per_mode, complete, experiments: [...]}
 * (DIR/history.json, and standard output with -j); without -j, standard
 * output gets the Markdown tables of bench-tables.c.
 */
#include <errno.h>
#include <signal.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "bench-suite.h"
#include "output.h"

#ifndef ABPATH_VERSION
#define ABPATH_VERSION "0.0.0"
#endif

#define L BENCH_LEGACY
#define O BENCH_OPTIMIZED
#define VALUE { SM_VALUE, NULL, NULL }
#define COUNTERS(a, b) { SM_COUNTERS, a, b }
#define RATIO_CI(m) { "legacy/optimized [95% CI]", SC_RATIO_CI, 0, m }
#define P(m) { "p", SC_P, 0, m }

/*
 * The experiments, their historical sources and their tables.  The
 * tables hold our numbers; .published quotes the source's own figures
 * (../shared/history-figures.md has them with their sources), so that a
 * reader sees how close the reproduction comes.
 */
const struct suite_exp suite_history[] = {
	{
		.id = "exit_reparent", .path = "exit_reparent",
		.workload = "forkexit",
		.title = "fork+exit latency vs idle tasks",
		.reproduces = "Ingo Molnar's \"O(1) sys_exit()\" (2.5.31, "
			"2002): lat_proc fork+exit grew with the number of "
			"tasks before, flat after.",
		.published = "Ingo Molnar, \"[patch] O(1) sys_exit(), "
			"threading, scalable-exit-2.5.31-A6\" (LKML, 19 Aug "
			"2002), 525 MHz PIII, lat_proc fork+exit: before/after "
			"1.13, 1.36, 1.80, 2.38 at 200, 1000, 2000, 4000 "
			"tasks (743, 923, 1153, 1622 µs before; 657, 681, "
			"641, 683 after).",
		.note = "µs: per fork+exit+wait (the workload's value). "
			"Tasks scanned/call: Δtasks_scanned/Δcalls of "
			"exit_reparent over the legacy runs.",
		.metric = "fork_exit_latency", .unit = "us",
		.lower_is_better = true, .primary = VALUE,
		.param_name = "idle tasks", .numeric = true,
		.params = { "200", "1000", "2000", "4000" },
		.quick_params = { "200", "1000" },
		.args = "-N @ -i 300", .quick_args = "-N @ -i 100",
		.cols = {
			{ "legacy µs", SC_GMEAN, L, VALUE },
			{ "optimized µs", SC_GMEAN, O, VALUE },
			RATIO_CI(VALUE), P(VALUE),
			{ "legacy tasks scanned/call", SC_PER_CALL, L,
			  COUNTERS("tasks_scanned", "calls") },
		},
	},
	{
		.id = "timer_fastpath", .path = "timer_fastpath",
		.workload = "itimer-threads",
		.title = "tick cost with a process-wide ITIMER_PROF vs threads",
		.reproduces = "commit f06febc96ba8 \"timers: fix itimer/many "
			"thread hang\" (2.6.28, bug 9906): the 2.6.27 tick "
			"took the slow path (sum every thread, rebalance "
			"every thread's share) whenever a thread's share of "
			"the process timer ran out, which with many threads "
			"and a short interval is every tick.",
		.published = "No timing table was published with the fix. "
			"Bug 9906: with ITIMER_PROF and NPTL the system hangs "
			"\"at somewhere between 4000 and 4500 threads\"; the "
			"commit calls the old tick \"at least O(n*3)\".",
		.note = "ns/armed tick: Δns_total/Δticks_armed of "
			"timer_fastpath per run. Loops/s: the workload's "
			"throughput (below 1: legacy does less work). Slow paths/armed tick: "
			"Δslow_paths/Δticks_armed over the legacy runs (1: "
			"every armed tick sums and rebalances every thread).",
		.metric = "ns_per_armed_tick", .unit = "ns",
		.lower_is_better = true,
		.primary = COUNTERS("ns_total", "ticks_armed"),
		.param_name = "threads", .numeric = true,
		.params = { "16", "256", "1024", "4000" },
		.quick_params = { "16", "256" },
		.args = "-n @ -t 2 -I 10000 --no-check",
		.quick_args = "-n @ -t 1 -I 10000 --no-check",
		.cols = {
			{ "legacy ns/armed tick", SC_GMEAN, L,
			  COUNTERS("ns_total", "ticks_armed") },
			{ "optimized ns/armed tick", SC_GMEAN, O,
			  COUNTERS("ns_total", "ticks_armed") },
			RATIO_CI(COUNTERS("ns_total", "ticks_armed")),
			P(COUNTERS("ns_total", "ticks_armed")),
			{ "loops/s legacy/optimized [95% CI]", SC_RATIO_CI, 0,
			  VALUE },
			{ "legacy slow paths/armed tick", SC_PER_CALL, L,
			  COUNTERS("slow_paths", "ticks_armed") },
		},
	},
	{
		.id = "group_cputime", .path = "group_cputime",
		.workload = "pound-times",
		.title = "times() pounded by N threads",
		.reproduces = "6e998916dfe3 (v3.18) made times()/"
			"clock_gettime(CLOCK_PROCESS_CPUTIME_ID) take every "
			"thread's rq lock, fixed by a1eb1411b4e4 (v4.8) whose "
			"message carries the pound_times tables.",
		.published = "Giovanni Gherdovich's pound_times in "
			"a1eb1411b4e4's message, 4.7-rc7 over 4.7-rc7 + fix: "
			"times() 2.25 (2 threads) and 2.41 (128 threads); "
			"clock_gettime(CLOCK_PROCESS_CPUTIME_ID) 3.22 and "
			"6.26.",
		.note = "s: elapsed for all calls (the workload's value). "
			"Rq locks/call: Δrq_locked/Δcalls of group_cputime "
			"over the legacy runs.",
		.metric = "elapsed", .unit = "s", .lower_is_better = true,
		.primary = VALUE,
		.param_name = "threads", .numeric = true,
		.params = { "2", "4", "8", "16", "32" },
		.quick_params = { "2", "8" },
		.args = "-n @ -c 200000", .quick_args = "-n @ -c 20000",
		.cols = {
			{ "legacy s", SC_GMEAN, L, VALUE },
			{ "optimized s", SC_GMEAN, O, VALUE },
			RATIO_CI(VALUE), P(VALUE),
			{ "legacy rq locks/call", SC_PER_CALL, L,
			  COUNTERS("rq_locked", "calls") },
		},
	},
#define BUSY { SM_RESULT, "per_busy_cpu_s", "mean_per_cpu_s" }
	{
		.id = "timer_softirq", .path = "timer_softirq",
		.workload = "softirq-rate",
		.title = "TIMER softirqs per second per busy CPU",
		.reproduces = "Frederic Weisbecker's \"timer: Spare timer "
			"softirq until next expiry\" (v5.9): until then the "
			"tick raised TIMER_SOFTIRQ on every tick, the v4.8 "
			"timer wheel included; the -rt patch \"timers: Don't "
			"wake ktimersoftd on every tick\" (2017) did the same "
			"for -rt kernels only.",
		.published = "The -rt patch's only figure: run_local_timers() "
			"0.2 µs to 2.5 µs slower on a 2-core Atom E3825; the "
			"gain (no ktimersoftd wake-up, two context switches, "
			"per tick) was stated, not measured. On a non-RT "
			"kernel a raise costs a softirq run on IRQ exit.",
		.note = "Softirqs/s: TIMER softirqs per second per busy CPU "
			"(results.per_busy_cpu_s; idle: mean_per_cpu_s over "
			"the online CPUs). /HZ: that rate over HZ, 1 = one "
			"softirq on every tick.",
		.metric = "timer_softirqs_per_busy_cpu_s", .unit = "softirqs/s",
		.lower_is_better = true, .primary = BUSY,
		.param_name = "scenario", .numeric = false,
		.params = { "busy", "timers", "idle" },
		.quick_params = { "busy", "timers", "idle" },
		.args = "-S @ -t 2 --hz 250", .quick_args = "-S @ -t 1 --hz 250",
		.cols = {
			{ "legacy softirqs/s", SC_GMEAN, L, BUSY },
			{ "legacy /HZ", SC_PER_HZ, L, BUSY },
			{ "optimized softirqs/s", SC_GMEAN, O, BUSY },
			{ "optimized /HZ", SC_PER_HZ, O, BUSY },
			RATIO_CI(BUSY), P(BUSY),
		},
	},
#define TYPED(k) { SM_TYPED, k, NULL }
	{
		.id = "sleep-loop", .path = "timer_softirq",
		.workload = "sleep-loop",
		.title = "CPU cost of sleeping, by sleep type (negative control)",
		.reproduces = "nothing: a negative control for "
			"timer_softirq. The RHEL5→RHEL6 \"sleeping costs more "
			"CPU\" test_select_work comparison was traced to the "
			"scheduler, and every sleep type here uses hrtimers, "
			"not TIMER_SOFTIRQ, so legacy/optimized should be 1.",
		.published = "RHEL 6 over RHEL 5, select, µs per iteration: "
			"1.13 (4 threads), 1.45 (8), 1.07 (40), on a Dell "
			"Precision M6500; two kernels, not two modes of one.",
		.note = "µs per round of work and sleep: wall (elapsed) "
			"and CPU (getrusage user + sys per thread, which "
			"the kernel scales to the precise runtime; its "
			"user/sys split is tick-sampled and not shown).",
		.metric = "wall_us_per_iteration", .unit = "us",
		.lower_is_better = true, .primary = TYPED("wall_us"),
		.param_name = "sleep type", .numeric = false,
		.params = { "none", "select", "poll", "usleep", "nanosleep",
			    "cond", "yield" },
		.quick_params = { "select", "nanosleep" },
		.args = "-T @ -n 2 -i 200", .quick_args = "-T @ -n 2 -i 50",
		.cols = {
			{ "legacy wall µs", SC_GMEAN, L, TYPED("wall_us") },
			{ "optimized wall µs", SC_GMEAN, O, TYPED("wall_us") },
			{ "legacy CPU µs", SC_GMEAN, L, TYPED("cpu_us") },
			{ "optimized CPU µs", SC_GMEAN, O, TYPED("cpu_us") },
			{ "wall legacy/optimized [95% CI]", SC_RATIO_CI, 0,
			  TYPED("wall_us") },
			P(TYPED("wall_us")),
			{ "CPU legacy/optimized [95% CI]", SC_RATIO_CI, 0,
			  TYPED("cpu_us") },
			P(TYPED("cpu_us")),
		},
	},
};

const int suite_nr_history = sizeof(suite_history) / sizeof(suite_history[0]);

const struct suite_exp *suite_find_exp(const char *id)
{
	for (int i = 0; id && i < suite_nr_history; i++)
		if (!strcmp(suite_history[i].id, id))
			return &suite_history[i];
	return NULL;
}

const char *bench_suite_check(const char *name)
{
	return strcmp(name, "history") ? "the only one is "
		"'history'" : NULL;
}

/* ---- running ----------------------------------------------------------- */

struct suite_run {
	const struct bench_opts *o;
	int runs, warmup;
	json_t *history;
};

/* The workload's arguments: the template's words, "@" the parameter. */
static char **make_args(const char *tmpl, const char *param, int *n)
{
	char *copy = strdup(tmpl), *save = NULL, *w;
	char **argv = calloc(strlen(tmpl) + 2, sizeof(*argv));

	*n = 0;
	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!(argv[(*n)++] = strdup(strcmp(w, "@") ? w : param)))
			break;
	free(copy);
	return argv;
}

static void free_args(char **argv, int n)
{
	for (int i = 0; argv && i < n; i++)
		free(argv[i]);
	free(argv);
}

static int mkdir_p(const char *dir)
{
	char buf[4096], *p;

	if (!*dir)
		return -ENOENT;
	ctl_copy(buf, sizeof(buf), dir);
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

static int write_json(const char *dir, const char *name, json_t *j)
{
	char file[4096];
	FILE *f;
	int bad;

	snprintf(file, sizeof(file), "%s/%s.json", dir, name);
	f = fopen(file, "w");
	if (!f) {
		abpath_error("%s: %s", file, strerror(errno));
		return 1;
	}
	bad = json_dumpf(j, f, JSON_COMPACT | JSON_REAL_PRECISION(15)) < 0;
	fputc('\n', f);
	bad |= ferror(f);
	if (fclose(f) || bad) {
		abpath_error("writing %s: %s", file, strerror(errno));
		return 1;
	}
	return 0;
}

/* Checked before the first run, not after an hour of them. */
static int check_workloads(void)
{
	char exe[4096];

	for (int i = 0; i < suite_nr_history; i++) {
		snprintf(exe, sizeof(exe), "%s/%s", bench_workload_dir(),
			 suite_history[i].workload);
		if (access(exe, X_OK)) {
			abpath_error("%s: %s; install the workloads ('make "
				     "install') or set ABPATH_WORKLOAD_DIR", exe,
				     strerror(errno));
			return 1;
		}
	}
	return 0;
}

static json_t *new_experiment(const struct suite_run *sr,
			      const struct suite_exp *e)
{
	return json_pack("{s:s, s:O, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s,"
			 " s:s, s:O, s:O, s:s, s:i, s:i, s:[]}",
			 "schema", BENCH_SCHEMA,
			 "provenance", json_object_get(sr->history, "provenance"),
			 "experiment", e->id, "path", e->path,
			 "workload", e->workload, "metric", e->metric,
			 "unit", e->unit, "lower_is_better", e->lower_is_better,
			 "param_name", e->param_name, "title", e->title,
			 "reproduces", e->reproduces,
			 "cpus", json_object_get(sr->history, "cpus"),
			 "kernel", json_object_get(sr->history, "kernel"),
			 "args_template", sr->o->quick ? e->quick_args : e->args,
			 "runs_per_mode", sr->runs,
			 "warmup_per_mode", sr->warmup, "points");
}

/* One point: a whole bench, appended to the experiment's points. */
static int run_point(const struct suite_run *sr, const struct suite_exp *e,
		     const char *param, int k, int npoints, json_t *exp)
{
	struct bench_opts bo = {
		.workload = e->workload, .path = e->path, .runs = sr->runs,
		.warmup = sr->warmup,
	};
	char exe[4096], label[256];
	json_t *bj = NULL, *args;
	struct bench b;
	int ret;

	bo.args = make_args(sr->o->quick ? e->quick_args : e->args, param,
			    &bo.nargs);
	if (!bo.args) {
		abpath_error("out of memory");
		return 1;
	}
	snprintf(exe, sizeof(exe), "%s/%s", bench_workload_dir(), e->workload);
	snprintf(label, sizeof(label), "%s, %s %s (%d/%d)", e->id,
		 e->param_name, param, k + 1, npoints);
	bo.exe = exe;
	bo.label = label;
	ret = bench_prepare(&b, &bo);
	if (!ret)
		ret = bench_collect(&b);
	if (!ret)
		ret = b.restore_err;
	if (!ret && !(bj = bench_json(&b)))
		ret = 1;
	if (!ret) {
		args = json_array();
		for (int i = 0; i < bo.nargs; i++)
			json_array_append_new(args, json_string(bo.args[i]));
		json_array_append_new(json_object_get(exp, "points"),
			json_pack("{s:o, s:o, s:o}", "param", e->numeric ?
				  json_integer(strtoll(param, NULL, 10)) :
				  json_string(param), "args", args,
				  "bench", bj));
	}
	bench_free(&b);
	free_args(bo.args, bo.nargs);
	return ret;
}

static int run_all(struct suite_run *sr)
{
	const struct bench_opts *o = sr->o;
	json_t *exps = json_object_get(sr->history, "experiments");
	int ret = 0;

	for (int i = 0; !ret && i < suite_nr_history; i++) {
		const struct suite_exp *e = &suite_history[i];
		const char *const *params = o->quick ? e->quick_params
						     : e->params;
		json_t *exp = new_experiment(sr, e);
		int n = 0;

		while (n < SUITE_MAX_POINTS && params[n])
			n++;
		if (!exp || json_array_append_new(exps, exp)) {
			abpath_error("out of memory");
			return 1;
		}
		fprintf(stderr, "abpath: suite: experiment %d of %d: %s (%s, "
			"path %s), %d points\n", i + 1, suite_nr_history,
			e->id, e->workload, e->path, n);
		for (int k = 0; !ret && k < n; k++)
			ret = run_point(sr, e, params[k], k, n, exp);
		if (!ret && o->out)
			ret = write_json(o->out, e->id, exp);
	}
	return ret;
}

int bench_suite(const struct bench_opts *o)
{
	struct suite_run sr = { .o = o };
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ret, err, sig;

	sr.runs = o->runs_given ? o->runs : o->quick ? SUITE_QUICK_RUNS
						     : SUITE_DEFAULT_RUNS;
	sr.warmup = o->warmup_given ? o->warmup : BENCH_DEFAULT_WARMUP;
	if (o->plot && !bench_find_gnuplot()) {
		abpath_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
		return 1;
	}
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	if (check_workloads())
		return 1;
	if (o->out && (err = mkdir_p(o->out))) {
		abpath_error("cannot create %s: %s", o->out, strerror(-err));
		return 1;
	}
	if (uname(&u))
		u.release[0] = '\0';
	sr.history = json_pack("{s:s, s:o*, s:s, s:s, s:s, s:i, s:b, s:i, s:i,"
			       " s:b, s:[]}",
			       "schema", BENCH_SCHEMA,
			       "provenance", bench_provenance(),
			       "suite", o->suite, "version", ABPATH_VERSION,
			       "kernel", u.release, "cpus", (int)cpus,
			       "quick", o->quick, "runs_per_mode", sr.runs,
			       "warmup_per_mode", sr.warmup, "complete", 0,
			       "experiments");
	if (!sr.history) {
		abpath_error("out of memory");
		return 1;
	}

	bench_signals_begin();
	ret = run_all(&sr);
	bench_signals_end();
	sig = bench_stop_signal();
	if (!ret && sig) {
		fprintf(stderr, "abpath: suite: interrupted by %s after the "
			"last run\n", bench_signal_name(sig));
		ret = 128 + sig;
	}
	json_object_set_new(sr.history, "complete", json_boolean(!ret));
	if (o->out) {
		if (write_json(o->out, "history", sr.history))
			ret = ret ? ret : 1;
		else if (ret)
			fprintf(stderr, "abpath: suite: stopped; the points "
				"done so far are in %s/history.json (complete: "
				"false)\n", o->out);
	}
	if (!ret) {
		if (o->json) {
			if (json_dumpf(sr.history, stdout, JSON_COMPACT |
				       JSON_REAL_PRECISION(15)) < 0)
				ret = 1;
			fputc('\n', stdout);
		} else {
			ret = suite_print_markdown(stdout, sr.history);
		}
		if (fflush(stdout) == EOF || ferror(stdout)) {
			abpath_error("writing to standard output: %s",
				     strerror(errno));
			ret = 1;
		}
	}
	if (!ret && o->plot)
		ret = suite_plot(sr.history, o->plot);
	json_decref(sr.history);
	return sig && ret == 128 + sig ? bench_reraise(sig) : ret;
}
