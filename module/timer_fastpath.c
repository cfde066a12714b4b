// SPDX-License-Identifier: GPL-2.0
/*
 * timer_fastpath: the per-tick check of run_posix_cpu_timers() that decides
 * whether the POSIX CPU timer slow path must run.
 *
 * Optimized is the stock fastpath_timer_check(): expiry caches and the
 * atomic group sample, no lock.  Context: the tick's hardirq, IRQs off,
 * tsk == current, after the "task work already queued" test.
 */
#include "abpath.h"

struct abpath_path abpath_timer_fastpath_path = {
	.name	= "timer_fastpath",
	.hook	= ABPATH_HOOK_TIMER_FASTPATH,
	.legacy	= STATIC_KEY_FALSE_INIT,
};

bool abpath_timer_fastpath_hook(struct task_struct *tsk,
				abpath_timer_check_fn stock)
{
	struct abpath_path *p = &abpath_timer_fastpath_path;
	u64 t0 = abpath_now();
	bool expired;

	expired = stock(tsk);
	abpath_account(p, abpath_mode_now(p), t0);
	return expired;
}
