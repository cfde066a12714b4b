// SPDX-License-Identifier: GPL-2.0
/*
 * The experiments of 'abpath bench --suite history': what each one runs
 * (suite.c) and how it is shown (tables.c), in one table, so
 * that the runner and the tables read the same definitions and neither
 * depends on the other.
 */
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "experiments.h"

#define L BENCH_LEGACY
#define O BENCH_OPTIMIZED
#define VALUE { SM_VALUE, NULL, NULL }
#define COUNTERS(a, b) { SM_COUNTERS, a, b }
/* A measure is a braced list, commas and all: the macros take it last. */
#define RATIO_CI(...) \
	{ "legacy/optimized [95% CI]", SC_RATIO_CI, 0, __VA_ARGS__ }
#define P(...) { "p", SC_P, 0, __VA_ARGS__ }
/* The columns most experiments open with: each mode's mean, the ratio, p. */
#define MEANS_RATIO_P(unit, ...) \
	{ "legacy " unit, SC_GMEAN, L, __VA_ARGS__ }, \
	{ "optimized " unit, SC_GMEAN, O, __VA_ARGS__ }, \
	RATIO_CI(__VA_ARGS__), P(__VA_ARGS__)

/*
 * The experiments, their historical sources and their tables.  The
 * tables hold our numbers; .published names each source by subject line,
 * commit or message id with its own numbers, and .source[] its ratio at
 * each point, shown beside ours, so that a reader sees how close the
 * reproduction comes.  Every figure is the source's own (the messages
 * and threads themselves, not a summary of them).
 *
 * The sweeps are sized for the test VM (2 vCPUs under QEMU TCG, where
 * every run costs a fixed start-up on top of the workload's own time),
 * so that the whole suite fits one sitting and --quick fits a test.  What
 * a suite costs is measured, not guessed here: each experiment's
 * elapsed_s says what it took (docs/ keep the figures).
 */
/* exit_reparent's sweep of idle tasks, and the scan it makes per call. */
#define IDLE_TASKS .param_name = "idle tasks", .numeric = true, \
	.params = { "200", "1000", "2000", "4000" }, \
	.quick_params = { "200", "1000" }
#define TASKS_SCANNED { "legacy tasks scanned/call", SC_PER_CALL, L, \
	COUNTERS("tasks_scanned", "calls") }
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
			"2002), 525 MHz PIII, lat_proc fork+exit, µs before → "
			"after: 743.0 → 657.1, 923.1 → 680.6, 1153.4 → 640.8, "
			"1622.2 → 682.5 at 200, 1000, 2000, 4000 tasks in the "
			"system. Source column: before/after.",
		.source = { { "200", "1.13" }, { "1000", "1.36" },
			    { "2000", "1.80" }, { "4000", "2.38" } },
		.note = "µs: per fork+exit+wait (the workload's value). "
			"Tasks scanned/call: Δtasks_scanned/Δcalls of "
			"exit_reparent over the legacy runs.",
		.metric = "fork_exit_latency", .unit = "us",
		.lower_is_better = true, .primary = VALUE,
		IDLE_TASKS,
		.args = "-N @ -i 300", .quick_args = "-N @ -i 100",
		.cols = { MEANS_RATIO_P("µs", VALUE), TASKS_SCANNED },
	},
	{
		.id = "exit_reparent-threads", .path = "exit_reparent",
		.workload = "thread-churn",
		.title = "thread create+exit latency vs idle tasks",
		.reproduces = "the threading numbers of Ingo Molnar's \"O(1) "
			"sys_exit()\" (2.5.31, 2002): a thread's exit "
			"reparents too, so creating and ending one thread at "
			"a time slowed with every task in the system, and "
			"was flat after.",
		.published = "Ingo Molnar, \"[patch] O(1) sys_exit(), "
			"threading, scalable-exit-2.5.31-A6\" (LKML, 19 Aug "
			"2002), 525 MHz PIII, ./perf -s 100000 -t 1 -r 0 -T "
			"with the new libpthreads, latency of single-thread "
			"create+exit, µs before → after: 68 → 17, 256 → 19, "
			"487 → 19, 951 → 19 at 200, 1000, 2000, 4000 tasks "
			"in the system (\"a steady 19 usecs\"). Source "
			"column: before/after.",
		.source = { { "200", "4.0" }, { "1000", "13.5" },
			    { "2000", "25.6" }, { "4000", "50.1" } },
		.note = "µs: per pthread_create() + pthread_join() of a "
			"thread that returns at once (the workload's value). "
			"Tasks scanned/call: Δtasks_scanned/Δcalls of "
			"exit_reparent over the legacy runs.",
		.metric = "create_join_latency", .unit = "us",
		.lower_is_better = true, .primary = VALUE,
		IDLE_TASKS,
		.args = "-N @ -m 1000", .quick_args = "-N @ -m 300",
		.cols = { MEANS_RATIO_P("µs", VALUE), TASKS_SCANNED },
	},
/*
 * The 2.6.28 fix's own tests ran the same work in both kernels and timed
 * it: elapsed for the whole work, from a capped run its loops/s.
 */
#define ELAPSED { SM_RESULT, "elapsed_for_work_s", NULL }
#define PER_SIGPROF { SM_RESULT, "cpu_s_per_sigprof", NULL }
#define SLOW_PATHS_PER_TICK { "legacy slow paths/armed tick", SC_PER_CALL, \
	L, COUNTERS("slow_paths", "ticks_armed") }
#define US_PER_SLOW_PATH { "legacy µs/slow path", SC_PER_CALL, L, \
	COUNTERS("slow_path_ns", "slow_paths"), 1e-3 }
#define FASTPATH_METRIC .metric = "elapsed_for_work", .unit = "s", \
	.lower_is_better = true, .primary = ELAPSED, \
	.param_name = "threads", .numeric = true
#define CAPPED { "capped", SC_FLAGGED, 0, { SM_RESULT, "capped", NULL } }
#define STALLS { "legacy RCU stalls kept", SC_STALLS, L, VALUE }
#define FASTPATH_NOTE \
	"s: elapsed for the whole work (results.elapsed_for_work_s: the " \
	"wall time, or for a capped run the work over its loops/s). " \
	"Slow paths/armed tick: Δslow_paths/Δticks_armed over the legacy " \
	"runs (1: every armed tick sums and rebalances every thread). " \
	"µs/slow path: Δslow_path_ns/Δslow_paths over the legacy runs, " \
	"beside the tick period, 4000 µs at HZ=250: the CPUs' slow paths " \
	"queue on one siglock, so on 2 vCPUs they fill the period from " \
	"about 2000 µs. Capped: measured runs stopped by -t before the " \
	"work was done (the workload says so on stderr too). Legacy RCU " \
	"stalls kept: stall reports during the legacy runs, warm-ups too, " \
	"in which every CPU had passed a quiescent state: the collapse " \
	"left RCU's grace-period kthread no CPU time (a report of any " \
	"other kind fails the run)."
	{
		.id = "timer_fastpath", .path = "timer_fastpath",
		.workload = "itimer-threads",
		.title = "the same work under a 10 ms ITIMER_PROF vs threads",
		.reproduces = "case 2 of the tests of f06febc96ba8 \"timers: "
			"fix itimer/many thread hang\" (bug 9906): the 2.6.27 "
			"tick, in hard interrupt, took the slow path (sum "
			"every thread, then rebalance every thread's share) "
			"whenever the current thread's share of the process "
			"timer was used up, which with many threads and a "
			"10 ms timer is every tick; once that costs a tick "
			"period, the work crawls and SIGPROF comes late.",
		.published = "Frank Mayhar, f06febc96ba8 \"timers: fix "
			"itimer/many thread hang\" (2008-09-12), its "
			"\"Performance\" section, dual-core Opteron, ITIMER "
			"at .01 s, unfixed → fixed: case 2 with 4000 threads "
			"(\"the most an unmodified kernel can handle\") 70 → "
			"5.8 s elapsed, .023 → .012 s per tick; with 8 "
			"threads 5.4 → 5.9 s, .025 → .013 s per tick. Source "
			"column: elapsed unfixed/fixed (s per tick "
			"unfixed/fixed).",
		.source = { { "8", "0.92 (1.9)" }, { "4000", "12.1 (1.9)" } },
		.note = FASTPATH_NOTE " s/SIGPROF: CPU seconds (the PROF "
			"clock the timer counts) per SIGPROF received, 0.01 "
			"asked; the source's seconds per tick are CPU seconds "
			"too: its 16-thread test's 3569.991 s of user + "
			"system over 149,543 and 58,720 ticks are its 0.024 "
			"and 0.061.",
		FASTPATH_METRIC,
		.params = { "8", "256", "1024", "2048", "4000", "8000",
			    "12000" },
		.quick_params = { "8", "4000" },
		.args = "-n @ -W 5000000 -t 40 -I 10000 --no-check",
		.quick_args = "-n @ -W 300000 -t 8 -I 10000 --no-check",
		.cols = {
			MEANS_RATIO_P("s", ELAPSED),
			{ "legacy s/SIGPROF", SC_GMEAN, L, PER_SIGPROF },
			{ "optimized s/SIGPROF", SC_GMEAN, O, PER_SIGPROF },
			{ "s/SIGPROF legacy/optimized [95% CI]", SC_RATIO_CI,
			  0, PER_SIGPROF },
			SLOW_PATHS_PER_TICK, US_PER_SLOW_PATH, CAPPED,
			STALLS,
		},
	},
	{
		.id = "timer_fastpath-once", .path = "timer_fastpath",
		.workload = "itimer-threads",
		.title = "the same work under an ITIMER_PROF that fires once",
		.reproduces = "case 3 of f06febc96ba8's tests, a control: "
			"once the timer has fired and is next due 10,000 s "
			"of CPU time away, a thread's new share is far "
			"longer than a tick and the 2.6.27 tick takes its "
			"slow path only where a share from before the expiry "
			"is still used up.",
		.published = "Frank Mayhar, f06febc96ba8 \"timers: fix "
			"itimer/many thread hang\" (2008-09-12), "
			"\"Performance\", case 3: \"A 4000-thread test with an "
			"initial timer tick of .01 second and an interval of "
			"10,000 seconds (i.e. a timer that ticks only once)\": "
			"5.5 s unfixed, 6.3 s fixed. Source column: "
			"unfixed/fixed.",
		.source = { { "4000", "0.87" } },
		.note = FASTPATH_NOTE,
		FASTPATH_METRIC,
		.params = { "4000" },
		.quick_params = { "4000" },
		.args = "-n @ -W 5000000 -t 40 --initial 10000 -I 10000000000 "
			"--no-check",
		.quick_args = "-n @ -W 300000 -t 8 --initial 10000 "
			"-I 10000000000 --no-check",
		.cols = {
			MEANS_RATIO_P("s", ELAPSED),
			SLOW_PATHS_PER_TICK, US_PER_SLOW_PATH, CAPPED,
		},
	},
#define RQ_LOCKS { "legacy rq locks/call", SC_PER_CALL, L, \
	COUNTERS("rq_locked", "calls") }
#define POUND_NOTE \
	"s: elapsed for all calls (the workload's value). Rq locks/call: " \
	"Δrq_locked/Δcalls of group_cputime over the legacy runs: " \
	"task_sched_runtime() locks the rq of a thread that is running, " \
	"and on 2 vCPUs that is the caller and at most one other, so at " \
	"most 2 a call, where the source had 32 CPUs."
/* Both pound the same way; only the call differs. */
#define POUND .note = POUND_NOTE, \
	.metric = "elapsed", .unit = "s", .lower_is_better = true, \
	.primary = VALUE, .param_name = "threads", .numeric = true, \
	.params = { "2", "5", "8", "12", "21", "30", "48" }, \
	.quick_params = { "2", "8" }, \
	.args = "-n @ -c 200000", .quick_args = "-n @ -c 20000", \
	.cols = { MEANS_RATIO_P("s", VALUE), RQ_LOCKS }
#define GHERDOVICH "Giovanni Gherdovich, 6075620b05 \"sched/cputime: " \
	"Mitigate performance regression in times()/clock_gettime()\" " \
	"(2016-08-10), its last table (MMTests poundtime, 5,000,000 calls " \
	"split over the threads, Sandy Bridge, 32 logical CPUs, 2 NUMA " \
	"nodes), s, parent of 6e998916df → 6e998916df itself, "
	{
		.id = "group_cputime", .path = "group_cputime",
		.workload = "pound-times",
		.title = "times() pounded by N threads",
		.reproduces = "6e998916df \"sched/cputime: Fix "
			"clock_nanosleep()/clock_gettime() inconsistency\" "
			"made times() and clock_gettime("
			"CLOCK_PROCESS_CPUTIME_ID) call task_sched_runtime() "
			"for every thread of the group (a remote rq lock and "
			"update_curr() each): legacy is that commit, "
			"optimized today's lockless pass, which sums as its "
			"parent did.",
		.published = GHERDOVICH "pound_times: 2.27 → 3.73, 2.78 → "
			"3.77, 2.79 → 4.41, 3.02 → 3.56, 3.10 → 4.61, 3.33 → "
			"5.75, 2.96 → 6.06 at 2, 5, 8, 12, 21, 30, 48 "
			"threads; 2.88 → 6.24, 2.98 → 6.37, 3.10 → 6.35 at "
			"79, 110, 128. Source column: itself/parent.",
		.source = { { "2", "1.64" }, { "5", "1.36" }, { "8", "1.58" },
			    { "12", "1.18" }, { "21", "1.49" },
			    { "30", "1.73" }, { "48", "2.05" },
			    { "79", "2.17" }, { "110", "2.14" },
			    { "128", "2.05" } },
		POUND,
	},
	{
		.id = "group_cputime-clock", .path = "group_cputime",
		.workload = "pound-clock",
		.title = "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) pounded by "
			"N threads",
		.reproduces = "the same commit through clock_gettime("
			"CLOCK_PROCESS_CPUTIME_ID), which sums the group in "
			"thread_group_cputime() while no CPU timer is armed.",
		.published = GHERDOVICH "pound_clock_gettime: 2.23 → 3.68, "
			"2.83 → 3.78, 2.84 → 4.31, 3.09 → 3.61, 3.14 → 4.63, "
			"3.28 → 5.75, 3.02 → 6.05 at 2, 5, 8, 12, 21, 30, 48 "
			"threads; 2.88 → 6.30, 2.95 → 6.46, 3.05 → 6.42 at "
			"79, 110, 128. Source column: itself/parent.",
		.source = { { "2", "1.65" }, { "5", "1.34" }, { "8", "1.52" },
			    { "12", "1.17" }, { "21", "1.47" },
			    { "30", "1.75" }, { "48", "2.00" },
			    { "79", "2.19" }, { "110", "2.19" },
			    { "128", "2.10" } },
		POUND,
	},
#define BUSY { SM_RESULT, "per_busy_cpu_s", "mean_per_cpu_s" }
#define WAKE { SM_RESULT_IN, "softirq_thread", "wakeups_per_busy_cpu_s" }
	{
		.id = "timer_softirq", .path = "timer_softirq",
		.workload = "softirq-rate",
		.title = "TIMER softirqs per second per busy CPU",
		.reproduces = "the raise of TIMER_SOFTIRQ on every tick, "
			"which Haris Okanovic's -rt RFC \"timers: Don't wake "
			"ktimersoftd on every tick\" took out of -rt kernels "
			"(there the raise wakes a thread, ktimersoftd) and "
			"Frederic Weisbecker's \"timer: Spare timer softirq "
			"until next expiry\" (v5.9) out of mainline: legacy "
			"raises on every tick, optimized only when a timer is "
			"due.",
		.published = "Haris Okanovic, \"[RFC v2] timers: Don't wake "
			"ktimersoftd on every tick\" (LKML, 2016-12-13), for "
			"-rt (4.8.6-rt5, CONFIG_HZ_PERIODIC=y, NI cRIO-9033, "
			"2 cores): \"a 6h run of cyclictest without CPU "
			"affinity shows decrease in 22-70us latency range. No "
			"change in max jitter. No change when `-S` is used\"; "
			"asked in the thread, he said the average latency of "
			"a single-threaded run went down and the maximum "
			"stayed the same. A measurement, but not a ratio, and "
			"no rate of raises or wake-ups: the source column "
			"says qualitative.",
		.source = { { "busy", "qualitative" },
			    { "timers", "qualitative" },
			    { "idle", "qualitative" } },
		.note = "Softirqs/s: TIMER softirqs per second per busy CPU "
			"(results.per_busy_cpu_s; idle: mean_per_cpu_s over "
			"the online CPUs). /HZ: that rate over HZ, 1 = one "
			"softirq on every tick. Wake-ups/s: voluntary context "
			"switches per second of the busy CPUs' ksoftirqd/N "
			"(arithmetic mean; none in idle): on PREEMPT_RT every "
			"raise in hardirq wakes it, elsewhere the softirq "
			"runs on IRQ exit and it stays asleep.",
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
			{ "legacy ksoftirqd wake-ups/s", SC_MEAN, L, WAKE },
			{ "optimized ksoftirqd wake-ups/s", SC_MEAN, O, WAKE },
		},
	},
#define SELECT_WALL { SM_RESULT_IN, "select", "wall_us" }
#define SELECT_CPU { SM_RESULT_IN, "select", "cpu_us" }
#define NONE_WALL { SM_RESULT_IN, "none", "wall_us" }
	{
		.id = "sleep-loop", .path = "timer_softirq",
		.workload = "sleep-loop",
		.title = "work and sleep vs threads (negative control)",
		.reproduces = "nothing: a negative control for timer_softirq, "
			"after the test_select_work comparison of RHEL 5 and "
			"RHEL 6. Every sleep of sleep-loop (select here; "
			"poll, nanosleep, usleep, a timed condition wait) is "
			"an hrtimer, which never raises TIMER_SOFTIRQ, so "
			"legacy/optimized should be 1; the RHEL 6 difference "
			"was traced to the scheduler, to how sleeping threads "
			"meet CFS, not to a timer path.",
		.published = "The test_select_work question (RHEL 5 → RHEL 6, "
			"2012), Dell Precision M6500, test_select_work 1000 "
			"10000 300 N (1 ms sleep, about 1 ms of work an "
			"iteration), average µs per iteration RHEL 5 → RHEL 6: "
			"no sleep 913.7 → 975.7, 1803.9 → 1771.8, 8567.3 → "
			"8709.1; select 1902.8 → 2143.1, 2002.0 → 2903.8, "
			"8397.9 → 9016.3 at 4, 8, 40 threads. Two kernels, "
			"not two modes of one: context, not a figure to "
			"reproduce. Source column: RHEL 6/RHEL 5, select (no "
			"sleep).",
		.source = { { "4", "1.13 (1.07)" }, { "8", "1.45 (0.98)" },
			    { "40", "1.07 (1.02)" } },
		.note = "µs per iteration (a round of work, then a sleep) of "
			"each thread: wall = elapsed/rounds, as the source's "
			"time_per_iteration; CPU = getrusage user + sys per "
			"thread and round, which the kernel scales to the "
			"precise runtime. -w 400 is about 1 ms of work in the "
			"TCG guest and -s 1000 a 1 ms sleep, the source's "
			"proportions; none: the same work without sleeping.",
		.metric = "wall_us_per_iteration", .unit = "us",
		.lower_is_better = true, .primary = SELECT_WALL,
		.param_name = "threads", .numeric = true,
		.params = { "4", "8", "40" },
		.quick_params = { "4", "8" },
		.args = "-n @ -T select,none -w 400 -s 1000 -i 50",
		.quick_args = "-n @ -T select,none -w 400 -s 1000 -i 20",
		.cols = {
			{ "legacy select wall µs", SC_GMEAN, L, SELECT_WALL },
			{ "optimized select wall µs", SC_GMEAN, O,
			  SELECT_WALL },
			{ "select wall legacy/optimized [95% CI]",
			  SC_RATIO_CI, 0, SELECT_WALL },
			P(SELECT_WALL),
			{ "select CPU legacy/optimized [95% CI]", SC_RATIO_CI,
			  0, SELECT_CPU },
			{ "none wall legacy/optimized [95% CI]", SC_RATIO_CI,
			  0, NONE_WALL },
			P(NONE_WALL),
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

const char *suite_source_at(const struct suite_exp *e, const char *param)
{
	for (int i = 0; i < SUITE_MAX_POINTS && e->source[i].param; i++)
		if (!strcmp(e->source[i].param, param))
			return e->source[i].figure;
	return NULL;
}
