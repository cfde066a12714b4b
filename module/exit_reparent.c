// SPDX-License-Identifier: GPL-2.0
/*
 * exit_reparent: finding the children of an exiting task in
 * forget_original_parent().
 *
 * Optimized is the stock walk of father->children, which runs after this
 * hook whatever the mode.  Legacy adds the cost exit had before 2.5.31
 * ("O(1) sys_exit()"): every exit, childless or not, scans every task in
 * the system for real_parent == father.  The stock code still does the
 * reparenting; the scan's answer is checked against father->children.
 *
 * Context: tasklist_lock held for write, IRQs off.  That lock keeps the
 * task list and every children list still, so the scan and the list agree
 * unless one of them is wrong.
 */
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "abpath.h"

enum {
	EXIT_TASKS_SCANNED = ABPATH_NR_COMMON,
	EXIT_CHILDREN_FOUND,
};

static const char *const exit_reparent_counters[] = {
	"tasks_scanned",
	"children_found",
};

struct abpath_path abpath_exit_reparent_path = {
	.name		= "exit_reparent",
	.hook		= ABPATH_HOOK_EXIT_REPARENT,
	.counters	= exit_reparent_counters,
	.nr_counters	= ARRAY_SIZE(exit_reparent_counters),
};

/*
 * Children are thread-group leaders (CLONE_THREAD tasks never join a
 * children list), so the scan counts leaders whose real parent is @father.
 * The two answers are the same set when every listed child names @father
 * as its real parent and the counts agree.
 */
static void exit_reparent_legacy(struct abpath_path *p,
				 struct task_struct *father)
{
	unsigned long scanned = 0, found = 0, listed = 0;
	struct task_struct *g, *t;
	bool mismatch = false;

	for_each_process_thread(g, t) {
		scanned++;
		if (rcu_access_pointer(t->real_parent) == father &&
		    thread_group_leader(t))
			found++;
	}

	list_for_each_entry(t, &father->children, sibling) {
		listed++;
		if (rcu_access_pointer(t->real_parent) != father)
			mismatch = true;
	}

	abpath_add(p, ABPATH_LEGACY, EXIT_TASKS_SCANNED, scanned);
	abpath_add(p, ABPATH_LEGACY, EXIT_CHILDREN_FOUND, found);
	if (mismatch || found != listed)
		abpath_add(p, ABPATH_LEGACY, ABPATH_MISMATCHES, 1);
}

void abpath_exit_reparent_hook(struct task_struct *father)
{
	struct abpath_path *p = &abpath_exit_reparent_path;
	enum abpath_mode mode = abpath_mode_now(p);
	u64 t0 = abpath_start(p, mode);

	if (mode == ABPATH_LEGACY)
		exit_reparent_legacy(p, father);
	abpath_finish(p, mode, t0);
}
