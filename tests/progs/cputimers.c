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
	"usage: cputimers itimer prof|virt [-n THREADS] [-t SECONDS] [-I US]   (US >= 4000)\n" \
	"       cputimers oneshot [-n THREADS] [-m MS]\n"		\
	"       cputimers rlimit [-s SOFT] [-h HARD] [--tick-us US]   (SOFT < HARD)\n"

#include "progs.h"

/*
 * CPU itimers and RLIMIT_CPU fire on the process's PROF (utime+stime) and
 * VIRT (utime) clocks, which the tick feeds: each tick interrupt charges
 * one whole tick, TICK_NSEC, to the task it interrupts
 * (account_process_tick()), and the expiry check runs on that same tick
 * right after (update_process_times(): run_posix_cpu_timers()). The checks
 * count against those two clocks, which clock_gettime() reads by their
 * clock ids, so they hold whatever the host does to the VM's vCPUs.
 *
 * The precise runtime P (CLOCK_PROCESS_CPUTIME_ID; getrusage() scales utime
 * and stime to it) and S, the growth of /proc/stat's tick samples of every
 * task, do not bound the tick-sampled time: when the host deschedules a TCG
 * vCPU, the guest's sched_clock (the TSC: host time) runs on and P counts
 * the stall, while the tick hrtimer fires once when the vCPU is back and
 * forwards over the periods it missed (tick_nohz_handler()): one tick
 * charged for many (seen: 92 of 250 ticks/s per busy CPU). S is ours plus
 * every other task's, such as 010's toggler's. Seen in one run: 92
 * signals at 10 ms (ours about 0.92 s), S 1.23 s, P 2.27 s. Both are
 * printed as context; S checks only that our ticks are among all ticks.
 */
#define ST_USER	0x03	/* user nice */
#define ST_PROF	0x67	/* user nice system irq softirq */

/*
 * The PROF and VIRT clocks of process @pid, 0 for this one: ~pid << 3 |
 * CPUCLOCK_PROF (0) or CPUCLOCK_VIRT (1), <linux/posix-timers_types.h>.
 * Read on a zombie not yet reaped, they hold all it was charged.
 */
#define PROF_CLOCK(pid)	((clockid_t)(~(unsigned int)(pid) << 3 | 0))
#define VIRT_CLOCK(pid)	((clockid_t)(~(unsigned int)(pid) << 3 | 1))

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

/*
 * How much less than the true growth of the ticks in @mask S can show:
 * /proc/stat truncates each field to 1/USER_HZ, in us.
 */
static int64_t stat_trunc_us(int mask)
{
	return __builtin_popcount((unsigned int)mask) * 1000000LL / clk_tck;
}

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
 * ITIMER_PROF/VIRTUAL: the clock C (PROF or VIRT, above) is read before
 * arming (c0), after (c1), before disarming (c2) and after (c3). Arming
 * samples C and sets the first expiry an interval plus a tick later
 * (set_cpu_itimer()); each check that finds C at or past the expiry sends
 * one signal and moves the expiry on by one interval (check_cpu_itimer()).
 * An interval of at least a tick (-I) is at least what one tick charges,
 * so a check that comes on time finds one expiry due at most.
 *
 * At most one signal per expiry C reached by c3, so at most
 * (c3 - c0) / interval: none early. At least one per expiry C passed by
 * c2, (c2 - c1) / interval - 1 (the extra tick), less 2 for checks that
 * came a tick late (another thread was expiring the group's timers) or
 * had not run at disarm, less 10% for signals merged into one still
 * pending: SIGPROF and SIGVTALRM do not queue, and a host that stalls the
 * vCPU of the thread a signal went to lets another thread's expiry come
 * first. C must pass 10 intervals, so that the check is not empty, and fit
 * in S.
 */
static int cmd_itimer(int argc, char **argv)
{
	int n = online_cpus(), which, sig, mask, period_us = 10000;
	double secs = 1.5, us, lo_n, hi_n;
	const struct num_opt opts[] = {
		{ 'n', 1, 1024, &n, NULL },
		{ 't', 0.05, 60, NULL, &secs },
		{ 'I', 4000, 1000000, &period_us, NULL },
	};
	int64_t s0, s1, cpu, st, c0, c1, c2, c3, trunc;
	struct itimerval it = { { 0, 0 }, { 0, 0 } }, off = it;
	struct rusage r0, r1;
	const char *mode;
	clockid_t clk;
	long count;
	char seen[512];

	num_opts(argc, argv, opts, 3, 1);
	us = period_us;
	mode = argv[optind];
	which = !strcmp(mode, "prof") ? ITIMER_PROF :
		!strcmp(mode, "virt") ? ITIMER_VIRTUAL : -1;
	if (which < 0)
		usage();
	sig = which == ITIMER_PROF ? SIGPROF : SIGVTALRM;
	mask = which == ITIMER_PROF ? ST_PROF : ST_USER;
	clk = which == ITIMER_PROF ? PROF_CLOCK(0) : VIRT_CLOCK(0);
	/* More runnable threads than CPUs: signals merge legitimately. */
	n = MIN(n, online_cpus());

	catch(sig, on_count);
	start_burners(n, sig);
	it.it_interval = (struct timeval){ (long)us / 1000000, (long)us % 1000000 };
	it.it_value = it.it_interval;
	if (getrusage(RUSAGE_SELF, &r0))
		fail("getrusage: %s", strerror(errno));
	s0 = stat_us(mask);
	c0 = now_ns(clk);
	if (setitimer(which, &it, NULL))
		fail("setitimer(%s): %s", mode, strerror(errno));
	c1 = now_ns(clk);
	pthread_barrier_wait(&go);
	sleep_ns((int64_t)(secs * 1e9));
	c2 = now_ns(clk);
	if (setitimer(which, &off, NULL))
		fail("setitimer(%s, 0): %s", mode, strerror(errno));
	c3 = now_ns(clk);
	getrusage(RUSAGE_SELF, &r1);
	s1 = stat_us(mask);
	stop_burners();

	cpu = tv_us(r1.ru_utime) - tv_us(r0.ru_utime);
	if (which == ITIMER_PROF)
		cpu += tv_us(r1.ru_stime) - tv_us(r0.ru_stime);
	st = stat_delta(s0, s1, cpu);
	trunc = stat_trunc_us(mask);
	lo_n = (double)((c2 - c1) / (int64_t)(us * 1000)) - 1;
	hi_n = (double)((c3 - c0) / (int64_t)(us * 1000));
	count = atomic_load(&nsig);
	snprintf(seen, sizeof(seen),
		 "%s: %ld signals at %.0f us; the %s clock %.3f s armed, %.3f s in all (%.3f cpu-s precise, %.3f tick-s system-wide)",
		 mode, count, us, mode, (c2 - c1) / 1e9, (c3 - c0) / 1e9,
		 cpu / 1e6, st / 1e6);
	if (c2 - c1 < 10 * (int64_t)(us * 1000))
		fail("%s: the clock passed fewer than 10 intervals in %.2f s with %d threads",
		     seen, secs, n);
	if (s0 >= 0 && s1 >= 0 && (c3 - c0) / 1000 > st + trunc)
		fail("%s: more than all ticks system-wide, +%.3f s for /proc/stat's truncation",
		     seen, trunc / 1e6);
	if (count < lo_n * 0.9 - 2 || count > hi_n)
		fail("%s: expected %.0f..%.0f, -10%%-2/+0", seen, lo_n, hi_n);
	printf("cputimers %s: %d threads, %ld signals, the %s clock %.3f s armed, %.3f s in all: expected %.0f..%.0f, -10%%-2/+0; %.3f cpu-s precise, %.3f tick-s system-wide\n",
	       mode, n, count, mode, (c2 - c1) / 1e9, (c3 - c0) / 1e9,
	       lo_n, hi_n, cpu / 1e6, st / 1e6);
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
	int n = online_cpus(), ms = 300;
	const struct num_opt opts[] = {
		{ 'n', 1, 1024, &n, NULL },
		{ 'm', 1, 60000, &ms, NULL },
	};
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL };
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	int64_t t0, expiry, end, deadline, fired;
	timer_t timer;
	long count;

	num_opts(argc, argv, opts, 2, 0);

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
	int64_t virt;	/* the VIRT clock, ns: read first */
	int64_t prof;	/* the PROF clock, ns */
	int64_t p;	/* CLOCK_PROCESS_CPUTIME_ID, ns */
	int64_t s;	/* stat_us(ST_PROF) */
};

static void on_xcpu(int sig __attribute__((unused)))
{
	struct xcpu r;

	if (atomic_fetch_add(&nsig, 1))
		return;
	r.virt = now_ns(VIRT_CLOCK(0));
	r.prof = now_ns(PROF_CLOCK(0));
	r.p = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	r.s = stat_us(ST_PROF);
	if (write(xcpu_fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
}

/*
 * RLIMIT_CPU: SIGXCPU when the PROF clock reaches SOFT seconds, SIGKILL
 * when it reaches HARD (check_process_timers()). A tick charges the task,
 * then checks (update_process_times()); the task work that check queues
 * sends the signal before the task is back in user space.
 *
 * Never early: the PROF clock is at least SOFT in the SIGXCPU handler and
 * at least HARD at death (read from the zombie before it is reaped).
 *
 * Late by less than a tick of user time: before the tick that takes PROF
 * to a limit, VIRT <= PROF < the limit, and that tick adds one tick at
 * most. After SIGKILL the child never runs in user space again (the ticks
 * of its exit path are system time), so at death VIRT < HARD + 1 tick.
 * The handler reads VIRT first, but from user space, which a tick pending
 * on entry and one more after a host stall inside it (a stalled vCPU takes
 * one tick when it is back) can reach: VIRT < SOFT + 3 ticks there.
 * --tick-us is TICK_NSEC (4000 us at HZ=250). The child's PROF must fit in
 * S, the ticks of every task from before the fork.
 */
static int cmd_rlimit(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tick-us", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 }
	};
	int soft = 1, hard = 2, opt, fd[2], status;
	int64_t tick = 4000000, total, st, sf, s0, s1, t0, deadline, prof, virt, wall;
	int64_t trunc = stat_trunc_us(ST_PROF) * 1000;
	volatile unsigned long x = 0;
	struct xcpu first;
	struct rusage ru;
	siginfo_t si;
	pid_t pid;

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
	/*
	 * Wall-clock guard, for a child never killed: it burns one CPU, but
	 * its PROF clock is fed by ticks, and a TCG vCPU that the host holds
	 * back gets one tick for many (above): at 92 of 250 ticks/s, the
	 * fewest seen, HARD takes 2.7 x HARD of wall time. 20 x HARD + 10 s
	 * leaves a host three times worse than that twice the margin; it
	 * costs nothing unless the test is failing anyway.
	 */
	t0 = now_ns(CLOCK_MONOTONIC);
	deadline = t0 + (20LL * hard + 10) * 1000000000LL;
	for (;;) {
		/* WNOWAIT: the zombie keeps its clocks until it is reaped. */
		si.si_pid = 0;
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT))
			fail("waitid: %s", strerror(errno));
		if (si.si_pid == pid)
			break;
		if (now_ns(CLOCK_MONOTONIC) > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fail("rlimit: child still alive after %d s wall, hard limit %d cpu-s",
			     20 * hard + 10, hard);
		}
		sleep_ns(10000000);
	}
	wall = now_ns(CLOCK_MONOTONIC) - t0;
	prof = now_ns(PROF_CLOCK(pid));
	virt = now_ns(VIRT_CLOCK(pid));
	if (wait4(pid, &status, 0, &ru) != pid)
		fail("wait4: %s", strerror(errno));
	s1 = stat_us(ST_PROF);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fail("rlimit: child not killed by SIGKILL at the hard limit (status 0x%x)",
		     status);
	if (read(fd[0], &first, sizeof(first)) != sizeof(first))
		fail("rlimit: no SIGXCPU before the hard limit (soft %d s)", soft);
	total = (tv_us(ru.ru_utime) + tv_us(ru.ru_stime)) * 1000;
	st = stat_delta(s0, s1, total / 1000) * 1000;
	sf = stat_delta(s0, first.s, first.p / 1000) * 1000;
	if (prof < hard * 1000000000LL || virt >= hard * 1000000000LL + tick ||
	    (s0 >= 0 && s1 >= 0 && prof > st + trunc))
		fail("rlimit: killed at PROF %.3f s, VIRT %.3f s (%.3f cpu-s precise, %.3f tick-s system-wide), hard limit %d s: allowed PROF >= %d, VIRT < %.3f, PROF <= tick-s + %.3f",
		     prof / 1e9, virt / 1e9, total / 1e9, st / 1e9, hard, hard,
		     hard + tick / 1e9, trunc / 1e9);
	if (first.prof < soft * 1000000000LL ||
	    first.virt >= soft * 1000000000LL + 3 * tick ||
	    (s0 >= 0 && first.s >= 0 && first.prof > sf + trunc))
		fail("rlimit: first SIGXCPU at PROF %.3f s, VIRT %.3f s (%.3f cpu-s precise, %.3f tick-s system-wide), soft limit %d s: allowed PROF >= %d, VIRT < %.3f, PROF <= tick-s + %.3f",
		     first.prof / 1e9, first.virt / 1e9, first.p / 1e9, sf / 1e9,
		     soft, soft, soft + 3 * tick / 1e9, trunc / 1e9);
	printf("cputimers rlimit: soft %d s, hard %d s; SIGXCPU at PROF %.3f s, VIRT %.3f s (%.3f cpu-s precise, %.2f tick-s); SIGKILL at PROF %.3f s, VIRT %.3f s (%.3f cpu-s precise, %.2f tick-s), %.2f s wall\n",
	       soft, hard, first.prof / 1e9, first.virt / 1e9, first.p / 1e9,
	       sf / 1e9, prof / 1e9, virt / 1e9, total / 1e9, st / 1e9, wall / 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct prog_cmd cmds[] = {
		{ "itimer", cmd_itimer },
		{ "oneshot", cmd_oneshot },
		{ "rlimit", cmd_rlimit },
	};

	if (sysconf(_SC_CLK_TCK) > 0)
		clk_tck = sysconf(_SC_CLK_TCK);
	return run_cmd(argc, argv, cmds, 3);
}
