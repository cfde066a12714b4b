// SPDX-License-Identifier: GPL-2.0
/*
 * pound-times / pound-clock, after MMTests' poundtime: N threads share C
 * calls of times() (or clock_gettime(CLOCK_PROCESS_CPUTIME_ID) when built
 * with -DPOUND_CLOCK). Both read the whole thread group's CPU time, so the
 * cost of every call grows with the number of threads when the kernel
 * sums them on each call (abpath path group_cputime, legacy mode).
 *
 * Each thread also checks that what it reads never goes backwards: the
 * historical bugs in this area were values that did.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/times.h>
#include <time.h>

#ifdef POUND_CLOCK
#define NAME "pound-clock"
#define WHAT "clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"
#else
#define NAME "pound-times"
#define WHAT "times()"
#endif

static const char usage[] =
	"Usage: " NAME " [OPTIONS]\n"
	"Call " WHAT " from N threads, C calls in total, and time it;\n"
	"each thread checks that the values it reads never decrease.\n"
	"Metric: elapsed seconds (lower is better).\n"
	"\n"
	"  -c, --calls C       total calls, split over the threads (5000000)\n"
	"  -n, --threads N     threads (2)\n";

struct thr {
	pthread_t tid;
	long long calls;
	long long backwards;	/* decreasing reads seen */
	char first_err[160];
} __attribute__((aligned(64)));

static pthread_barrier_t barrier;

#ifdef POUND_CLOCK
static void *pound(void *arg)
{
	struct thr *t = arg;
	struct timespec prev = { 0, 0 }, now;

	pthread_barrier_wait(&barrier);
	for (long long i = 0; i < t->calls; i++) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
		if (now.tv_sec < prev.tv_sec ||
		    (now.tv_sec == prev.tv_sec && now.tv_nsec < prev.tv_nsec)) {
			if (!t->backwards++)
				snprintf(t->first_err, sizeof(t->first_err),
					 "call %lld: %lld.%09ld after %lld.%09ld",
					 i, (long long)now.tv_sec, now.tv_nsec,
					 (long long)prev.tv_sec, prev.tv_nsec);
		}
		prev = now;
	}
	return NULL;
}
#else
static void *pound(void *arg)
{
	struct thr *t = arg;
	struct tms prev = { 0 }, now;

	pthread_barrier_wait(&barrier);
	for (long long i = 0; i < t->calls; i++) {
		times(&now);
		if (now.tms_utime < prev.tms_utime ||
		    now.tms_stime < prev.tms_stime ||
		    now.tms_utime + now.tms_stime <
		    prev.tms_utime + prev.tms_stime) {
			if (!t->backwards++)
				snprintf(t->first_err, sizeof(t->first_err),
					 "call %lld: utime %ld stime %ld after "
					 "utime %ld stime %ld", i,
					 (long)now.tms_utime, (long)now.tms_stime,
					 (long)prev.tms_utime, (long)prev.tms_stime);
		}
		prev = now;
	}
	return NULL;
}
#endif

int main(int argc, char **argv)
{
	long long calls = 5000000, nthreads = 2, backwards = 0;
	const struct wl_int_opt opts[] = {
		{ 'c', "calls", 1, 1LL << 40, &calls },
		{ 'n', "threads", 1, 4096, &nthreads },
	};
	struct thr *thr;
	double t0, t1, cpu0, cpu1;
	const char *first_err = NULL;
	int err;

	wl_init(NAME, usage);
	wl_int_opts(argc, argv, opts, 2);

	thr = calloc(nthreads, sizeof(*thr));
	if (!thr)
		wl_die("out of memory");
	pthread_barrier_init(&barrier, NULL, (unsigned int)nthreads + 1);
	for (int i = 0; i < nthreads; i++) {
		thr[i].calls = calls / nthreads + (i < calls % nthreads);
		err = pthread_create(&thr[i].tid, NULL, pound, &thr[i]);
		if (err)
			wl_die_err(err, "pthread_create");
	}
	cpu0 = wl_cpu_now();
	t0 = wl_now();
	pthread_barrier_wait(&barrier);
	for (int i = 0; i < nthreads; i++)
		pthread_join(thr[i].tid, NULL);
	t1 = wl_now();
	cpu1 = wl_cpu_now();

	for (int i = 0; i < nthreads; i++) {
		backwards += thr[i].backwards;
		if (thr[i].backwards && !first_err)
			first_err = thr[i].first_err;
	}
	wl_check("monotonic", !backwards,
		 "%lld decreasing %s reads; first: %s", backwards, WHAT,
		 first_err ? first_err : "");

	wl_report_begin("elapsed", t1 - t0, "s", true);
	wl_obj("params");
	wl_int("threads", nthreads);
	wl_int("calls", calls);
	wl_end();
	wl_obj("results");
	wl_num("elapsed_s", t1 - t0);
	wl_num("calls_per_s", calls / (t1 - t0));
	wl_num("ns_per_call", (t1 - t0) * 1e9 * nthreads / calls);
	wl_num("cpu_s", cpu1 - cpu0);
	wl_int("backwards", backwards);
	wl_end();
	return wl_report_end();
}
