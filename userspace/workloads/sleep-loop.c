// SPDX-License-Identifier: GPL-2.0
/*
 * sleep-loop, after test_select_work from the "RHEL6 spends more CPU
 * sleeping than RHEL5" question: threads alternate a fixed slice of work
 * with a short sleep, and we measure what a round costs in wall, user and
 * system time. Short sleeps are dominated by timer programming, tick
 * stop/restart and the wakeup path, which is where kernels differ.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

enum type { T_SELECT, T_POLL, T_USLEEP, T_NANOSLEEP, T_COND, T_YIELD, T_NONE,
	    NTYPES };
/* "all" runs them in this order; the first listed gives the metric. */
static const char *const type_name[NTYPES] = {
	"select", "poll", "usleep", "nanosleep", "cond", "yield", "none",
};

static const char usage[] =
	"Usage: sleep-loop [OPTIONS]\n"
	"N threads each do I rounds of: W loops of work, then one sleep of S us.\n"
	"Reports per round: wall us (elapsed / I) and user and system us\n"
	"(getrusage(RUSAGE_SELF) deltas / (N * I)), for each sleep type.\n"
	"Checks that no sleeping type took less than I * S us in all.\n"
	"Metric: wall us per round of the first type given (lower is better).\n"
	"\n"
	"  -n, --threads N     threads (2)\n"
	"  -i, --iterations I  rounds per thread (1000)\n"
	"  -w, --work W        loops of work per round, ~1 us each natively (20)\n"
	"  -s, --sleep S       sleep per round, microseconds (100)\n"
	"  -T, --type LIST     comma-separated sleep types, or all (select):\n"
	"                      select  select() with no fds\n"
	"                      poll    ppoll() with no fds (poll() has only ms)\n"
	"                      usleep, nanosleep\n"
	"                      cond    pthread_cond_timedwait(), never signalled\n"
	"                      yield   sched_yield(), S ignored\n"
	"                      none    work only\n"
	"                      all = select,poll,usleep,nanosleep,cond,yield,none\n";

struct thr {
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t state;
} __attribute__((aligned(64)));

static enum type cur_type;
static long long iters = 1000, work = 20, sleep_us = 100;
static pthread_barrier_t barrier;

static void cond_sleep(struct thr *t)
{
	struct timespec dl;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += sleep_us / 1000000;
	dl.tv_nsec += sleep_us % 1000000 * 1000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&t->lock);
	/* Nobody signals: anything but a timeout is spurious. */
	while (pthread_cond_timedwait(&t->cond, &t->lock, &dl) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&t->lock);
}

static void *loop(void *arg)
{
	struct thr *t = arg;
	struct timespec ts = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };
	uint64_t x = (uintptr_t)t;

	pthread_barrier_wait(&barrier);
	for (long long i = 0; i < iters; i++) {
		x = wl_spin(x, work);
		switch (cur_type) {
		case T_SELECT: {
			struct timeval tv = { sleep_us / 1000000, sleep_us % 1000000 };

			select(0, NULL, NULL, NULL, &tv);
			break;
		}
		case T_POLL:      ppoll(NULL, 0, &ts, NULL); break;
		case T_USLEEP:    usleep(sleep_us); break;
		case T_NANOSLEEP: nanosleep(&ts, NULL); break;
		case T_COND:      cond_sleep(t); break;
		case T_YIELD:     sched_yield(); break;
		case T_NONE:      break;
		case NTYPES:      break;
		}
	}
	t->state = x;
	return NULL;
}

struct res { double wall_s, user_s, sys_s; };

static struct res run(enum type type, int nthreads, struct thr *thr)
{
	double u0, s0, u1, s1, t0, t1;
	uint64_t x = 0;
	int err;

	cur_type = type;
	pthread_barrier_init(&barrier, NULL, nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		err = pthread_create(&thr[i].tid, NULL, loop, &thr[i]);
		if (err)
			wl_die_err(err, "pthread_create");
	}
	wl_rusage(&u0, &s0);
	t0 = wl_now();
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < nthreads; i++) {
		pthread_join(thr[i].tid, NULL);
		x ^= thr[i].state;
	}
	t1 = wl_now();
	wl_rusage(&u1, &s1);
	pthread_barrier_destroy(&barrier);
	wl_consume(x);
	return (struct res){ t1 - t0, u1 - u0, s1 - s0 };
}

/* Parses "all" or a comma list into @order; returns the count. */
static int parse_types(const char *arg, enum type *order)
{
	char *copy, *tok, *save = NULL;
	bool seen[NTYPES] = { false };
	int n = 0;

	if (!strcmp(arg, "all")) {
		for (int i = 0; i < NTYPES; i++)
			order[i] = i;
		return NTYPES;
	}
	copy = strdup(arg);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < NTYPES && strcmp(tok, type_name[i]); i++)
			;
		if (i == NTYPES)
			wl_usage_error("--type: unknown sleep type '%s'", tok);
		if (seen[i])
			wl_usage_error("--type: '%s' given twice", tok);
		seen[i] = true;
		order[n++] = i;
	}
	free(copy);
	if (!n)
		wl_usage_error("--type: no sleep type given");
	return n;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 'n' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "work", required_argument, NULL, 'w' },
		{ "sleep", required_argument, NULL, 's' },
		{ "type", required_argument, NULL, 'T' },
		WL_LONGOPTS, { 0 }
	};
	enum type order[NTYPES] = { T_SELECT };
	struct res res[NTYPES];
	int nthreads = 2, ntypes = 1, c;
	struct thr *thr;
	pthread_condattr_t ca;
	const char *short_type = NULL;
	bool sleeping = false;

	wl_init("sleep-loop", usage);
	while ((c = getopt_long(argc, argv, "n:i:w:s:T:" WL_SHORTOPTS, lopts,
				NULL)) != -1) {
		switch (c) {
		case 'n': nthreads = wl_arg_ll("--threads", optarg, 1, 4096); break;
		case 'i': iters = wl_arg_ll("--iterations", optarg, 1, 1LL << 40); break;
		case 'w': work = wl_arg_ll("--work", optarg, 0, 1LL << 30); break;
		case 's': sleep_us = wl_arg_ll("--sleep", optarg, 0, 100000000); break;
		case 'T': ntypes = parse_types(optarg, order); break;
		default: wl_common_opt(c);
		}
	}
	wl_no_args(argc, argv);

	thr = calloc(nthreads, sizeof(*thr));
	if (!thr)
		wl_die("out of memory");
	/* Deadlines on CLOCK_MONOTONIC, like every other sleep here. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	for (int i = 0; i < nthreads; i++) {
		pthread_mutex_init(&thr[i].lock, NULL);
		pthread_cond_init(&thr[i].cond, &ca);
	}
	for (int k = 0; k < ntypes; k++)
		res[k] = run(order[k], nthreads, thr);

	for (int k = 0; k < ntypes; k++) {
		if (order[k] == T_YIELD || order[k] == T_NONE)
			continue;
		sleeping = true;
		/* No sleep may end before its deadline: a shorter round is a bug. */
		if (res[k].wall_s * 1e6 < (double)iters * sleep_us && !short_type)
			short_type = type_name[order[k]];
	}
	if (sleeping)
		wl_check("slept_enough", !short_type,
			 "%s: %lld rounds took less than their %lld us of sleep",
			 short_type, iters, iters * sleep_us);
	else
		wl_check_skip("slept_enough");

	wl_report_begin("wall_us_per_iteration", res[0].wall_s * 1e6 / iters,
			"us", true);
	wl_obj("params");
	wl_int("threads", nthreads);
	wl_int("iterations", iters);
	wl_int("work", work);
	wl_int("sleep_us", sleep_us);
	wl_arr("types");
	for (int k = 0; k < ntypes; k++)
		wl_str(NULL, type_name[order[k]]);
	wl_end();
	wl_end();
	wl_obj("results");
	for (int k = 0; k < ntypes; k++) {
		double per = 1e6 / ((double)iters * nthreads);

		wl_obj(type_name[order[k]]);
		wl_num("wall_us", res[k].wall_s * 1e6 / iters);
		wl_num("user_us", res[k].user_s * per);
		wl_num("sys_us", res[k].sys_s * per);
		wl_num("cpu_us", (res[k].user_s + res[k].sys_s) * per);
		wl_num("elapsed_s", res[k].wall_s);
		wl_end();
	}
	wl_end();
	return wl_report_end();
}
