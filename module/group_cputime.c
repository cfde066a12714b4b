// SPDX-License-Identifier: GPL-2.0
/*
 * group_cputime: thread_group_cputime(), the sampler behind times(),
 * getrusage() and CLOCK_PROCESS_CPUTIME_ID while no CPU timer is armed.
 *
 * Optimized is the stock lockless seqlock pass, which commits only
 * current's pending runtime.  Legacy is the sampler of v3.18-v4.7 (after
 * 6e998916df "sched/cputime: Fix clock_nanosleep()/clock_gettime()
 * inconsistency"): task_sched_runtime() for every thread, which takes the
 * remote rq lock and runs update_curr() for a thread running on another
 * CPU.  Legacy fills the sample itself; it is exact by construction.
 *
 * Context: process, possibly with siglock held and IRQs off
 * (thread_group_start_cputime()), so nothing here may sleep or take
 * siglock.  stats_lock and the rq locks nest inside siglock, as in the
 * stock code and in v4.7.
 */
#include <linux/moduleparam.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>

#include "abpath.h"

static bool always_lock;
module_param(always_lock, bool, 0644);
MODULE_PARM_DESC(always_lock,
		 "legacy group_cputime: take stats_lock on every pass instead of trying a lockless one first");

enum {
	GC_THREADS_WALKED = ABPATH_NR_COMMON,
	GC_RQ_LOCKED,
	GC_LOCKED_PASSES,
};

static const char *const group_cputime_counters[] = {
	"threads_walked",
	"rq_locked",		/* threads on a CPU when sampled */
	"locked_passes",	/* passes under stats_lock */
};

struct abpath_path abpath_group_cputime_path = {
	.name		= "group_cputime",
	.hook		= ABPATH_HOOK_GROUP_CPUTIME,
	.counters	= group_cputime_counters,
	.nr_counters	= ARRAY_SIZE(group_cputime_counters),
};

/*
 * A thread's runtime can only grow: task_sched_runtime() returning less
 * than the committed sum_exec_runtime read just before it is a sample
 * going backwards, counted as a mismatch.
 *
 * Out of line, so that a timed optimized pass does not set up this walk's
 * stack frame.
 */
static noinline void group_cputime_legacy(struct abpath_path *p,
					  struct task_struct *tsk,
					  struct task_cputime *times)
{
	struct signal_struct *sig = tsk->signal;
	unsigned long walked = 0, on_cpu = 0, locked = 0;
	unsigned int seq, nextseq;
	bool backwards = false;
	struct task_struct *t;
	unsigned long flags;
	u64 utime, stime, before, ns;

	rcu_read_lock();
	nextseq = READ_ONCE(always_lock);
	do {
		seq = nextseq;
		flags = read_seqbegin_or_lock_irqsave(&sig->stats_lock, &seq);
		locked += seq & 1;
		times->utime = sig->utime;
		times->stime = sig->stime;
		times->sum_exec_runtime = sig->sum_sched_runtime;

		for_each_thread(tsk, t) {
			task_cputime(t, &utime, &stime);
			times->utime += utime;
			times->stime += stime;
			before = READ_ONCE(t->se.sum_exec_runtime);
			on_cpu += !!READ_ONCE(t->on_cpu);
			ns = task_sched_runtime(t);
			backwards |= ns < before;
			times->sum_exec_runtime += ns;
			walked++;
		}
		/* If lockless access failed, take the lock. */
		nextseq = 1;
	} while (need_seqretry(&sig->stats_lock, seq));
	done_seqretry_irqrestore(&sig->stats_lock, seq, flags);
	rcu_read_unlock();

	abpath_add(p, ABPATH_LEGACY, GC_THREADS_WALKED, walked);
	abpath_add(p, ABPATH_LEGACY, GC_RQ_LOCKED, on_cpu);
	abpath_add(p, ABPATH_LEGACY, GC_LOCKED_PASSES, locked);
	if (backwards)
		abpath_add(p, ABPATH_LEGACY, ABPATH_MISMATCHES, 1);
}

static unsigned long group_cputime_switches(void)
{
	return READ_ONCE(current->nvcsw) + READ_ONCE(current->nivcsw);
}

/*
 * A timed call, or a legacy one.
 *
 * Unlike the other three paths, this one runs preemptible: the lockless
 * walk holds only rcu_read_lock(), so under preempt=full the caller may
 * sit on a runqueue part way through.  Such a call is still recorded,
 * since that is the latency times() saw, but the watchdog judges only
 * calls that ran without a context switch: time spent off the CPU is not
 * the walk's cost, and on a busy machine it alone would revert legacy.
 */
static noinline bool group_cputime_run(struct abpath_path *p,
				       enum abpath_mode mode, bool timed,
				       struct task_struct *tsk,
				       struct task_cputime *times,
				       abpath_group_cputime_fn stock)
{
	unsigned long switches = 0;
	u64 t0 = 0, ns;

	if (timed) {
		switches = group_cputime_switches();
		t0 = abpath_now();
	}
	if (mode == ABPATH_LEGACY)
		group_cputime_legacy(p, tsk, times);
	else
		stock(tsk, times);
	if (!timed)
		return true;
	ns = abpath_record(p, mode, t0);
	if (mode == ABPATH_LEGACY && group_cputime_switches() == switches)
		abpath_watchdog_check(p, ns);
	return true;
}

/*
 * This runs on every times(): an untimed optimized call only counts and
 * returns, and thread_group_cputime() runs its own stock pass inline.  The
 * rest is out of line so that this path saves no registers.
 */
bool abpath_group_cputime_hook(struct task_struct *tsk,
			       struct task_cputime *times,
			       abpath_group_cputime_fn stock)
{
	struct abpath_path *p = &abpath_group_cputime_path;
	const enum abpath_hook hook = ABPATH_HOOK_GROUP_CPUTIME;

	if (abpath_mode_now(p) == ABPATH_LEGACY)
		return group_cputime_run(p, ABPATH_LEGACY,
					 abpath_count(p, ABPATH_LEGACY, hook),
					 tsk, times, stock);
	if (!abpath_count(p, ABPATH_OPTIMIZED, hook))
		return false;
	return group_cputime_run(p, ABPATH_OPTIMIZED, true, tsk, times, stock);
}
