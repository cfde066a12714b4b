// SPDX-License-Identifier: GPL-2.0
/*
 * timer_fastpath: the per-tick check of run_posix_cpu_timers() that decides
 * whether the POSIX CPU timer slow path must run.  Optimized is the
 * kernel's own fastpath_timer_check(); legacy is the 2.6.27 tick (what it
 * did and why it collapsed: docs/design.md, "timer_fastpath").
 *
 * Context.  The O(1) share test runs in the tick's hardirq.  So does the
 * slow path, as in 2.6.27, on every kernel but PREEMPT_RT: it takes
 * tasklist_lock for read (readers in interrupts never wait for a queued
 * writer, and every writer disables IRQs) and siglock (always taken with
 * IRQs off), in the kernel's own order.  On PREEMPT_RT both locks sleep,
 * so there the tick asks the kernel for its expiry task work, and the slow
 * path runs at the top of it instead: a variant, which the path's site
 * says.  Shares and timers stay exact either way, because the kernel's
 * own check keeps deciding expiry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/posix-timers.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/vmalloc.h>

#include "abpath.h"
#include "mode.h"
#include "stats.h"
#include "timer_fastpath.h"
#include "watchdog.h"

/*
 * On PREEMPT_RT the slow path needs task work: refuse to build for an
 * architecture that expires CPU timers in hardirq there, rather than
 * load a module that could sleep in atomic context.
 */
static_assert(!IS_ENABLED(CONFIG_PREEMPT_RT) ||
	      IS_ENABLED(CONFIG_POSIX_CPU_TIMERS_TASK_WORK),
	      "timer_fastpath's slow path needs POSIX_CPU_TIMERS_TASK_WORK on PREEMPT_RT");

enum {
	TF_TICKS = ABPATH_NR_COMMON,
	TF_TICKS_ARMED,
	TF_SLOW_PATHS,
	TF_THREADS_WALKED,
	TF_REBALANCE_WRITES,
	TF_SLOW_PATH_NS,
	TF_SLOW_PATHS_HARDIRQ,
};

static const char *const timer_fastpath_counters[] = {
	"ticks",		/* every tick that reached the check */
	"ticks_armed",		/* ... of a process with CPU timers armed */
	"slow_paths",		/* legacy slow paths: sum and rebalance */
	"threads_walked",	/* threads summed by them */
	"rebalance_writes",	/* thread shares they wrote */
	"slow_path_ns",		/* time they took, in all */
	"slow_paths_hardirq",	/* slow paths that ran in hard interrupt */
};

static int timer_fastpath_init(void);
static void timer_fastpath_exit(void);

struct abpath_path abpath_timer_fastpath_path = {
	ABPATH_PATH_OF(timer_fastpath),
	.counters	= timer_fastpath_counters,
	.nr_counters	= ARRAY_SIZE(timer_fastpath_counters),
	.checked	= true,
	.init		= timer_fastpath_init,
	.exit		= timer_fastpath_exit,
};

/*
 * A thread's share of the process timers: 2.6.27's it_prof_expires,
 * it_virt_expires and it_sched_expires, on the thread's own clocks; 0 is
 * "no share on this clock".  Written under the owning group's siglock,
 * read locklessly by the owner's tick; a torn read across fields can only
 * cost or save one slow path.
 */
struct tf_share {
	struct task_struct *task;
	u64 start_time;
	u64 expires[CPUCLOCK_MAX];
} ____cacheline_aligned;

#define TF_SHARES_SHIFT	15
static struct tf_share *tf_shares;

static struct tf_share *tf_share_of(const struct task_struct *t)
{
	return &tf_shares[t->pid & ((1U << TF_SHARES_SHIFT) - 1)];
}

static bool tf_share_owned(const struct tf_share *s,
			   const struct task_struct *t)
{
	return READ_ONCE(s->task) == t &&
	       READ_ONCE(s->start_time) == t->start_time;
}

/* Makes @t the owner of its slot, with no share on any clock. */
static void tf_share_claim(struct tf_share *s, struct task_struct *t)
{
	int i;

	WRITE_ONCE(s->task, t);
	WRITE_ONCE(s->start_time, t->start_time);
	for (i = 0; i < CPUCLOCK_MAX; i++)
		WRITE_ONCE(s->expires[i], 0);
}

/*
 * A thread's own clocks as 2.6.27 read them: the tick-accounted utime and
 * stime and the committed runtime, the same values that feed the atomic
 * group clock.
 */
static void tf_thread_sample(const struct task_struct *t, u64 *s)
{
	u64 utime = READ_ONCE(t->utime), stime = READ_ONCE(t->stime);

	s[CPUCLOCK_PROF] = utime + stime;
	s[CPUCLOCK_VIRT] = utime;
	s[CPUCLOCK_SCHED] = READ_ONCE(t->se.sum_exec_runtime);
}

static void tf_group_sample(struct signal_struct *sig, u64 *s)
{
	struct task_cputime_atomic *at = &sig->cputimer.cputime_atomic;
	u64 utime = atomic64_read(&at->utime);

	s[CPUCLOCK_PROF] = utime + atomic64_read(&at->stime);
	s[CPUCLOCK_VIRT] = utime;
	s[CPUCLOCK_SCHED] = atomic64_read(&at->sum_exec_runtime);
}

/* The O(1) test of every tick: is current's share used up? */
static bool tf_share_used_up(const struct task_struct *tsk)
{
	const struct tf_share *s = tf_share_of(tsk);
	u64 now[CPUCLOCK_MAX], expires;
	int i;

	if (!tf_share_owned(s, tsk))
		return true;
	tf_thread_sample(tsk, now);
	for (i = 0; i < CPUCLOCK_MAX; i++) {
		expires = READ_ONCE(s->expires[i]);
		if (expires && now[i] >= expires)
			return true;
	}
	return false;
}

/*
 * check_process_timers()'s sum of the dead threads and every live one, and
 * in @most the clocks of the thread with the most runtime, the one an
 * injection leaves out.  Caller holds siglock: no thread can leave the
 * group meanwhile.
 */
static unsigned long tf_sum_threads(struct task_struct *tsk, u64 *sum,
				    u64 *most)
{
	struct signal_struct *sig = tsk->signal;
	unsigned long threads = 0;
	u64 s[CPUCLOCK_MAX];
	struct task_struct *t;
	int i;

	sum[CPUCLOCK_PROF] = sig->utime + sig->stime;
	sum[CPUCLOCK_VIRT] = sig->utime;
	sum[CPUCLOCK_SCHED] = sig->sum_sched_runtime;
	memset(most, 0, CPUCLOCK_MAX * sizeof(*most));
	for_each_thread(tsk, t) {
		tf_thread_sample(t, s);
		for (i = 0; i < CPUCLOCK_MAX; i++)
			sum[i] += s[i];
		if (s[CPUCLOCK_SCHED] >= most[CPUCLOCK_SCHED])
			memcpy(most, s, sizeof(s));
		threads++;
	}
	return threads;
}

/* How far a sum may stray from the group samples (tf_sums_within()). */
static u64 tf_slack(void)
{
	return 2ULL * TICK_NSEC * num_online_cpus();
}

/*
 * The cross-check: the sums must lie within atomic group samples taken
 * just before and just after them.  Every thread's clocks and the group's
 * grow together (update_curr() and the tick add to the thread first, the
 * group right after), and no thread can leave the walk under siglock, but
 * the group clock is only nearly the sum of its threads:
 *
 *  - it can be ahead: an update_curr() from another CPU (a wakeup's
 *    preemption check) can add an exiting thread's last delta to the group
 *    after __exit_signal() has read the thread's runtime into the dead
 *    threads' sum, and a delta that lands while the clock is being
 *    (re)started can be counted twice;
 *  - it can be behind: a delta landing during a (re)start can be missed,
 *    and another CPU may have added to a thread but not yet to the group.
 *
 * Each is one delta per CPU at a time: a whole tick for prof and virt, but
 * for sched as long as the time since the thread's last update_curr(),
 * which no tick limits on a nohz_full CPU or in a guest whose vCPU the host
 * holds back (docs/design.md has what was seen).  So every clock may fall
 * below the sample before by the slack, which a thread left out of the
 * walk misses by its whole clock; prof and virt may pass the sample after
 * by it, and sched is not bounded above: a thread counted twice still
 * shows in prof once it has run longer than the slack.
 */
static bool tf_sums_within(const u64 *before, const u64 *sum,
			   const u64 *after, u64 slack)
{
	int i;

	for (i = 0; i < CPUCLOCK_MAX; i++) {
		if (sum[i] + slack < before[i])
			return false;
		if (i != CPUCLOCK_SCHED && sum[i] > after[i] + slack)
			return false;
	}
	return true;
}

/*
 * Whether leaving out the busiest thread is an error the check must see:
 * its prof clock (@most) passes the sample after, plus the slack, by more
 * than the slack below the sample before.  A thread with less CPU time
 * than that would be inside the tolerance, so an injection waits for a
 * slow path where it is not, and every injection taken is a mismatch.
 */
static bool tf_inject_detectable(const u64 *before, const u64 *most,
				 const u64 *after, u64 slack)
{
	return most[CPUCLOCK_PROF] >
	       after[CPUCLOCK_PROF] - before[CPUCLOCK_PROF] + 2 * slack;
}

/*
 * process_timer_rebalance(): every live thread's share becomes its own
 * clock plus @left, where that is earlier than the share it has.  Returns
 * the number of shares written.
 */
static unsigned long tf_rebalance(struct task_struct *tsk,
				  const u64 *expires, const u64 *left)
{
	unsigned long writes = 0;
	u64 now[CPUCLOCK_MAX], e, cur;
	struct task_struct *t;
	struct tf_share *s;
	bool wrote;
	int i;

	for_each_thread(tsk, t) {
		if (t->flags & PF_EXITING)
			continue;
		s = tf_share_of(t);
		wrote = !tf_share_owned(s, t);
		if (wrote)
			tf_share_claim(s, t);
		tf_thread_sample(t, now);
		for (i = 0; i < CPUCLOCK_MAX; i++) {
			if (!expires[i])
				continue;
			e = now[i] + left[i];
			cur = READ_ONCE(s->expires[i]);
			if (!cur || cur > e) {
				WRITE_ONCE(s->expires[i], e);
				wrote = true;
			}
		}
		writes += wrote;
	}
	return writes;
}

/*
 * The slow path: check_process_timers()'s sum, judged against the group
 * clock, then process_timer_rebalance().  Takes tasklist_lock for read
 * and siglock, as 2.6.27 did; in the tick or in task work (see the top of
 * this file), current either way.  Holding tasklist_lock, current cannot
 * be released under it: a thread already reaped (no sighand) is skipped.
 */
static void timer_fastpath_legacy(struct abpath_path *p,
				  struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct posix_cputimers *pct = &sig->posix_cputimers;
	u64 before[CPUCLOCK_MAX], sum[CPUCLOCK_MAX], after[CPUCLOCK_MAX];
	u64 most[CPUCLOCK_MAX], expires[CPUCLOCK_MAX], left[CPUCLOCK_MAX];
	u64 next, slack;
	unsigned long threads, writes = 0, flags;
	unsigned int nthreads;
	bool inject, ok;
	int i;

	read_lock(&tasklist_lock);
	if (!tsk->sighand) {
		read_unlock(&tasklist_lock);
		return;
	}
	spin_lock_irqsave(&tsk->sighand->siglock, flags);

	/* check_thread_timers(): current's own share starts over. */
	tf_share_claim(tf_share_of(tsk), tsk);
	/* Another thread may have expired the group's last timer. */
	if (!READ_ONCE(pct->timers_active)) {
		spin_unlock_irqrestore(&tsk->sighand->siglock, flags);
		read_unlock(&tasklist_lock);
		return;
	}

	tf_group_sample(sig, before);
	threads = tf_sum_threads(tsk, sum, most);
	tf_group_sample(sig, after);
	slack = tf_slack();
	inject = tf_inject_detectable(before, most, after, slack) &&
		 abpath_inject_take(p);
	if (inject)
		for (i = 0; i < CPUCLOCK_MAX; i++)
			sum[i] -= most[i];
	ok = tf_sums_within(before, sum, after, slack);

	/* An exiting thread may have dropped the last live reference. */
	nthreads = atomic_read(&sig->live);
	if (nthreads) {
		for (i = 0; i < CPUCLOCK_MAX; i++) {
			next = pct->bases[i].nextevt;
			expires[i] = next == U64_MAX ? 0 : next;
			left[i] = next > sum[i] ?
				  div_u64(next - sum[i], nthreads) : 0;
			/*
			 * cputime_div_non_zero() made a share under a jiffy
			 * one jiffy, which the thread's next tick used up: a
			 * tick charged a whole jiffy then.  Here a tick
			 * charges TICK_NSEC less the interrupt and steal
			 * time taken out of it (IRQ_TIME_ACCOUNTING,
			 * paravirt steal), so such a share ends at the next
			 * tick that charges the thread anything.
			 */
			if (!left[i] ||
			    (i != CPUCLOCK_SCHED && left[i] < TICK_NSEC))
				left[i] = 1;
		}
		writes = tf_rebalance(tsk, expires, left);
	}

	spin_unlock_irqrestore(&tsk->sighand->siglock, flags);
	read_unlock(&tasklist_lock);

	abpath_add(p, ABPATH_LEGACY, TF_SLOW_PATHS, 1);
	if (in_hardirq())
		abpath_add(p, ABPATH_LEGACY, TF_SLOW_PATHS_HARDIRQ, 1);
	abpath_add(p, ABPATH_LEGACY, TF_THREADS_WALKED, threads);
	abpath_add(p, ABPATH_LEGACY, TF_REBALANCE_WRITES, writes);
	if (!ok) {
		abpath_add(p, ABPATH_LEGACY, ABPATH_MISMATCHES, 1);
		/*
		 * Which bound a sum missed, and by how much: an uninjected
		 * mismatch is either a wrong sum or a bound that does not
		 * hold, and only the numbers tell which.
		 */
		pr_warn_ratelimited("timer_fastpath: legacy sums outside the group clock%s, %lu threads: prof %llu in [%llu, %llu], virt %llu in [%llu, %llu], sched %llu in [%llu, %llu], slack %llu ns\n",
				    inject ? " (injected)" : "", threads,
				    sum[CPUCLOCK_PROF], before[CPUCLOCK_PROF],
				    after[CPUCLOCK_PROF],
				    sum[CPUCLOCK_VIRT], before[CPUCLOCK_VIRT],
				    after[CPUCLOCK_VIRT],
				    sum[CPUCLOCK_SCHED], before[CPUCLOCK_SCHED],
				    after[CPUCLOCK_SCHED], slack);
	}
}

/*
 * One slow path, timed and judged by the watchdog unless it was switched
 * out part way (only in task work can it be).
 *
 * In the tick it takes spinlock_t and rwlock_t in hardirq, which lockdep's
 * PROVE_RAW_LOCK_NESTING reports because they sleep on PREEMPT_RT.  This
 * code exists only on !PREEMPT_RT, where both spin, so the wait-type
 * override says so for its duration, as debugobjects' pool fill does.
 */
static void tf_slowpath(struct abpath_path *p, unsigned long state,
			struct task_struct *tsk)
{
	static ABPATH_DEFINE_NONRT_MAP(tf_tick_map);
	unsigned long switches = abpath_switches();
	u64 t0, ns;

	t0 = abpath_now();
	if (ABPATH_TF_SLOW_IN_TICK) {
		abpath_nonrt_begin(&tf_tick_map);
		timer_fastpath_legacy(p, tsk);
		abpath_nonrt_end(&tf_tick_map);
	} else {
		timer_fastpath_legacy(p, tsk);
	}
	ns = abpath_now() - t0;
	if ((s64)ns < 0)
		ns = 0;
	abpath_add(p, ABPATH_LEGACY, TF_SLOW_PATH_NS, ns);
	if (abpath_switches() == switches)
		abpath_watchdog_check(p, state, ns);
}

/*
 * The tick, hardirq: the kernel's check decides expiry in both modes.  In
 * legacy, a used-up share (or an expiry, which 2.6.27 found on the same
 * slow path) runs the slow path here, or on PREEMPT_RT asks for the
 * kernel's expiry pass, which runs it (abpath_timer_slowpath_hook()).
 * A reaped thread has no share to use up.
 */
bool abpath_timer_fastpath_hook(struct task_struct *tsk,
				abpath_timer_check_fn stock)
{
	struct abpath_path *p = &abpath_timer_fastpath_path;
	struct posix_cputimers *pct = &tsk->signal->posix_cputimers;
	unsigned long state = abpath_state_now(p);
	enum abpath_mode mode = abpath_state_mode(state);
	u64 t0 = abpath_start(p, mode);
	bool expired, armed;

	expired = stock(tsk);
	armed = READ_ONCE(pct->timers_active);
	abpath_add(p, mode, TF_TICKS, 1);
	if (armed)
		abpath_add(p, mode, TF_TICKS_ARMED, 1);
	/* Another thread handling expiry owns the group's timers for now. */
	if (mode == ABPATH_LEGACY && armed && !tsk->exit_state &&
	    !READ_ONCE(pct->expiry_active) &&
	    (expired || tf_share_used_up(tsk))) {
		if (ABPATH_TF_SLOW_IN_TICK)
			tf_slowpath(p, state, tsk);
		else
			expired = true;
	}
	abpath_finish(p, state, t0);
	return expired;
}

/*
 * The kernel's expiry pass, before it takes siglock: the slow path, on
 * PREEMPT_RT only; elsewhere the tick has run it already.  Only the hook
 * patch has this site, and only it builds for PREEMPT_RT.
 */
void abpath_timer_slowpath_hook(struct task_struct *tsk)
{
	struct abpath_path *p = &abpath_timer_fastpath_path;
	unsigned long state = abpath_state_now(p);

	if (ABPATH_TF_SLOW_IN_TICK ||
	    abpath_state_mode(state) != ABPATH_LEGACY ||
	    !READ_ONCE(tsk->signal->posix_cputimers.timers_active))
		return;
	tf_slowpath(p, state, tsk);
}

/* 32768 cache lines (2 MiB), whatever the mode: a flip must not allocate. */
static int timer_fastpath_init(void)
{
	tf_shares = vzalloc(array_size(1U << TF_SHARES_SHIFT,
				       sizeof(*tf_shares)));
	return tf_shares ? 0 : -ENOMEM;
}

/* After the backend has detached: no tick can look at the shares any more. */
static void timer_fastpath_exit(void)
{
	vfree(tf_shares);
	tf_shares = NULL;
}
