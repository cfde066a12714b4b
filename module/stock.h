/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hook patch's <linux/abpath_hooks.h> gives the patched backend,
 * for the stock backend, which has no hook patch: the path ids and the
 * shapes of the stock code a callback is handed.
 */
#ifndef _ABPATH_STOCK_H
#define _ABPATH_STOCK_H

#include <linux/types.h>

struct task_struct;
struct task_cputime;

enum abpath_hook {
	ABPATH_HOOK_GROUP_CPUTIME,
	ABPATH_HOOK_TIMER_FASTPATH,
	ABPATH_HOOK_EXIT_REPARENT,
	ABPATH_HOOK_TIMER_SOFTIRQ,
	ABPATH_NR_HOOKS,
};

typedef void (*abpath_group_cputime_fn)(struct task_struct *tsk,
					struct task_cputime *times);
typedef bool (*abpath_timer_check_fn)(struct task_struct *tsk);

/*
 * In no header; stock.c checks a site against it, through a livepatch
 * relocation.
 */
void update_process_times(int user_tick);

/* stock.c: thread_group_cputime()'s trampoline and the C it calls. */
void stock_gc_tramp(void);
unsigned long stock_gc_entry(unsigned long parent_ip);

#endif /* _ABPATH_STOCK_H */
