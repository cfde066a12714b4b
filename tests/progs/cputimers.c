// SPDX-License-Identifier: GPL-2.0
/*
 * cputimers: checks that process CPU timers keep their promises whatever
 * the modes of timer_fastpath (the per-tick expiry check behind
 * run_posix_cpu_timers()) and group_cputime (the sample taken when a timer
 * or RLIMIT_CPU is armed).
 *
 *   cputimers itimer prof|virt [-n THREADS] [-t SECONDS] [-I US]
 *   cputimers oneshot [-n THREADS] [-m MS]
 *   cputimers rlimit [-s SOFT] [-h HARD] [--tick-us US]
 *
 * Exit 0 with one summary line, 1 on a wrong answer ("cputimers: error:
 * ..." names it), 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USAGE								\
	"usage: cputimers itimer prof|virt [-n THREADS] [-t SECONDS] [-I US]\n" \
	"       cputimers oneshot [-n THREADS] [-m MS]\n"		\
	"       cputimers rlimit [-s SOFT] [-h HARD] [--tick-us US]   (SOFT < HARD)\n"

#include "progs.h"

/*
 * CPU itimers and RLIMIT_CPU fire on tick-sampled utime/stime (a tick
 * charges a whole tick to the task it interrupts); user space reads the
 * precise runtime P (getrusage() scales the samples to it). They part
 * ways: on a busy host short tasks run between ticks and our busy threads
 * are over-charged (seen: +20%); under TCG a starved vCPU misses ticks,
 * which P counts and the samples do not (seen: -25%). /proc/stat's growth
 * S is every task's tick samples: ours plus others', minus lost ticks. So
 * ours lies between P and S, and the checks take that range plus slack;
 * on an idle machine S and P agree and the range is tight.
 */
#define ST_USER	0x03	/* user nice */
#define ST_PROF	0x67	/* user nice system irq softirq */

static long clk_tck = 100;

/* Sum of the /proc/stat "cpu" fields in @mask, in us; -1 if unreadable. */
static int64_t stat_us(int mask)		/* async-signal-safe */
{
	char buf[256], *p = buf + 3;
	int fd = open("/proc/stat", O_RDONLY), i;
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	uint64_t sum = 0, v;

	if (fd >= 0)
		close(fd);
	if (n < 20 || memcmp(buf, "cpu ", 4))
		return -1;
	buf[n] = 0;
	for (i = 0; i < 8; i++) {
		for (v = 0; *p == ' '; p++)
			;
		for (; *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (uint64_t)(*p - '0');
		if (mask & (1 << i))
			sum += v;
	}
	return (int64_t)(sum * 1000000 / (uint64_t)clk_tck);
}

/* S between two stat_us() readings; P if /proc/stat was unreadable. */
#define stat_delta(s0, s1, p)	((s0) < 0 || (s1) < 0 ? (p) : (s1) - (s0))
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

/* Busy threads: spin in user space from the barrier until told to stop. */
static atomic_int stop;
static pthread_barrier_t go;
static pthread_t burners[1024];
static int nburners;

static void *burn(void *arg __attribute__((unused)))
{
	volatile unsigned long x = 0;
	sigset_t none;

	/* main blocks the timer signals: the busy threads take them. */
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	pthread_barrier_wait(&go);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		x++;
	return NULL;
}

static void start_burners(int n, int sig)
{
	sigset_t set;
	int i;

	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&go, NULL, n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&burners[i], NULL, burn, NULL))
			fail("pthread_create");
	nburners = n;
}

static void stop_burners(void)
{
	atomic_store(&stop, 1);
	for (int i = 0; i < nburners; i++)
		pthread_join(burners[i], NULL);
}

static atomic_long nsig;
static atomic_llong fired_at;	/* oneshot: CPU clock in the handler */

static void on_count(int sig __attribute__((unused)))
{
	atomic_fetch_add(&nsig, 1);
}

static void catch(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL))
		fail("sigaction(%d): %s", sig, strerror(errno));
}

/*
 * ITIMER_PROF/VIRTUAL are checked on each tick of a CPU running one of our
 * threads and fire at most once per check. With no more busy threads than
 * CPUs a tick adds less CPU time than the interval (10 ms), nothing merges,
 * and the count follows the tick-sampled time (above). Slack 10% + 2: the
 * last interval cut short, one signal pending at disarm, /proc/stat's
 * 10 ms truncation.
 */
static int cmd_itimer(int argc, char **argv)
{
	int n = online_cpus(), which, sig, opt, mask;
	double secs = 1.5, us = 10000, lo_n, hi_n;
	int64_t s0, s1, cpu, st;
	struct itimerval it = { { 0, 0 }, { 0, 0 } }, off = it;
	struct rusage r0, r1;
	const char *mode;
	long count;

	while ((opt = getopt(argc, argv, "n:t:I:")) != -1) {
		switch (opt) {
		case 'n': n = (int)num(optarg, 1, 1024); break;
		case 't': secs = num(optarg, 0.05, 60); break;
		case 'I': us = (int)num(optarg, 1000, 1000000); break;
		default: usage();
		}
	}
	if (argc - optind != 1)
		usage();
	mode = argv[optind];
	which = !strcmp(mode, "prof") ? ITIMER_PROF :
		!strcmp(mode, "virt") ? ITIMER_VIRTUAL : -1;
	if (which < 0)
		usage();
	sig = which == ITIMER_PROF ? SIGPROF : SIGVTALRM;
	mask = which == ITIMER_PROF ? ST_PROF : ST_USER;
	/* More runnable threads than CPUs: signals merge legitimately. */
	n = MIN(n, online_cpus());

	catch(sig, on_count);
	start_burners(n, sig);
	it.it_interval = (struct timeval){ (long)us / 1000000, (long)us % 1000000 };
	it.it_value = it.it_interval;
	if (getrusage(RUSAGE_SELF, &r0))
		fail("getrusage: %s", strerror(errno));
	s0 = stat_us(mask);
	if (setitimer(which, &it, NULL))
		fail("setitimer(%s): %s", mode, strerror(errno));
	pthread_barrier_wait(&go);
	sleep_ns((int64_t)(secs * 1e9));
	if (setitimer(which, &off, NULL))
		fail("setitimer(%s, 0): %s", mode, strerror(errno));
	getrusage(RUSAGE_SELF, &r1);
	s1 = stat_us(mask);
	stop_burners();

	cpu = tv_us(r1.ru_utime) - tv_us(r0.ru_utime);
	if (which == ITIMER_PROF)
		cpu += tv_us(r1.ru_stime) - tv_us(r0.ru_stime);
	st = stat_delta(s0, s1, cpu);
	lo_n = MIN(cpu, st) / us;
	hi_n = MAX(cpu, st) / us;
	count = atomic_load(&nsig);
	if (count < lo_n * 0.9 - 2 || count > hi_n * 1.1 + 2)
		fail("%s: %ld signals at %.0f us for %.3f cpu-s (%.3f tick-s system-wide): expected %.0f..%.0f, -10%%-2/+10%%+2",
		     mode, count, us, cpu / 1e6, st / 1e6, lo_n, hi_n);
	printf("cputimers %s: %d threads, %.2f cpu-s, %ld signals, expected %.0f, deviation %+.1f%%; %.2f tick-s system-wide, %+.1f%%\n",
	       mode, n, cpu / 1e6, count, cpu / us, 100.0 * (count * us - cpu) / MAX(cpu, 1),
	       st / 1e6, 100.0 * (count * us - st) / MAX(st, 1));
	return 0;
}

static void on_oneshot(int sig __attribute__((unused)))
{
	if (atomic_fetch_add(&nsig, 1) == 0)
		atomic_store(&fired_at, now_ns(CLOCK_PROCESS_CPUTIME_ID));
}

/*
 * A CLOCK_PROCESS_CPUTIME_ID timer expires on the group's summed runtime
 * (the atomic cputimer, seeded by thread_group_cputime() when armed). It
 * may be late by up to a tick of runtime per running thread (checked only
 * on ticks) but never early: the clock read in the handler can only be at
 * or past the sample that fired it. One-shot: exactly one signal.
 */
static int cmd_oneshot(int argc, char **argv)
{
	int n = online_cpus(), ms = 300, opt;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL };
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	int64_t t0, expiry, end, deadline, fired;
	timer_t timer;
	long count;

	while ((opt = getopt(argc, argv, "n:m:")) != -1) {
		switch (opt) {
		case 'n': n = (int)num(optarg, 1, 1024); break;
		case 'm': ms = (int)num(optarg, 1, 60000); break;
		default: usage();
		}
	}
	if (argc != optind)
		usage();

	catch(SIGRTMIN, on_oneshot);
	start_burners(n, SIGRTMIN);
	sev.sigev_signo = SIGRTMIN;
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &sev, &timer))
		fail("timer_create: %s", strerror(errno));
	/* Absolute expiry, so we know exactly which CPU time it stands for. */
	t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	expiry = t0 + ms * 1000000LL;
	end = t0 + 3 * ms * 1000000LL;
	its.it_value = (struct timespec){ expiry / 1000000000, expiry % 1000000000 };
	if (timer_settime(timer, TIMER_ABSTIME, &its, NULL))
		fail("timer_settime: %s", strerror(errno));
	pthread_barrier_wait(&go);
	deadline = now_ns(CLOCK_MONOTONIC) + 60 * 1000000000LL;
	while (now_ns(CLOCK_PROCESS_CPUTIME_ID) < end) {
		if (now_ns(CLOCK_MONOTONIC) > deadline)
			fail("oneshot: process CPU clock stuck below %.1f ms after 60 s",
			     (end - t0) / 1e6);
		sleep_ns(2000000);
	}
	stop_burners();
	timer_delete(timer);

	count = atomic_load(&nsig);
	if (count != 1)
		fail("oneshot: %ld signals from a one-shot timer at %d ms cpu (expected 1)",
		     count, ms);
	fired = atomic_load(&fired_at);
	if (fired < expiry)
		fail("oneshot: fired early, at %.3f ms cpu, expiry %d ms (%.3f ms early)",
		     (fired - t0) / 1e6, ms, (expiry - fired) / 1e6);
	printf("cputimers oneshot: %d threads, expiry %d ms cpu, fired at %.2f ms cpu, %.2f ms late, 1 signal\n",
	       n, ms, (fired - t0) / 1e6, (fired - expiry) / 1e6);
	return 0;
}

static int xcpu_fd;

struct xcpu {
	int64_t p;	/* CLOCK_PROCESS_CPUTIME_ID, ns */
	int64_t s;	/* stat_us(ST_PROF) */
};

static void on_xcpu(int sig __attribute__((unused)))
{
	struct xcpu r;

	if (atomic_fetch_add(&nsig, 1))
		return;
	r.p = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	r.s = stat_us(ST_PROF);
	if (write(xcpu_fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
}

/*
 * RLIMIT_CPU: SIGXCPU once the tick-sampled utime+stime passes SOFT,
 * SIGKILL once it passes HARD; that lies between P and S (above), read in
 * the handler and after the kill. Slack: --tick-us (4000, HZ=250) + 5%
 * below (the first tick over-charges a child started mid-tick; /proc/stat
 * truncates to 10 ms), 0.5 s above.
 */
static int in_window(int64_t p, int64_t s, int limit, int64_t tick)
{
	int64_t lim = limit * 1000000000LL;

	return MAX(p, s) >= lim - tick - lim / 20 && MIN(p, s) < lim + 500000000;
}

static int cmd_rlimit(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tick-us", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	int soft = 1, hard = 2, opt, fd[2], status;
	int64_t tick = 4000000, total, st, sf, s0, deadline;
	volatile unsigned long x = 0;
	struct xcpu first;
	struct rusage ru;
	pid_t pid, got;

	while ((opt = getopt_long(argc, argv, "s:h:", lopts, NULL)) != -1) {
		switch (opt) {
		case 's': soft = (int)num(optarg, 1, 60); break;
		case 'h': hard = (int)num(optarg, 1, 60); break;
		case 'T': tick = (int64_t)num(optarg, 0, 1000000) * 1000; break;
		default: usage();
		}
	}
	if (argc != optind || soft >= hard)
		usage();
	if (pipe(fd))
		fail("pipe: %s", strerror(errno));
	s0 = stat_us(ST_PROF);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		struct rlimit rl = { soft, hard };

		close(fd[0]);
		xcpu_fd = fd[1];
		catch(SIGXCPU, on_xcpu);
		if (setrlimit(RLIMIT_CPU, &rl))
			_exit(2);
		for (;;)
			x++;
	}
	close(fd[1]);
	/* Wall-clock guard: the child gets at most a CPU, so 4x is plenty. */
	deadline = now_ns(CLOCK_MONOTONIC) + (4LL * hard + 10) * 1000000000LL;
	while ((got = wait4(pid, &status, WNOHANG, &ru)) == 0) {
		if (now_ns(CLOCK_MONOTONIC) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fail("rlimit: child still alive after %d s wall, hard limit %d cpu-s",
			     4 * hard + 10, hard);
		}
		sleep_ns(10000000);
	}
	if (got != pid)
		fail("wait4: %s", strerror(errno));
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fail("rlimit: child not killed by SIGKILL at the hard limit (status 0x%x)",
		     status);
	if (read(fd[0], &first, sizeof(first)) != sizeof(first))
		fail("rlimit: no SIGXCPU before the hard limit (soft %d s)", soft);
	total = (tv_us(ru.ru_utime) + tv_us(ru.ru_stime)) * 1000;
	st = stat_delta(s0, stat_us(ST_PROF), total / 1000) * 1000;
	sf = stat_delta(s0, first.s, first.p / 1000) * 1000;
	if (!in_window(total, st, hard, tick))
		fail("rlimit: killed at %.3f cpu-s (%.3f tick-s system-wide), hard limit %d s: allowed %.3f..%.3f",
		     total / 1e9, st / 1e9, hard, hard * 0.95 - tick / 1e9, hard + 0.5);
	if (!in_window(first.p, sf, soft, tick))
		fail("rlimit: first SIGXCPU at %.3f cpu-s (%.3f tick-s system-wide), soft limit %d s: allowed %.3f..%.3f",
		     first.p / 1e9, sf / 1e9, soft, soft * 0.95 - tick / 1e9, soft + 0.5);
	printf("cputimers rlimit: soft %d s, hard %d s; SIGXCPU at %.3f cpu-s (%.2f tick-s), SIGKILL at %.3f cpu-s (%.2f tick-s)\n",
	       soft, hard, first.p / 1e9, sf / 1e9, total / 1e9, st / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	if (sysconf(_SC_CLK_TCK) > 0)
		clk_tck = sysconf(_SC_CLK_TCK);
	if (!strcmp(argv[1], "itimer"))
		return cmd_itimer(argc - 1, argv + 1);
	if (!strcmp(argv[1], "oneshot"))
		return cmd_oneshot(argc - 1, argv + 1);
	if (!strcmp(argv[1], "rlimit"))
		return cmd_rlimit(argc - 1, argv + 1);
	usage();
	return 2;
}
