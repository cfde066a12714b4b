// SPDX-License-Identifier: GPL-2.0
/*
 * group_cputime: thread_group_cputime(), the sampler behind times(),
 * getrusage() and CLOCK_PROCESS_CPUTIME_ID while no CPU timer is armed.
 *
 * Optimized is the stock lockless seqlock pass, which commits only
 * current's pending runtime.  Legacy is the sampler of v3.18 to v4.8
 * (6e998916dfe3 "sched/cputime: Fix clock_nanosleep()/clock_gettime()
 * inconsistency" until a1eb1411b4e4 "sched/cputime: Improve scalability
 * by not accounting thread group tasks pending runtime", 2016):
 * task_sched_runtime() for every thread, which takes the remote rq lock
 * and runs update_curr() for a thread running on another CPU.  Legacy
 * fills the sample itself.
 *
 * Context: process, possibly with siglock held and IRQs off
 * (thread_group_start_cputime()), so nothing here may sleep or take
 * siglock.  stats_lock and the rq locks nest inside siglock, as in the
 * stock code and in v4.8.
 */
#include <linux/moduleparam.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>

#include "abpath.h"
#include "group_cputime.h"
#include "mode.h"
#include "stats.h"
#include "watchdog.h"

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
	ABPATH_PATH_OF(group_cputime),
	.counters	= group_cputime_counters,
	.nr_counters	= ARRAY_SIZE(group_cputime_counters),
	.checked	= true,
};

/*
 * The v3.18-v4.8 sampler.  With @inject it deliberately leaves out the
 * thread with the most runtime (debugfs inject), and the caller gets that
 * wrong answer.
 *
 * Out of line, so that a timed optimized pass does not set up this walk's
 * stack frame.
 */
static noinline void group_cputime_legacy(struct abpath_path *p,
					  struct task_struct *tsk,
					  struct task_cputime *times,
					  bool inject)
{
	struct signal_struct *sig = tsk->signal;
	unsigned long walked = 0, on_cpu = 0, locked = 0;
	struct task_cputime most;
	unsigned int seq, nextseq;
	struct task_struct *t;
	unsigned long flags;
	u64 utime, stime, ns;

	rcu_read_lock();
	nextseq = READ_ONCE(always_lock);
	do {
		seq = nextseq;
		flags = read_seqbegin_or_lock_irqsave(&sig->stats_lock, &seq);
		locked += seq & 1;
		times->utime = sig->utime;
		times->stime = sig->stime;
		times->sum_exec_runtime = sig->sum_sched_runtime;
		most = (struct task_cputime) {};

		for_each_thread(tsk, t) {
			task_cputime(t, &utime, &stime);
			on_cpu += !!READ_ONCE(t->on_cpu);
			ns = task_sched_runtime(t);
			times->utime += utime;
			times->stime += stime;
			times->sum_exec_runtime += ns;
			if (ns >= most.sum_exec_runtime)
				most = (struct task_cputime) {
					.utime = utime,
					.stime = stime,
					.sum_exec_runtime = ns,
				};
			walked++;
		}
		/* If lockless access failed, take the lock. */
		nextseq = 1;
	} while (need_seqretry(&sig->stats_lock, seq));
	done_seqretry_irqrestore(&sig->stats_lock, seq, flags);
	rcu_read_unlock();

	if (inject) {
		times->utime -= most.utime;
		times->stime -= most.stime;
		times->sum_exec_runtime -= most.sum_exec_runtime;
	}
	abpath_add(p, ABPATH_LEGACY, GC_THREADS_WALKED, walked);
	abpath_add(p, ABPATH_LEGACY, GC_RQ_LOCKED, on_cpu);
	abpath_add(p, ABPATH_LEGACY, GC_LOCKED_PASSES, locked);
}

/*
 * The cross-check: every field of a sample lies between stock samples
 * taken just before and just after it.  Each thread's times only grow,
 * and each sampler reads a thread's times as they stand (legacy commits a
 * running thread's pending runtime first, which only makes them larger),
 * so any sum of them, taken in between, is in between.  The exception is
 * an exit: __exit_signal() moves the thread's times into the group's
 * totals without its last pending runtime, and the totals may shrink.  So
 * a call during which the stats_lock sequence moved (an exit) is not
 * judged.
 */
static bool cputime_within(const struct task_cputime *lo,
			   const struct task_cputime *mid,
			   const struct task_cputime *hi)
{
	return lo->utime <= mid->utime && mid->utime <= hi->utime &&
	       lo->stime <= mid->stime && mid->stime <= hi->stime &&
	       lo->sum_exec_runtime <= mid->sum_exec_runtime &&
	       mid->sum_exec_runtime <= hi->sum_exec_runtime;
}

/*
 * A timed call, or a legacy one.  A timed call is also judged: the two
 * stock samples of the cross-check bracket it, outside the timed part,
 * in both modes alike so that both pay for them.
 *
 * Unlike the tick's paths, this one runs preemptible: the lockless walk
 * holds only rcu_read_lock(), so under preempt=full the caller may sit on
 * a runqueue part way through.  Such a call is still recorded, since that
 * is the latency times() saw, but the watchdog judges only calls that ran
 * without a context switch (abpath_switches()).
 */
static noinline bool group_cputime_run(struct abpath_path *p,
				       unsigned long state, bool timed,
				       struct task_struct *tsk,
				       struct task_cputime *times,
				       abpath_group_cputime_fn stock)
{
	enum abpath_mode mode = abpath_state_mode(state);
	struct signal_struct *sig = tsk->signal;
	struct task_cputime before, after;
	bool inject = false, judged;
	unsigned long switches;
	unsigned int exits;
	u64 t0, ns;

	if (!timed) {
		group_cputime_legacy(p, tsk, times, false);
		return true;
	}

	exits = read_seqbegin(&sig->stats_lock);
	stock(tsk, &before);
	if (mode == ABPATH_LEGACY)
		inject = abpath_inject_take(p);

	switches = abpath_switches();
	t0 = abpath_now();
	if (mode == ABPATH_LEGACY)
		group_cputime_legacy(p, tsk, times, inject);
	else
		stock(tsk, times);
	ns = abpath_record(p, mode, t0);
	if (mode == ABPATH_LEGACY && abpath_switches() == switches)
		abpath_watchdog_check(p, state, ns);

	stock(tsk, &after);
	judged = !read_seqretry(&sig->stats_lock, exits);
	if (judged && !cputime_within(&before, times, &after))
		abpath_add(p, mode, ABPATH_MISMATCHES, 1);
	if (inject && !judged)
		abpath_inject_untake(p);
	return true;
}

/*
 * The hook patch's callback, on every times(): an untimed optimized call
 * only counts and returns, and thread_group_cputime() runs its own stock
 * pass inline.  The rest is out of line so that this path saves no
 * registers.  The stock backend claims the call in its trampoline instead
 * and comes in through abpath_group_cputime_claimed().
 */
bool abpath_group_cputime_hook(struct task_struct *tsk,
			       struct task_cputime *times,
			       abpath_group_cputime_fn stock)
{
	struct abpath_path *p = &abpath_group_cputime_path;
	unsigned long state = abpath_state_now(p);
	enum abpath_mode mode;
	bool timed;

	if (!abpath_group_cputime_claim(state, &mode, &timed))
		return false;
	return group_cputime_run(p, state, timed, tsk, times, stock);
}

/*
 * The mode may have changed since the claim: the call runs in the one it
 * was counted in, under the current epoch, so that a watchdog revert
 * judged on it can only hit the setting it ran under.
 */
void abpath_group_cputime_claimed(enum abpath_mode mode, bool timed,
				  struct task_struct *tsk,
				  struct task_cputime *times,
				  abpath_group_cputime_fn stock)
{
	struct abpath_path *p = &abpath_group_cputime_path;
	unsigned long state = abpath_state_now(p);

	state = (state & ~ABPATH_STATE_MODE) | mode;
	group_cputime_run(p, state, timed, tsk, times, stock);
}
