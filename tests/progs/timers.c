// SPDX-License-Identifier: GPL-2.0
/*
 * timers: checks that timers expire when promised, whatever the mode of
 * timer_softirq (which decides on each tick whether TIMER_SOFTIRQ runs).
 *
 *   timers fire [-k K] [-t timerfd|nanosleep|itimer|wheel|all] [-l]
 *               [--tick-us US] [--slack-us US] [--median-slack-us US]
 *
 * K timers (default 8) of one kind (default all, one after the other):
 *
 *   timerfd    CLOCK_MONOTONIC hrtimers, absolute, one-shot, all armed at
 *              once, with distinct expiries 20, 27, 34, ... ms (spread
 *              over at most 200 ms); so are the next two kinds';
 *   nanosleep  one thread per timer, all sleeping at once;
 *   itimer     ITIMER_REAL one-shots, one at a time, SIGALRM taken by
 *              sigtimedwait();
 *   wheel      timer-wheel timers, the only kind that TIMER_SOFTIRQ runs:
 *              one thread per pty, each in a read() with VMIN=0 VTIME=1,
 *              which n_tty bounds with schedule_timeout(HZ / 10): 100 ms
 *              for all, counted in whole jiffies from a partial one.
 *
 * hrtimers expire in hardirq whatever timer_softirq's mode is; they check
 * that the hook costs no timer its deadline. A wheel timer is run by
 * TIMER_SOFTIRQ, so a raise wrongly suppressed leaves it late or unfired.
 *
 * What no host can change is checked always: each timer must fire, and
 * never before its expiry. A wheel timer counts jiffies, not
 * CLOCK_MONOTONIC: its start is a partial jiffy, and jiffies itself may
 * lag the clock while the CPU that advances it is held back, until
 * another CPU's tick takes over after MAX_STALLED_JIFFIES (5,
 * kernel/time/tick-sched.c, 6.1 and 6.12).  So it may fire up to 1 + 5
 * ticks (--tick-us, 4000 at HZ=250) early by the clock: a patched 6.1
 * under TCG once saw 9.0 ms at HZ 250.  No mode of the hook can make a
 * timer early: the wheel runs only timers whose expiry jiffies has
 * reached.  A timer not fired 2 s after its expiry never fired: the
 * latest ever seen under TCG, on a loaded host, was 21 ms.
 *
 * How late a timer may be is the host's as much as the kernel's: under
 * TCG a host that holds back one vCPU thread makes timers late by tens of
 * ms, and a host that is slower makes all of them later. So lateness is
 * bounded only when asked: each timer at most --tick-us + --slack-us
 * after its expiry, the median of each kind at most --tick-us +
 * --median-slack-us (as --slack-us). The VM suite instead compares the
 * modes with each other in one boot (tests/suite/008-timer-softirq.bats),
 * for which -l prints every timer's lateness, one line per kind:
 * "late KIND US US ...", in expiry order.
 *
 * Exit 0 with one summary line (min/median/max lateness per kind), 1
 * naming the first timer that was early, too late or never fired, or the
 * kind whose median was too late, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <termios.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define USAGE								\
	"usage: timers fire [-k K] [-t timerfd|nanosleep|itimer|wheel|all] [-l]\n" \
	"                   [--tick-us US] [--slack-us US] [--median-slack-us US]\n"

#include "progs.h"

#define MAXK	64
#define GIVEUP	2000000000LL	/* ns past the expiry */

static int k = 8;
static int64_t dur[MAXK];	/* relative expiry, ns */
static int64_t late[MAXK];	/* ns past the expiry */
static int64_t late_tick[MAXK];	/* wheel: the same on the tick's clock */
static atomic_int fired[MAXK];

static int64_t now(void)
{
	return now_ns(CLOCK_MONOTONIC);
}

/*
 * timerfd: an hrtimer at an absolute CLOCK_MONOTONIC time, no slack
 * added; the fd turns readable when it runs. Several may turn readable
 * in one poll(): they all get that poll's return time.
 */
static void run_timerfd(void)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	struct pollfd pfd[MAXK];
	int64_t t0, expiry[MAXK], t, deadline;
	int i, left = k, ms;
	uint64_t n;

	for (i = 0; i < k; i++) {
		pfd[i].fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (pfd[i].fd < 0)
			fail("timerfd_create: %s", strerror(errno));
		pfd[i].events = POLLIN;
	}
	t0 = now();
	for (i = 0; i < k; i++) {
		expiry[i] = t0 + dur[i];
		its.it_value = ts_of(expiry[i]);
		if (timerfd_settime(pfd[i].fd, TFD_TIMER_ABSTIME, &its, NULL))
			fail("timerfd_settime: %s", strerror(errno));
	}
	deadline = t0 + dur[k - 1] + GIVEUP;
	while (left > 0) {
		t = now();
		if (t >= deadline)
			break;
		ms = (int)((deadline - t + 999999) / 1000000);
		if (poll(pfd, k, ms) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		t = now();
		for (i = 0; i < k; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & POLLIN))
				continue;
			if (read(pfd[i].fd, &n, sizeof(n)) != sizeof(n))
				fail("timerfd %d: read: %s", i, strerror(errno));
			if (n != 1)
				fail("timerfd %d: one-shot expired %llu times",
				     i, (unsigned long long)n);
			late[i] = t - expiry[i];
			atomic_store(&fired[i], 1);
			close(pfd[i].fd);
			pfd[i].fd = -1;	/* poll() skips it from now on */
			left--;
		}
	}
}

/*
 * nanosleep: relative CLOCK_MONOTONIC hrtimer from the moment of the call,
 * so the clock read just before it is an earlier start and the sleep must
 * last at least the duration from there. The kernel adds the thread's
 * timer slack (50 us by default) to let expiries coalesce.
 */
static sem_t woke;
static pthread_barrier_t go;

static void *sleeper(void *arg)
{
	int i = (int)(intptr_t)arg;
	struct timespec ts = ts_of(dur[i]);
	int64_t t0;

	pthread_barrier_wait(&go);
	t0 = now();
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	late[i] = now() - (t0 + dur[i]);
	atomic_store(&fired[i], 1);
	sem_post(&woke);
	return NULL;
}

/* One thread per timer, all started at once, each running fn(i). */
static void run_threads(void *(*fn)(void *))
{
	pthread_t t[MAXK];
	struct timespec dl;
	int64_t deadline;
	int i;

	sem_init(&woke, 0, 0);
	pthread_barrier_init(&go, NULL, k + 1);
	for (i = 0; i < k; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i))
			fail("pthread_create");
	pthread_barrier_wait(&go);
	deadline = now() + dur[k - 1] + GIVEUP;
	dl = ts_of(deadline);
	for (i = 0; i < k; i++) {
		while (sem_clockwait(&woke, CLOCK_MONOTONIC, &dl)) {
			if (errno == ETIMEDOUT)
				return;	/* threads still asleep: reported below */
			if (errno != EINTR)
				fail("sem_clockwait: %s", strerror(errno));
		}
	}
	for (i = 0; i < k; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
	sem_destroy(&woke);
}

static void run_nanosleep(void)
{
	run_threads(sleeper);
}

/*
 * wheel: a pty slave in non-canonical mode with VMIN=0 and VTIME=1 and
 * nothing written to the master: read() returns 0 when n_tty's
 * schedule_timeout() expires, a timer on the wheel. The clock read just
 * before read() is an earlier start than the kernel's.
 */
static int slave_fd[MAXK];

static void open_pty(int i)
{
	struct termios tio;
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) || unlockpt(m))
		fail("pty %d: posix_openpt: %s", i, strerror(errno));
	s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0 || tcgetattr(s, &tio))
		fail("pty %d: open %s: %s", i, ptsname(m), strerror(errno));
	cfmakeraw(&tio);
	tio.c_cc[VMIN] = 0;
	tio.c_cc[VTIME] = dur[i] / 100000000;
	if (tcsetattr(s, TCSANOW, &tio))
		fail("pty %d: tcsetattr: %s", i, strerror(errno));
	slave_fd[i] = s;
	/* The master stays open for the run: a closed one hangs the slave up. */
}

static void *wheel_reader(void *arg)
{
	int i = (int)(intptr_t)arg;
	int64_t t0, c0;
	char c;
	ssize_t r;

	pthread_barrier_wait(&go);
	do {
		c0 = now_ns(CLOCK_MONOTONIC_COARSE);
		t0 = now();
		r = read(slave_fd[i], &c, 1);
	} while (r < 0 && errno == EINTR);
	if (r != 0)
		fail("pty %d: read returned %zd (%s), expected 0 at VTIME",
		     i, r, r < 0 ? strerror(errno) : "data");
	late[i] = now() - (t0 + dur[i]);
	late_tick[i] = now_ns(CLOCK_MONOTONIC_COARSE) - (c0 + dur[i]);
	atomic_store(&fired[i], 1);
	sem_post(&woke);
	return NULL;
}

static void run_wheel(void)
{
	int i;

	for (i = 0; i < k; i++)
		open_pty(i);
	run_threads(wheel_reader);
}

/*
 * ITIMER_REAL: a CLOCK_MONOTONIC hrtimer that sends SIGALRM to the
 * process; armed relative to the call, so again the clock read before
 * setitimer() is an earlier start. SIGALRM stays blocked and is taken by
 * sigtimedwait(), which also bounds the wait.
 */
static void run_itimer(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };
	struct timespec to;
	siginfo_t info;
	sigset_t set;
	int64_t t0;
	int i, r;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (i = 0; i < k; i++) {
		it.it_value.tv_sec = dur[i] / 1000000000;
		it.it_value.tv_usec = dur[i] % 1000000000 / 1000;
		to = ts_of(dur[i] + GIVEUP);
		t0 = now();
		if (setitimer(ITIMER_REAL, &it, NULL))
			fail("setitimer: %s", strerror(errno));
		do
			r = sigtimedwait(&set, &info, &to);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			if (errno == EAGAIN)
				return;	/* never fired: reported below */
			fail("sigtimedwait: %s", strerror(errno));
		}
		late[i] = now() - (t0 + dur[i]);
		atomic_store(&fired[i], 1);
	}
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Check every timer of one kind in expiry order; return its stats. A
 * negative bound or mbound is no bound.
 */
static void check(const char *kind, int64_t early, int64_t bound, int64_t mbound,
		  char *out, size_t len)
{
	int64_t sorted[MAXK];
	int i;

	for (i = 0; i < k; i++) {
		if (!atomic_load(&fired[i]))
			fail("%s timer %d (expiry %.3f ms) never fired (gave up %.0f s after its expiry)",
			     kind, i, dur[i] / 1e6, GIVEUP / 1e9);
		if (late[i] < -early)
			fail("%s timer %d (expiry %.3f ms) fired %.3f ms early, allowed %.3f ms",
			     kind, i, dur[i] / 1e6, -late[i] / 1e6, early / 1e6);
		if (bound >= 0 && late[i] > bound)
			fail("%s timer %d (expiry %.3f ms) fired %lld us late, bound %lld us",
			     kind, i, dur[i] / 1e6, (long long)(late[i] / 1000),
			     (long long)(bound / 1000));
		sorted[i] = late[i];
	}
	qsort(sorted, k, sizeof(sorted[0]), cmp64);
	if (mbound >= 0 && sorted[k / 2] > mbound)
		fail("%s timers: median %lld us late, bound %lld us (min %lld, max %lld us)",
		     kind, (long long)(sorted[k / 2] / 1000), (long long)(mbound / 1000),
		     (long long)(sorted[0] / 1000), (long long)(sorted[k - 1] / 1000));
	snprintf(out, len, "%s %lld/%lld/%lld", kind, (long long)(sorted[0] / 1000),
		 (long long)(sorted[k / 2] / 1000), (long long)(sorted[k - 1] / 1000));
}

/* A partial jiffy, and jiffies stalled for MAX_STALLED_JIFFIES ticks. */
#define WHEEL_EARLY	(1 + 5)

static const struct {
	const char *name;
	void (*run)(void);
	int wheel;	/* 100 ms each, may fire WHEEL_EARLY ticks early */
} kinds[] = {
	{ "timerfd", run_timerfd, 0 },
	{ "nanosleep", run_nanosleep, 0 },
	{ "itimer", run_itimer, 0 },
	{ "wheel", run_wheel, 1 },
};

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tick-us", required_argument, NULL, 'T' },
		{ "slack-us", required_argument, NULL, 'S' },
		{ "median-slack-us", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 }
	};
	int64_t tick_us = 4000, slack_us = -1, mslack_us = -1, step;
	const char *kind = "all";
	char stats[4][64], line[320], lists[4][2 * MAXK * 12 + 64];
	unsigned int j, ran = 0;
	int i, opt, list = 0;
	size_t len;

	if (argc < 2 || strcmp(argv[1], "fire"))
		usage();
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "k:t:l", lopts, NULL)) != -1) {
		switch (opt) {
		case 'k': k = (int)num(optarg, 1, MAXK); break;
		case 't': kind = optarg; break;
		case 'l': list = 1; break;
		case 'T': tick_us = (int64_t)num(optarg, 0, 10000000); break;
		case 'S': slack_us = (int64_t)num(optarg, 0, 10000000); break;
		case 'M': mslack_us = (int64_t)num(optarg, 0, 10000000); break;
		default: usage();
		}
	}
	if (argc != optind)
		usage();
	if (mslack_us < 0)
		mslack_us = slack_us;

	/* 20 ms up, 7 ms apart, squeezed to fit 200 ms if K is large. */
	step = 7000000;
	if (k > 1 && 180000000 / (k - 1) < step)
		step = 180000000 / (k - 1);

	if (slack_us < 0)
		snprintf(line, sizeof(line),
			 "timers fire: %d timers each, none early, all within %.0f s, lateness min/median/max us:",
			 k, GIVEUP / 1e9);
	else
		snprintf(line, sizeof(line),
			 "timers fire: %d timers each, bound %lld us (median %lld us), lateness min/median/max us:",
			 k, (long long)(tick_us + slack_us), (long long)(tick_us + mslack_us));
	for (j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
		if (strcmp(kind, "all") && strcmp(kind, kinds[j].name))
			continue;
		for (i = 0; i < k; i++) {
			dur[i] = kinds[j].wheel ? 100000000 : 20000000 + i * step;
			atomic_store(&fired[i], 0);
		}
		kinds[j].run();
		check(kinds[j].name, kinds[j].wheel ? WHEEL_EARLY * tick_us * 1000 : 0,
		      slack_us < 0 ? -1 : (tick_us + slack_us) * 1000,
		      mslack_us < 0 ? -1 : (tick_us + mslack_us) * 1000,
		      stats[ran], sizeof(stats[0]));
		len = (size_t)snprintf(lists[ran], sizeof(lists[0]), "late %s", kinds[j].name);
		for (i = 0; i < k; i++)
			len += (size_t)snprintf(lists[ran] + len, sizeof(lists[0]) - len,
						" %lld", (long long)(late[i] / 1000));
		if (kinds[j].wheel) {
			len += (size_t)snprintf(lists[ran] + len, sizeof(lists[0]) - len,
						"\nlate wheel-tick");
			for (i = 0; i < k; i++)
				len += (size_t)snprintf(lists[ran] + len, sizeof(lists[0]) - len,
							" %lld", (long long)(late_tick[i] / 1000));
		}
		strncat(line, ran ? ", " : " ", sizeof(line) - strlen(line) - 1);
		strncat(line, stats[ran], sizeof(line) - strlen(line) - 1);
		ran++;
	}
	if (!ran)
		usage();
	puts(line);
	for (j = 0; list && j < ran; j++)
		puts(lists[j]);
	return 0;
}
