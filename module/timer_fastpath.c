// SPDX-License-Identifier: GPL-2.0
/*
 * timer_fastpath: the per-tick check of run_posix_cpu_timers() that decides
 * whether the POSIX CPU timer slow path must run.
 *
 * Optimized is the stock fastpath_timer_check(): expiry caches and the
 * atomic group sample, no lock.  Legacy adds the tick of before 2.6.28
 * ("timers: fix itimer/many thread hang"): while process-wide CPU timers
 * are armed, every tick of every thread takes siglock and sums the CPU
 * time of all threads, O(threads) per tick.  The stock check keeps deciding
 * expiry, so timers stay exact; the legacy verdict is only compared.
 *
 * Context: the tick's hardirq, IRQs off, tsk == current and not exiting,
 * after the "task work already queued" test.  With IRQs off nobody on this
 * CPU can hold current's siglock, so a plain spin_lock() is safe (on
 * !PREEMPT_RT).
 */
#include <linux/posix-timers.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>

#include "abpath.h"

enum {
	TF_TICKS = ABPATH_NR_COMMON,
	TF_TICKS_ARMED,
	TF_WALKS,
	TF_THREADS_WALKED,
};

static const char *const timer_fastpath_counters[] = {
	"ticks",		/* every tick that reached the check */
	"ticks_armed",		/* ... of a process with CPU timers armed */
	"walks",		/* legacy walks of all threads under siglock */
	"threads_walked",
};

struct abpath_path abpath_timer_fastpath_path = {
	.name		= "timer_fastpath",
	.hook		= ABPATH_HOOK_TIMER_FASTPATH,
	.counters	= timer_fastpath_counters,
	.nr_counters	= ARRAY_SIZE(timer_fastpath_counters),
};

static void samples_store(u64 *s, u64 utime, u64 stime, u64 rtime)
{
	s[CPUCLOCK_PROF] = utime + stime;
	s[CPUCLOCK_VIRT] = utime;
	s[CPUCLOCK_SCHED] = rtime;
}

/*
 * The legacy verdict disagrees with the stock one only when an expiry lies
 * between the two samples.  They are taken moments apart from counters fed
 * by the same accounting: the atomic group clock, and each thread's own
 * times, which can lag it by the runtime not yet committed, at most about
 * a tick per thread (the tick commits it).  A disagreement with the
 * samples further apart than one tick per walked thread, plus one, is a
 * mismatch: something the sampling difference cannot explain.
 */
static bool verdicts_mismatch(const u64 *legacy, const u64 *stock,
			      const struct posix_cputimers *pct,
			      unsigned long threads)
{
	u64 slack = (threads + 1) * TICK_NSEC, next;
	bool legacy_due, stock_due;
	int i;

	for (i = 0; i < CPUCLOCK_MAX; i++) {
		next = READ_ONCE(pct->bases[i].nextevt);
		legacy_due = legacy[i] >= next;
		stock_due = stock[i] >= next;
		if (legacy_due == stock_due)
			continue;
		if (abs_diff(legacy[i], stock[i]) > slack)
			return true;
	}
	return false;
}

static void timer_fastpath_legacy(struct abpath_path *p,
				  struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct task_cputime_atomic *at = &sig->cputimer.cputime_atomic;
	u64 legacy[CPUCLOCK_MAX], stock[CPUCLOCK_MAX];
	u64 utime, stime, rtime, ut, st;
	unsigned long threads = 0;
	struct task_struct *t;

	spin_lock(&tsk->sighand->siglock);
	utime = sig->utime;
	stime = sig->stime;
	rtime = sig->sum_sched_runtime;
	for_each_thread(tsk, t) {
		task_cputime(t, &ut, &st);
		utime += ut;
		stime += st;
		rtime += READ_ONCE(t->se.sum_exec_runtime);
		threads++;
	}
	spin_unlock(&tsk->sighand->siglock);

	samples_store(legacy, utime, stime, rtime);
	samples_store(stock, atomic64_read(&at->utime),
		      atomic64_read(&at->stime),
		      atomic64_read(&at->sum_exec_runtime));

	abpath_add(p, ABPATH_LEGACY, TF_WALKS, 1);
	abpath_add(p, ABPATH_LEGACY, TF_THREADS_WALKED, threads);
	if (verdicts_mismatch(legacy, stock, &sig->posix_cputimers, threads))
		abpath_add(p, ABPATH_LEGACY, ABPATH_MISMATCHES, 1);
}

bool abpath_timer_fastpath_hook(struct task_struct *tsk,
				abpath_timer_check_fn stock)
{
	struct abpath_path *p = &abpath_timer_fastpath_path;
	struct posix_cputimers *pct = &tsk->signal->posix_cputimers;
	enum abpath_mode mode = abpath_mode_now(p);
	u64 t0 = abpath_start(p, mode);
	bool expired, armed;

	expired = stock(tsk);
	armed = READ_ONCE(pct->timers_active);
	abpath_add(p, mode, TF_TICKS, 1);
	if (armed)
		abpath_add(p, mode, TF_TICKS_ARMED, 1);
	/* Another thread handling expiry owns the group's timers for now. */
	if (mode == ABPATH_LEGACY && armed && !READ_ONCE(pct->expiry_active))
		timer_fastpath_legacy(p, tsk);
	abpath_finish(p, mode, t0);
	return expired;
}
