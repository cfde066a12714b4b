// SPDX-License-Identifier: GPL-2.0
/*
 * itimer-threads: N busy threads under ITIMER_PROF. With a process CPU
 * timer armed, every tick of every thread checks it; when a thread's share
 * of the interval is under a tick, the 2.6.27 check (abpath timer_fastpath,
 * legacy) sums and rebalances all threads under siglock on every tick,
 * ticks cost O(threads) and work done per second drops.
 *
 * SIGPROF should arrive once per interval of process CPU time, whatever
 * the check costs, so the rate per CPU-second is also a correctness check.
 * The CPU time is read on the clock the timer runs on (the process's
 * CPUCLOCK_PROF, utime + stime as the ticks charge them), not the exact
 * runtime: under load the two drift apart by whole ticks.
 *
 * With fixed work (-w, or -W split evenly) the run lasts until every
 * thread is done, as the 2.6.28 fix's own tests did: elapsed time for the
 * same work is then the measure, and a tick that starves the threads shows
 * as a longer run, not as fewer loops.  A kernel that collapses could make
 * that run last for ever, so -t caps it; a capped run still has a rate
 * (loops/s), and the whole work's elapsed time at that rate.  The main
 * thread keeps that time: among thousands of runnable threads in such a
 * collapse it woke to its deadline minutes late (12,000 threads, -t 40:
 * 168 s), so once the workers exist it sleeps at nice -20 where it may
 * (results.main_nice), which costs them nothing while it sleeps.
 *
 * SIGPROF is a standard signal, sent to the thread whose tick found the
 * expiry: if that thread is preempted before it returns to user space,
 * another thread's next expiry finds the signal still pending and is
 * merged into it (tracing shows result "already pending"; 4 threads on 2
 * CPUs lose about 18%). So when several threads were preempted (more
 * threads than CPUs, or other work took their CPUs: any involuntary
 * context switch of a busy thread), only the upper bound is checked.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <errno.h>
#include <sched.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

static const char usage[] =
	"Usage: itimer-threads [OPTIONS]\n"
	"Run N busy threads (started together) under ITIMER_PROF for S seconds\n"
	"of wall time, or until each has done W loops of work; count SIGPROF.\n"
	"Checks that the SIGPROFs match the PROF clock the timer counts: the\n"
	"first after U, then one per I of CPU time, within the tolerance (plus\n"
	"2 signals of slack); when several threads were preempted (more threads\n"
	"than usable CPUs, or other load), pending SIGPROFs merge legitimately,\n"
	"so then only \"not more than\" is checked.\n"
	"Metric: loops of work per second, all threads (higher is better).\n"
	"\n"
	"  -n, --threads N     busy threads (4)\n"
	"  -I, --interval US   ITIMER_PROF interval, microseconds (10000)\n"
	"      --initial US    first expiry, microseconds (the interval)\n"
	"  -t, --seconds S     wall time to run (2); with -w or -W, the cap:\n"
	"                      stop there if the work is not done (no cap)\n"
	"  -w, --work W        instead: loops per thread, run until all are done\n"
	"  -W, --total-work T  or: T loops in all, the same share per thread\n"
	"                      (T / N rounded up)\n"
	"      --tolerance PCT allowed deviation of the SIGPROF rate (10)\n"
	"      --no-check      do not check the SIGPROF rate\n";

struct thr {
	pthread_t tid;
	uint64_t loops;
	uint64_t state;
	long preempted;		/* involuntary context switches while busy */
} __attribute__((aligned(64)));

/* MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_PROF): the calling process's PROF clock. */
#define CLOCK_SELF_PROF ((clockid_t)-8)

static atomic_ulong nsig;
static atomic_bool stop;
static uint64_t work_per_thread;	/* 0: run until stop */
static pthread_barrier_t barrier;

static void on_sigprof(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&nsig, 1, memory_order_relaxed);
}

static void *busy(void *arg)
{
	struct thr *t = arg;
	uint64_t x = (uintptr_t)t, n = 0;
	struct rusage r0, r1;

	pthread_barrier_wait(&barrier);
	getrusage(RUSAGE_THREAD, &r0);
	while (!atomic_load_explicit(&stop, memory_order_relaxed) &&
	       (!work_per_thread || n < work_per_thread)) {
		x = wl_spin(x, 1);
		n++;
	}
	getrusage(RUSAGE_THREAD, &r1);
	t->preempted = r1.ru_nivcsw - r0.ru_nivcsw;
	t->loops = n;
	t->state = x;
	return NULL;
}

static double prof_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_SELF_PROF, &ts) < 0)
		wl_die_err(errno, "clock_gettime(process CPUCLOCK_PROF)");
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void set_itimer(long long initial_us, long long interval_us)
{
	struct itimerval it = {
		.it_interval = { interval_us / 1000000, interval_us % 1000000 },
		.it_value = { initial_us / 1000000, initial_us % 1000000 },
	};

	if (setitimer(ITIMER_PROF, &it, NULL) < 0)
		wl_die_err(errno, "setitimer(ITIMER_PROF)");
}

/*
 * Join every thread by @deadline (CLOCK_MONOTONIC, seconds); false if one
 * was still working then.  @joined counts the ones done, for the rest.
 */
static bool join_by(struct thr *thr, int n, double deadline, int *joined)
{
	struct timespec ts = {
		.tv_sec = (time_t)deadline,
		.tv_nsec = (long)((deadline - (double)(time_t)deadline) * 1e9),
	};
	int err;

	for (; *joined < n; ++*joined) {
		err = pthread_clockjoin_np(thr[*joined].tid, NULL,
					   CLOCK_MONOTONIC, &ts);
		if (err == ETIMEDOUT)
			return false;
		if (err)
			wl_die_err(err, "pthread_clockjoin_np");
	}
	return true;
}

int main(int argc, char **argv)
{
	enum { OPT_TOL = 256, OPT_NOCHECK, OPT_INITIAL };
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'I' },
		{ "initial", required_argument, NULL, OPT_INITIAL },
		{ "seconds", required_argument, NULL, 't' },
		{ "work", required_argument, NULL, 'w' },
		{ "total-work", required_argument, NULL, 'W' },
		{ "tolerance", required_argument, NULL, OPT_TOL },
		{ "no-check", no_argument, NULL, OPT_NOCHECK },
		WL_LONGOPTS, { 0 }
	};
	/* A day: a timer that fires once is a long interval after a short start. */
	const long long max_us = 86400LL * 1000000;
	int nthreads = 4, c, err, joined = 0, main_nice = 0;
	long long interval = 10000, initial = -1, total_work = 0;
	double seconds = 2, tol = 10, t0, t1, cpu0, cpu1, prof0, prof1;
	double wall, cpu, prof_s, prof_us;
	double rate, expect, dev, nexp, slack;
	bool check = true, merging, seconds_given = false, capped = false;
	unsigned long sigs;
	uint64_t loops = 0, x = 0, work_all = 0;
	long preempted = 0;
	struct thr *thr;
	struct sigaction sa;
	sigset_t prof;
	cpu_set_t cpus;
	int ncpus = 1;

	wl_init("itimer-threads", usage);
	while ((c = getopt_long(argc, argv, "n:I:t:w:W:" WL_SHORTOPTS, lopts,
				NULL)) != -1) {
		switch (c) {
		case 'n': nthreads = wl_arg_ll("--threads", optarg, 1, 16384); break;
		case 'I': interval = wl_arg_ll("--interval", optarg, 1, max_us); break;
		case OPT_INITIAL: initial = wl_arg_ll("--initial", optarg, 1, max_us); break;
		case 't':
			seconds = wl_arg_double("--seconds", optarg, 0.001, 86400);
			seconds_given = true;
			break;
		case 'w': work_per_thread = wl_arg_ll("--work", optarg, 1, 1LL << 40); break;
		case 'W': total_work = wl_arg_ll("--total-work", optarg, 1, 1LL << 40); break;
		case OPT_TOL: tol = wl_arg_double("--tolerance", optarg, 0, 1000); break;
		case OPT_NOCHECK: check = false; break;
		default: wl_common_opt(c);
		}
	}
	wl_no_args(argc, argv);
	if (work_per_thread && total_work)
		wl_usage_error("--work and --total-work do not go together");
	if (total_work)
		work_per_thread = (total_work + nthreads - 1) / nthreads;
	if (initial < 0)
		initial = interval;
	work_all = work_per_thread * nthreads;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigprof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);

	/*
	 * Each on a cache line of its own, which calloc() does not promise
	 * (16 bytes): UBSan's misaligned access, in the sanitized host suite.
	 */
	if (posix_memalign((void **)&thr, _Alignof(struct thr),
			   (size_t)nthreads * sizeof(*thr)))
		wl_die("out of memory");
	memset(thr, 0, (size_t)nthreads * sizeof(*thr));
	pthread_barrier_init(&barrier, NULL, nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		err = pthread_create(&thr[i].tid, NULL, busy, &thr[i]);
		if (err)
			wl_die_err(err, "pthread_create");
	}
	/* After the workers are created: they would inherit it. */
	if (setpriority(PRIO_PROCESS, 0, -20) == 0)
		main_nice = -20;
	/* Only the busy threads take SIGPROF, as the CPU time is theirs. */
	sigemptyset(&prof);
	sigaddset(&prof, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &prof, NULL);

	/*
	 * Armed and timed before the release, while every thread waits in
	 * the barrier: after it, this thread is one of N + 1 runnable ones
	 * and with thousands would start the clock long after the work.
	 */
	set_itimer(initial, interval);
	t0 = wl_now();
	cpu0 = wl_cpu_now();
	prof0 = prof_now();
	pthread_barrier_wait(&barrier);
	if (work_per_thread && seconds_given) {
		capped = !join_by(thr, nthreads, t0 + seconds, &joined);
		if (capped)
			atomic_store(&stop, true);
	} else if (work_per_thread) {
		for (; joined < nthreads; joined++)
			pthread_join(thr[joined].tid, NULL);
	} else {
		wl_sleep(seconds);
		atomic_store(&stop, true);
	}
	prof1 = prof_now();
	cpu1 = wl_cpu_now();
	t1 = wl_now();
	sigs = atomic_load(&nsig);
	set_itimer(0, 0);
	for (; joined < nthreads; joined++)
		pthread_join(thr[joined].tid, NULL);

	for (int i = 0; i < nthreads; i++) {
		loops += thr[i].loops;
		x ^= thr[i].state;
		preempted += thr[i].preempted;
	}
	wl_consume(x);
	wall = t1 - t0;
	cpu = cpu1 - cpu0;
	prof_s = prof1 - prof0;
	prof_us = prof_s * 1e6;
	rate = prof_s > 0 ? sigs / prof_s : 0;
	expect = 1e6 / interval;
	dev = 100 * fabs(rate - expect) / expect;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		ncpus = CPU_COUNT(&cpus);
	merging = nthreads > 1 && (nthreads > ncpus || preempted > 0);
	/*
	 * The first SIGPROF after @initial of CPU time, then one per
	 * @interval; before the first, the fraction of the way to it, so
	 * that with the two equal this is prof_us / interval throughout.
	 * Slack for the partial intervals at both ends of short runs.
	 */
	nexp = prof_us < initial ? prof_us / initial
				 : 1 + (prof_us - initial) / interval;
	slack = nexp * tol / 100 + 2;
	if (check) {
		wl_check("sigprof_not_excess", sigs <= nexp + slack,
			 "%lu SIGPROF for %.3f CPU-seconds, at most %.0f expected",
			 sigs, prof_s, nexp + slack);
		if (merging)
			wl_check_skip("sigprof_rate");
		else
			wl_check("sigprof_rate", fabs(sigs - nexp) <= slack,
				 "%.1f SIGPROF per CPU-second, expected %.1f +- %g%%",
				 rate, expect, tol);
	} else {
		wl_check_skip("sigprof_not_excess");
		wl_check_skip("sigprof_rate");
	}
	/* Said apart from the report, so that abpath bench shows it too. */
	if (capped)
		fprintf(stderr, "itimer-threads: capped at %g s: %llu of %llu "
			"loops done; elapsed_for_work_s is the whole work at "
			"this run's rate\n", seconds, (unsigned long long)loops,
			(unsigned long long)work_all);

	wl_report_begin("loops_per_s", loops / wall, "loops/s", false);
	wl_obj("params");
	wl_int("threads", nthreads);
	wl_int("interval_us", interval);
	wl_int("initial_us", initial);
	if (work_per_thread) {
		if (seconds_given)
			wl_num("seconds", seconds);
		else
			wl_null("seconds");
		wl_int("work", work_per_thread);
		if (total_work)
			wl_int("total_work", total_work);
		else
			wl_null("total_work");
	} else {
		wl_num("seconds", seconds);
		wl_null("work");
		wl_null("total_work");
	}
	wl_num("tolerance_pct", tol);
	wl_end();
	wl_obj("results");
	wl_num("loops_per_s", loops / wall);
	wl_int("loops", loops);
	wl_num("wall_s", wall);
	if (work_per_thread) {
		wl_bool("capped", capped);
		wl_num("elapsed_for_work_s", loops ? work_all * wall / loops
						   : NAN);
	} else {
		wl_null("capped");
		wl_null("elapsed_for_work_s");
	}
	wl_num("cpu_s", cpu);
	wl_num("prof_s", prof_s);
	wl_int("preemptions", preempted);
	wl_int("main_nice", main_nice);
	wl_int("sigprof", sigs);
	wl_num("sigprof_per_cpu_s", rate);
	wl_num("expected_per_cpu_s", expect);
	wl_num("deviation_pct", dev);
	wl_int("cpus", ncpus);
	wl_bool("signals_may_merge", merging);
	wl_num("cpu_s_per_sigprof", sigs ? prof_s / sigs : NAN);
	wl_num("wall_s_per_sigprof", sigs ? wall / sigs : NAN);
	wl_arr("loops_per_thread");
	for (int i = 0; i < nthreads; i++)
		wl_int(NULL, thr[i].loops);
	wl_end();
	wl_end();
	return wl_report_end();
}
