// SPDX-License-Identifier: GPL-2.0
/*
 * exit_reparent: finding the children of an exiting task in
 * forget_original_parent().
 *
 * Optimized is the stock walk of father->children, which runs after this
 * hook; here only the call is counted.  Context: tasklist_lock held for
 * write, IRQs off.
 */
#include "abpath.h"

struct abpath_path abpath_exit_reparent_path = {
	.name	= "exit_reparent",
	.hook	= ABPATH_HOOK_EXIT_REPARENT,
	.legacy	= STATIC_KEY_FALSE_INIT,
};

void abpath_exit_reparent_hook(struct task_struct *father)
{
	struct abpath_path *p = &abpath_exit_reparent_path;

	abpath_account(p, abpath_mode_now(p), abpath_now());
}
