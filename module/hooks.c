// SPDX-License-Identifier: GPL-2.0
/*
 * The patched backend: the kernel's hook patch (CONFIG_ABPATH_HOOKS) calls
 * the paths through static calls at the exact sites of the historical
 * code.  It is the reference the stock backend (stock.c) is compared with.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>

#include "abpath.h"

const char *const abpath_backend_name = "patched";

static const struct abpath_ops abpath_ops = {
	.group_cputime	= abpath_group_cputime_hook,
	.timer_fastpath	= abpath_timer_fastpath_hook,
	.timer_slowpath	= abpath_timer_slowpath_hook,
	.exit_reparent	= abpath_exit_reparent_hook,
	.timer_softirq	= abpath_timer_softirq_hook,
};

const char *const abpath_backend_sites[ABPATH_NR_HOOKS] = {
	[ABPATH_HOOK_GROUP_CPUTIME] =
		"thread_group_cputime() hook, both arms timed",
	[ABPATH_HOOK_TIMER_FASTPATH] =
		"fastpath_timer_check(); " ABPATH_TF_SLOW_SITE,
	[ABPATH_HOOK_EXIT_REPARENT] =
		"exit_notify() start, read_lock(tasklist_lock)",
	[ABPATH_HOOK_TIMER_SOFTIRQ] =
		"update_process_times() after run_local_timers()",
};

int abpath_backend_init(void)
{
	struct abpath_path *p;
	int ret;

	ret = abpath_register(&abpath_ops);
	if (ret) {
		pr_err("cannot register with the kernel hooks: %d\n", ret);
		return ret;
	}
	abpath_for_each_path(p) {
		ret = abpath_enable(&abpath_ops, p->hook, true);
		if (ret)
			goto err_unregister;
	}
	return 0;

err_unregister:
	abpath_unregister(&abpath_ops);
	return ret;
}

/* Turns every hook off and waits for callbacks still running. */
void abpath_backend_exit(void)
{
	abpath_unregister(&abpath_ops);
}
