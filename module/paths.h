/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one list of abpath's paths, which drives every other, as
 * kernel/sched/features.h drives sched/debug.c: a file that needs each
 * path defines the macros it uses and includes this one, which expands
 * the others to nothing and undefines them all at its end.  Kbuild reads
 * the ABPATH_PATH() lines too, for the objects to build and the order the
 * per-path parameters name (ABPATH_PATH_ORDER), so each stays on a line
 * of its own.
 *
 * ABPATH_PATH(name), after one comment line that says what the path is
 *	struct abpath_path abpath_<name>_path, in module/<name>.c.  Its
 *	place here is its id, ABPATH_ID(name): the order of every per-path
 *	module parameter, of sysfs, debugfs and the stats, and of the
 *	CLI's own list (userspace/control.c, checked by tests/host).
 *	What the backends call of it, and what its site texts use, is in
 *	module/<name>.h.
 *
 * ABPATH_SAMPLE_SHIFT(name, shift)
 *	The default of sample_shift for a path that times one call in
 *	2^shift (stats.h).  A path without one times every call: one that
 *	runs at most once per tick or per exit, where timing every call is
 *	noise, and the watchdog sees every legacy call.
 *
 * ABPATH_PATCHED(name, hook, site)
 *	The patched backend's site: the hook patch's id for it, and what
 *	<path>/site says.  A path without one is unavailable on that backend.
 * ABPATH_PATCHED_CALL(member, callback)
 *	A struct abpath_ops member the hook patch calls, and the path's
 *	callback for it.
 *
 * ABPATH_STOCK(name, func, handler, check, site)
 * ABPATH_STOCK_DIVERT(name, func, check, site)
 *	The stock backend's site: the function whose ftrace site it takes,
 *	the handler the trampoline calls there (module/stock.c), or, for the
 *	one path whose calls the trampoline itself diverts, none; a check
 *	that the site is what the path expects, or NULL, and what
 *	<path>/site says.  A path without one is unavailable on that
 *	backend.
 */
#ifndef ABPATH_PATH
#define ABPATH_PATH(...)
#endif
#ifndef ABPATH_SAMPLE_SHIFT
#define ABPATH_SAMPLE_SHIFT(...)
#endif
#ifndef ABPATH_PATCHED
#define ABPATH_PATCHED(...)
#endif
#ifndef ABPATH_PATCHED_CALL
#define ABPATH_PATCHED_CALL(...)
#endif
#ifndef ABPATH_STOCK
#define ABPATH_STOCK(...)
#endif
#ifndef ABPATH_STOCK_DIVERT
#define ABPATH_STOCK_DIVERT(...)
#endif

/* Thread-group CPU time: one seqlock pass, or each thread's runtime (v3.18) */
ABPATH_PATH(group_cputime)
/* 1 in 1024 timed: it runs on every times() (docs/benchmarks.md's cost) */
ABPATH_SAMPLE_SHIFT(group_cputime, 10)
ABPATH_PATCHED(group_cputime, ABPATH_HOOK_GROUP_CPUTIME,
	       "thread_group_cputime() hook, both arms timed")
ABPATH_PATCHED_CALL(group_cputime, abpath_group_cputime_hook)
ABPATH_STOCK_DIVERT(group_cputime, thread_group_cputime, NULL,
		    "thread_group_cputime() entry, legacy and timed calls diverted")

/* The CPU timers' tick: expiry caches, or 2.6.27's per-thread shares */
ABPATH_PATH(timer_fastpath)
ABPATH_PATCHED(timer_fastpath, ABPATH_HOOK_TIMER_FASTPATH,
	       "fastpath_timer_check(); " ABPATH_TF_SLOW_SITE)
ABPATH_PATCHED_CALL(timer_fastpath, abpath_timer_fastpath_hook)
ABPATH_PATCHED_CALL(timer_slowpath, abpath_timer_slowpath_hook)
ABPATH_STOCK(timer_fastpath, run_posix_cpu_timers, stock_on_timer_tick,
	     stock_check_tick,
	     "run_posix_cpu_timers() entry; " ABPATH_TF_SLOW_SITE)

/* Reparenting at exit: walk the children, or scan every task (2.5.31) */
ABPATH_PATH(exit_reparent)
ABPATH_PATCHED(exit_reparent, ABPATH_HOOK_EXIT_REPARENT,
	       "exit_notify() start, read_lock(tasklist_lock)")
ABPATH_PATCHED_CALL(exit_reparent, abpath_exit_reparent_hook)
ABPATH_STOCK(exit_reparent, do_exit, stock_on_exit, NULL,
	     "do_exit() entry, read_lock(tasklist_lock)")

/* TIMER_SOFTIRQ: raised when a timer is due (v5.9), or on every tick */
ABPATH_PATH(timer_softirq)
ABPATH_PATCHED(timer_softirq, ABPATH_HOOK_TIMER_SOFTIRQ,
	       "update_process_times() after run_local_timers()")
ABPATH_PATCHED_CALL(timer_softirq, abpath_timer_softirq_hook)
ABPATH_STOCK(timer_softirq, rcu_sched_clock_irq, stock_on_rcu_tick,
	     stock_check_rcu_tick,
	     "rcu_sched_clock_irq() entry, after run_local_timers()")

#undef ABPATH_PATH
#undef ABPATH_SAMPLE_SHIFT
#undef ABPATH_PATCHED
#undef ABPATH_PATCHED_CALL
#undef ABPATH_STOCK
#undef ABPATH_STOCK_DIVERT
