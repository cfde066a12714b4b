// SPDX-License-Identifier: GPL-2.0
/*
 * gcputime: checks the thread-group CPU time that times(), getrusage() and
 * CLOCK_PROCESS_CPUTIME_ID report (thread_group_cputime(), the
 * group_cputime path) for consistency, whatever its mode.
 *
 *   gcputime monotonic [-n THREADS] [-t SECONDS]
 *   gcputime proc [-n THREADS] [-r ROUNDS]
 *   gcputime rusage [-t MS]
 *
 * Exit 0 with one summary line, 1 on a wrong answer ("gcputime: error:
 * ..." names it), 2 on usage errors.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USAGE								\
	"usage: gcputime monotonic [-n THREADS] [-t SECONDS]\n"		\
	"       gcputime proc [-n THREADS] [-r ROUNDS]\n"		\
	"       gcputime rusage [-t MS]\n"

#include "progs.h"

static atomic_int stop;
static pthread_barrier_t go;

static void *burn(void *arg __attribute__((unused)))
{
	volatile unsigned long x = 0;

	pthread_barrier_wait(&go);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		x++;
	return NULL;
}

static void spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	if (pthread_create(t, NULL, fn, arg))
		fail("pthread_create");
}

/*
 * Every reading is a fresh sum over the live threads' runtimes (each only
 * grows) plus the exited ones'; utime and stime are that sum split by
 * cputime_adjust(), which clamps against the last split it handed out so
 * neither goes backwards. Each reader checks every value against its own
 * previous one: a sampler that read a thread's runtime twice, or once with
 * and once without its pending part, shows up here.
 */
struct reader {
	pthread_t t;
	int id;
	long n;
};

#define MONO(what, prev, cur, unit) do {				\
	if ((cur) < (prev))						\
		fail("monotonic: reader %d: %s went backwards: %lld -> %lld %s", \
		     r->id, what, (long long)(prev), (long long)(cur), unit); \
	(prev) = (cur);							\
} while (0)

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	int64_t tu = 0, ts = 0, tsum = 0, ru = 0, rs = 0, rsum = 0, clk = 0, v;
	struct rusage usage;
	struct tms t;

	pthread_barrier_wait(&go);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (times(&t) == (clock_t)-1)
			fail("times: %s", strerror(errno));
		MONO("times() tms_utime", tu, (int64_t)t.tms_utime, "ticks");
		MONO("times() tms_stime", ts, (int64_t)t.tms_stime, "ticks");
		MONO("times() utime+stime", tsum, (int64_t)(t.tms_utime + t.tms_stime), "ticks");
		if (getrusage(RUSAGE_SELF, &usage))
			fail("getrusage: %s", strerror(errno));
		MONO("getrusage() ru_utime", ru, tv_us(usage.ru_utime), "us");
		MONO("getrusage() ru_stime", rs, tv_us(usage.ru_stime), "us");
		v = tv_us(usage.ru_utime) + tv_us(usage.ru_stime);
		MONO("getrusage() utime+stime", rsum, v, "us");
		v = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		MONO("CLOCK_PROCESS_CPUTIME_ID", clk, v, "ns");
		r->n++;
	}
	return NULL;
}

static int cmd_monotonic(int argc, char **argv)
{
	int n = 2 * online_cpus(), busy, i;
	double secs = 1.0;
	const struct num_opt opts[] = {
		{ 'n', 2, 1024, &n, NULL },
		{ 't', 0.01, 60, NULL, &secs },
	};
	struct reader *rd;
	pthread_t *bt;
	long total = 0;

	num_opts(argc, argv, opts, 2, 0);
	busy = n / 2;
	bt = calloc(busy, sizeof(*bt));
	rd = calloc(n - busy, sizeof(*rd));
	if (!bt || !rd)
		fail("out of memory");
	pthread_barrier_init(&go, NULL, n + 1);
	for (i = 0; i < busy; i++)
		spawn(&bt[i], burn, NULL);
	for (i = 0; i < n - busy; i++) {
		rd[i].id = i;
		spawn(&rd[i].t, read_loop, &rd[i]);
	}
	pthread_barrier_wait(&go);
	sleep_ns((int64_t)(secs * 1e9));
	atomic_store(&stop, 1);
	for (i = 0; i < busy; i++)
		pthread_join(bt[i], NULL);
	for (i = 0; i < n - busy; i++) {
		pthread_join(rd[i].t, NULL);
		total += rd[i].n;
	}
	free(bt);
	free(rd);
	printf("gcputime monotonic: %d threads (%d busy, %d reading), %.2f s, %ld readings x 7 values, none decreased\n",
	       n, busy, n - busy, secs, total);
	return 0;
}

/* Sum of utime+stime (clock ticks) over /proc/self/task/, and its count. */
static long long proc_ticks(int *nthreads)
{
	char path[300], buf[1024], *p, *tok, *save;
	long long sum = 0;
	struct dirent *de;
	int fd, field;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/task");
	if (!d)
		fail("/proc/self/task: %s", strerror(errno));
	*nthreads = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			fail("%s: %s", path, strerror(errno));
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			fail("%s: empty", path);
		buf[len] = 0;
		/* comm (field 2) may hold spaces: count from its ')'. */
		p = strrchr(buf, ')');
		if (!p)
			fail("%s: no ')'", path);
		field = 3;
		for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++)
			if (field == 14 || field == 15)
				sum += strtoll(tok, NULL, 10);
		if (field <= 15)
			fail("%s: only %d fields", path, field - 1);
		(*nthreads)++;
	}
	closedir(d);
	return sum;
}

/*
 * times() is the group's runtime T split by cputime_adjust() into utime and
 * stime (their sum is exactly T), each truncated to clock ticks; /proc
 * gives each thread's pair the same way. No thread exits in the window
 * (times() would keep its time, /proc would lose it), and runtimes only
 * grow, so T lies between the threads' runtimes summed before and after.
 * Truncation is all that moves the numbers: times() loses under 2 ticks
 * (two fields), so times() >= before - 1; each thread's pair loses under 2,
 * so times() <= after + 2 per thread - 1. Bounds used: before - 2 and
 * after + 2 per thread + 1 (T as legacy mode samples it also holds the
 * running threads' pending runtime, but that is committed as it is read,
 * so /proc sees it afterwards). A thread counted twice or missed shows up
 * once threads have run for more than the slack (2 ticks each).
 */
static int cmd_proc(int argc, char **argv)
{
	int n = online_cpus() + 1, rounds = 50, i, nt, nt2;
	const struct num_opt opts[] = {
		{ 'n', 1, 1024, &n, NULL },
		{ 'r', 1, 100000, &rounds, NULL },
	};
	long long before, after, mid = 0, slack, lo = 0, hi = 0;
	long hz = sysconf(_SC_CLK_TCK);
	pthread_t *bt;
	struct tms t;

	num_opts(argc, argv, opts, 2, 0);
	bt = calloc(n, sizeof(*bt));
	if (!bt)
		fail("out of memory");
	pthread_barrier_init(&go, NULL, n + 1);
	for (i = 0; i < n; i++)
		spawn(&bt[i], burn, NULL);
	pthread_barrier_wait(&go);
	for (i = 0; i < rounds; i++) {
		/* Let CPU time pile up between rounds. */
		sleep_ns(10000000);
		before = proc_ticks(&nt);
		if (times(&t) == (clock_t)-1)
			fail("times: %s", strerror(errno));
		mid = (long long)t.tms_utime + t.tms_stime;
		after = proc_ticks(&nt2);
		if (nt != n + 1 || nt2 != n + 1)
			fail("proc: /proc/self/task lists %d then %d threads, expected %d",
			     nt, nt2, n + 1);
		slack = 2 * nt + 1;
		if (mid < before - 2 || mid > after + slack)
			fail("proc: round %d: times() says %lld ticks, /proc/self/task sums %lld before and %lld after (allowed -2..+%lld)",
			     i, mid, before, after, slack);
		if (i == 0 || mid - before < lo)
			lo = mid - before;
		if (i == 0 || mid - after > hi)
			hi = mid - after;
	}
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(bt[i], NULL);
	free(bt);
	printf("gcputime proc: %d busy threads, %d rounds, %lld ticks at %ld Hz; times() - /proc before >= %+lld (allowed -2), - after <= %+lld (allowed +%d)\n",
	       n, rounds, mid, hz, lo, hi, 2 * (n + 1) + 1);
	return 0;
}

struct report {
	int64_t from_ns;	/* CLOCK_MONOTONIC: what ru_us lacks ran after */
	int64_t ru_us;		/* getrusage(RUSAGE_SELF) utime+stime */
	int64_t clk_ns;		/* CLOCK_PROCESS_CPUTIME_ID, read right after */
	int64_t read_ns;	/* CLOCK_MONOTONIC after both reads */
};

static int64_t burn_ns;

/*
 * Burn until this thread's own clock passes burn_ns, then sleep forever.
 * Reading its own clock commits the thread's runtime (task_sched_runtime()
 * of current), so what it runs after its last read, which a getrusage()
 * from another thread may not see yet, runs after the CLOCK_MONOTONIC
 * time taken just before that read, left in *arg.
 */
static void *burn_then_sleep(void *arg)
{
	int64_t *before_last_read = arg;
	volatile unsigned long x = 0;
	int i;

	for (;;) {
		for (i = 0; i < 100000; i++)
			x++;
		*before_last_read = now_ns(CLOCK_MONOTONIC);
		if (now_ns(CLOCK_THREAD_CPUTIME_ID) >= burn_ns)
			break;
	}
	pthread_barrier_wait(&go);
	for (;;)
		pause();
	return NULL;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/*
 * A child burns MS ms of CPU in two threads, which then sleep (alive, their
 * runtime committed), and reports its own view of its CPU time just before
 * _exit(). No CPU timer is armed in it, so its getrusage() and
 * CLOCK_PROCESS_CPUTIME_ID both sample thread_group_cputime(), the group's
 * runtime; getrusage() splits that into utime and stime summing to it
 * exactly, then truncates each to microseconds. wait4() and RUSAGE_CHILDREN
 * sample it once more, with every thread gone.
 *
 * Lower bounds: the runtime never goes backwards, so a later sample is at
 * least an earlier one; 1 ms covers the microsecond rounding.
 *
 * Upper bounds, from the wall clock: what a later sample holds and the
 * child's getrusage() did not is CPU time its threads ran after from_ns.
 * The reading thread's own pending runtime is committed by the sample
 * itself; a sleeping thread's was committed when it blocked; and what the
 * burners ran since their last own clock read, which an optimized sample
 * taken on another thread does not see until they block, ran after
 * from_ns (burn_then_sleep()). Runtime is sched_clock() time spent on a
 * CPU, and sched_clock() and CLOCK_MONOTONIC count at one rate (both are
 * the TSC on x86, the test VM's clocksource), so the three threads add at
 * most min(3, online CPUs) times the wall time from from_ns to the later
 * sample, plus the 1 ms of rounding. For the CPU clock read right after
 * getrusage() that window ends at read_ns; for wait4(), when the parent
 * returns from it, so it holds the exit path of all three threads.
 */
static int cmd_rusage(int argc, char **argv)
{
	int ms = 400, fd[2], status, threads = 3, cpus;
	const struct num_opt opts[] = { { 't', 2, 60000, &ms, NULL } };
	int64_t w, dchildren, diff, reaped_ns, clk_max_us, wait_max_us;
	struct rusage c0, c1, ru;
	struct report rep;
	pid_t pid;

	num_opts(argc, argv, opts, 1, 0);
	if (getrusage(RUSAGE_CHILDREN, &c0) || pipe(fd))
		fail("getrusage/pipe: %s", strerror(errno));
	burn_ns = ms * 500000LL;
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int64_t before_last_read[2];
		struct rusage self;
		pthread_t t[2];

		pthread_barrier_init(&go, NULL, 3);
		spawn(&t[0], burn_then_sleep, &before_last_read[0]);
		spawn(&t[1], burn_then_sleep, &before_last_read[1]);
		pthread_barrier_wait(&go);
		rep.from_ns = min64(before_last_read[0], before_last_read[1]);
		rep.from_ns = min64(rep.from_ns, now_ns(CLOCK_MONOTONIC));
		getrusage(RUSAGE_SELF, &self);
		rep.ru_us = tv_us(self.ru_utime) + tv_us(self.ru_stime);
		rep.clk_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		rep.read_ns = now_ns(CLOCK_MONOTONIC);
		if (write(fd[1], &rep, sizeof(rep)) != sizeof(rep))
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	if (read(fd[0], &rep, sizeof(rep)) != sizeof(rep))
		fail("rusage: child did not report");
	if (wait4(pid, &status, 0, &ru) != pid)
		fail("wait4: %s", strerror(errno));
	reaped_ns = now_ns(CLOCK_MONOTONIC);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("rusage: child failed (status 0x%x)", status);
	getrusage(RUSAGE_CHILDREN, &c1);
	w = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	dchildren = tv_us(c1.ru_utime) + tv_us(c1.ru_stime) -
		    tv_us(c0.ru_utime) - tv_us(c0.ru_stime);
	cpus = min64(threads, online_cpus());
	clk_max_us = cpus * (rep.read_ns - rep.from_ns) / 1000 + 1000;
	wait_max_us = cpus * (reaped_ns - rep.from_ns) / 1000 + 1000;

	/* Its threads' own clocks passed MS/2 each: the group has MS. */
	if (rep.clk_ns < ms * 1000000LL)
		fail("rusage: child's CPU clock %.3f ms < the %d ms its threads burned",
		     rep.clk_ns / 1e6, ms);
	diff = rep.clk_ns / 1000 - rep.ru_us;
	if (diff < -1000 || diff > clk_max_us)
		fail("rusage: child's getrusage() %.3f ms, then its CPU clock %.3f ms (%+.3f ms): allowed -1..+%.3f ms (%d CPUs x %.3f ms)",
		     rep.ru_us / 1e3, rep.clk_ns / 1e6, diff / 1e3,
		     clk_max_us / 1e3, cpus, (rep.read_ns - rep.from_ns) / 1e6);
	if (w < rep.ru_us - 1000 || w > rep.ru_us + wait_max_us)
		fail("rusage: wait4() says %.3f ms, the child last saw %.3f ms (%+.3f ms): allowed -1..+%.3f ms (%d CPUs x %.3f ms)",
		     w / 1e3, rep.ru_us / 1e3, (w - rep.ru_us) / 1e3,
		     wait_max_us / 1e3, cpus, (reaped_ns - rep.from_ns) / 1e6);
	if (dchildren < w - 1000 || dchildren > w + 1000)
		fail("rusage: RUSAGE_CHILDREN grew by %.3f ms, wait4() reported %.3f ms (allowed -1..+1 ms)",
		     dchildren / 1e3, w / 1e3);
	printf("gcputime rusage: child %d ms in 2 threads; getrusage %.3f ms, clock %.3f ms (%+.3f, allowed -1..+%.3f), wait4 %.3f ms (%+.3f, allowed -1..+%.3f: %d CPUs x %.3f ms), RUSAGE_CHILDREN %+.3f ms\n",
	       ms, rep.ru_us / 1e3, rep.clk_ns / 1e6, diff / 1e3,
	       clk_max_us / 1e3, w / 1e3, (w - rep.ru_us) / 1e3,
	       wait_max_us / 1e3, cpus, (reaped_ns - rep.from_ns) / 1e6,
	       dchildren / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct prog_cmd cmds[] = {
		{ "monotonic", cmd_monotonic },
		{ "proc", cmd_proc },
		{ "rusage", cmd_rusage },
	};

	return run_cmd(argc, argv, cmds, 3);
}
