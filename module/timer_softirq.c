// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq: whether the tick raises TIMER_SOFTIRQ.
 *
 * Optimized is the stock run_local_timers(), which raises it only when a
 * timer base's next_expiry has passed; here only the tick is counted.
 * Context: the tick's hardirq, right after run_local_timers().
 */
#include "abpath.h"

struct abpath_path abpath_timer_softirq_path = {
	.name	= "timer_softirq",
	.hook	= ABPATH_HOOK_TIMER_SOFTIRQ,
	.legacy	= STATIC_KEY_FALSE_INIT,
};

bool abpath_timer_softirq_hook(void)
{
	struct abpath_path *p = &abpath_timer_softirq_path;

	abpath_account(p, abpath_mode_now(p), abpath_now());
	return false;
}
