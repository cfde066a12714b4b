// SPDX-License-Identifier: GPL-2.0
/*
 * group_cputime: thread_group_cputime(), the sampler behind times(),
 * getrusage() and CLOCK_PROCESS_CPUTIME_ID while no CPU timer is armed.
 *
 * Optimized is the stock lockless seqlock pass.  Context: process, possibly
 * with siglock held and IRQs off (thread_group_start_cputime()), so nothing
 * here may sleep or take siglock.
 */
#include <linux/sched/cputime.h>

#include "abpath.h"

struct abpath_path abpath_group_cputime_path = {
	.name	= "group_cputime",
	.hook	= ABPATH_HOOK_GROUP_CPUTIME,
	.legacy	= STATIC_KEY_FALSE_INIT,
};

void abpath_group_cputime_hook(struct task_struct *tsk,
			       struct task_cputime *times,
			       abpath_group_cputime_fn stock)
{
	struct abpath_path *p = &abpath_group_cputime_path;
	u64 t0 = abpath_now();

	stock(tsk, times);
	abpath_account(p, abpath_mode_now(p), t0);
}
