// SPDX-License-Identifier: GPL-2.0
/*
 * The signals around bench runs.  SIGINT, SIGTERM and SIGHUP ask the
 * bench to stop (the runs so far are reported, every mode restored);
 * SIGCHLD wakes the wait for a run (child.c).
 */
#include <signal.h>
#include <stdio.h>

#include "internal.h"

static volatile sig_atomic_t stop_sig, stop_count;
static sigset_t bench_sigs, orig_mask;
static int sig_depth;

static void on_stop(int sig)
{
	stop_sig = sig;
	stop_count++;
}

/* Only there so that SIGCHLD interrupts ppoll(); waitpid() does the rest. */
static void on_child(int sig)
{
	(void)sig;
}

/*
 * The signals stay blocked except inside ppoll(), so that a signal can
 * never slip in between "is there a stop request?" and "sleep".  Between
 * runs they are let through here, briefly.
 */
static void signals_take(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&bench_sigs);
	sigaddset(&bench_sigs, SIGINT);
	sigaddset(&bench_sigs, SIGTERM);
	sigaddset(&bench_sigs, SIGHUP);
	sigaddset(&bench_sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &bench_sigs, &orig_mask);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
}

static void signals_poll(void)
{
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	sigprocmask(SIG_BLOCK, &bench_sigs, NULL);
}

static void signals_release(void)
{
	/* A stop request still pending must count, not kill us by default. */
	signals_poll();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
}

void bench_signals_begin(void)
{
	if (!sig_depth++)
		signals_take();
}

void bench_signals_end(void)
{
	if (sig_depth > 0 && !--sig_depth)
		signals_release();
}

const char *bench_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
	       sig == SIGHUP ? "SIGHUP" : "a signal";
}

int bench_reraise(int sig)
{
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;
}

int bench_stop_signal(void)
{
	/* Let a pending request in first, if the signals are still ours. */
	if (sig_depth)
		signals_poll();
	return stop_sig;
}

int bench_stopping(void)
{
	return stop_sig;
}

int bench_stop_requests(void)
{
	return stop_count;
}

void bench_signals_poll(void)
{
	signals_poll();
}

const sigset_t *bench_orig_sigmask(void)
{
	return &orig_mask;
}
