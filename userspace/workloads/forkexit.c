// SPDX-License-Identifier: GPL-2.0
/*
 * forkexit, after lmbench's lat_proc fork: fork(), the child _exit()s at
 * once, the parent waits. The exiting child has no children of its own,
 * so the stock kernel's reparenting is O(1); the legacy exit_reparent
 * path scans every task in the system, which is what the idle tasks are
 * for: they make "every task" a number we choose.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
	"Usage: forkexit [OPTIONS]\n"
	"Time I rounds of fork(), child _exit(0), parent waitpid(), with N idle\n"
	"sleeping processes alive in the background (removed on exit, even on\n"
	"SIGINT/SIGTERM). Every child must exit cleanly with status 0.\n"
	"Metric: microseconds per fork+exit+wait (lower is better).\n"
	"\n"
	"  -N, --idle N        idle background processes (0)\n"
	"  -i, --iterations I  fork+exit rounds (2000)\n";

int main(int argc, char **argv)
{
	long long nidle = 0, iters = 2000, bad = 0, first_bad = -1;
	const struct wl_int_opt opts[] = {
		{ 'N', "idle", 0, 1 << 22, &nidle },
		{ 'i', "iterations", 1, 1LL << 40, &iters },
	};
	int first_status = 0;
	double setup_s, t0, t1, us;

	wl_init("forkexit", usage);
	wl_int_opts(argc, argv, opts, 2);

	setup_s = wl_idle_start((int)nidle);

	t0 = wl_now();
	for (long long i = 0; i < iters; i++) {
		int status;
		pid_t pid = fork(), w;

		if (pid < 0)
			wl_die_err(errno, "fork (round %lld)", i);
		if (pid == 0)
			_exit(0);
		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
		if (w < 0)
			wl_die_err(errno, "waitpid");
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			if (!bad++) {
				first_bad = i;
				first_status = status;
			}
		}
	}
	t1 = wl_now();
	wl_idle_stop();

	us = (t1 - t0) * 1e6 / iters;
	wl_check("clean_exit", !bad,
		 "%lld of %lld children did not exit with status 0 "
		 "(first: round %lld, wait status 0x%x)",
		 bad, iters, first_bad, first_status);

	wl_report_begin("fork_exit_latency", us, "us", true);
	wl_obj("params");
	wl_int("idle", nidle);
	wl_int("iterations", iters);
	wl_end();
	wl_obj("results");
	wl_num("us_per_fork_exit", us);
	wl_num("elapsed_s", t1 - t0);
	wl_num("forks_per_s", iters / (t1 - t0));
	wl_num("idle_setup_s", setup_s);
	wl_int("bad_exits", bad);
	wl_end();
	return wl_report_end();
}
