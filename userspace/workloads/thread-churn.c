// SPDX-License-Identifier: GPL-2.0
/*
 * thread-churn: create a thread, join it, M times, with N idle processes
 * in the background. A thread exit goes through the same exit path as a
 * process exit (forget_original_parent() included), so this is the
 * thread-flavoured twin of forkexit.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static const char usage[] =
	"Usage: thread-churn [OPTIONS]\n"
	"Time M rounds of pthread_create() + pthread_join() of a thread that\n"
	"returns at once, with N idle sleeping processes alive in the background\n"
	"(removed on exit, even on SIGINT/SIGTERM). Each thread must hand back\n"
	"its own argument.\n"
	"Metric: microseconds per create+join (lower is better).\n"
	"\n"
	"  -N, --idle N        idle background processes (0)\n"
	"  -m, --threads M     threads created and joined, one at a time (2000)\n";

static void *ret_arg(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	long long nidle = 0, nthreads = 2000, bad = 0;
	const struct wl_int_opt opts[] = {
		{ 'N', "idle", 0, 1 << 22, &nidle },
		{ 'm', "threads", 1, 1LL << 40, &nthreads },
	};
	double setup_s, t0, t1, us;
	int err;

	wl_init("thread-churn", usage);
	wl_int_opts(argc, argv, opts, 2);

	setup_s = wl_idle_start((int)nidle);

	t0 = wl_now();
	for (long long i = 0; i < nthreads; i++) {
		pthread_t tid;
		void *ret;

		err = pthread_create(&tid, NULL, ret_arg, (void *)(uintptr_t)i);
		if (err)
			wl_die_err(err, "pthread_create (thread %lld)", i);
		err = pthread_join(tid, &ret);
		if (err)
			wl_die_err(err, "pthread_join (thread %lld)", i);
		bad += ret != (void *)(uintptr_t)i;
	}
	t1 = wl_now();
	wl_idle_stop();

	us = (t1 - t0) * 1e6 / nthreads;
	wl_check("joined", !bad, "%lld of %lld threads returned a wrong value",
		 bad, nthreads);

	wl_report_begin("create_join_latency", us, "us", true);
	wl_obj("params");
	wl_int("idle", nidle);
	wl_int("threads", nthreads);
	wl_end();
	wl_obj("results");
	wl_num("us_per_create_join", us);
	wl_num("elapsed_s", t1 - t0);
	wl_num("threads_per_s", nthreads / (t1 - t0));
	wl_num("idle_setup_s", setup_s);
	wl_int("bad_joins", bad);
	wl_end();
	return wl_report_end();
}
