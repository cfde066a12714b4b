// SPDX-License-Identifier: GPL-2.0
/*
 * exit_reparent: finding the children of an exiting task.
 *
 * Optimized is the stock forget_original_parent(), which walks
 * father->children under the write lock a little later; it runs whatever
 * the mode, and does the real reparenting.  Legacy adds what every exit,
 * childless or not, did through 2.5.31 (fixed by "O(1) sys_exit()"):
 * forget_original_parent() ran first in exit_notify() and scanned every
 * task in the system for real_parent == father, under
 * read_lock(&tasklist_lock) with interrupts on.
 *
 * Context: the exiting task itself, before exit_notify() takes
 * tasklist_lock for write (its first statement on the patched backend,
 * do_exit() entry on the stock one): process context, interrupts on, no
 * lock held.  The scan takes tasklist_lock for read as 2.5.31 did; that
 * keeps the task list and every children list still, so the scan and
 * father->children agree unless one of them is wrong.
 */
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

#include "abpath.h"
#include "exit_reparent.h"
#include "mode.h"
#include "stats.h"
#include "watchdog.h"

enum {
	EXIT_TASKS_SCANNED = ABPATH_NR_COMMON,
	EXIT_CHILDREN_FOUND,
};

static const char *const exit_reparent_counters[] = {
	"tasks_scanned",
	"children_found",
};

struct abpath_path abpath_exit_reparent_path = {
	ABPATH_PATH_OF(exit_reparent),
	.counters	= exit_reparent_counters,
	.nr_counters	= ARRAY_SIZE(exit_reparent_counters),
	.checked	= true,
};

/*
 * The 2.5.31 scan.  Children are thread-group leaders (CLONE_THREAD tasks
 * never join a children list), so it counts leaders whose real parent is
 * @father.  With @miss_one it deliberately misses one (debugfs inject).
 * Caller holds tasklist_lock, for read at least.
 */
static unsigned long exit_reparent_scan(struct task_struct *father,
					bool miss_one, unsigned long *scanned)
{
	unsigned long found = 0;
	struct task_struct *g, *t;

	for_each_process_thread(g, t) {
		(*scanned)++;
		if (rcu_access_pointer(t->real_parent) != father ||
		    !thread_group_leader(t))
			continue;
		if (miss_one) {
			miss_one = false;
			continue;
		}
		found++;
	}
	return found;
}

/*
 * Whether @found children are exactly father->children: the same count,
 * and every listed child names @father as its real parent.  Caller holds
 * tasklist_lock, the same hold as the scan's.
 */
static bool exit_reparent_check(struct task_struct *father,
				unsigned long found)
{
	unsigned long listed = 0;
	struct task_struct *t;

	list_for_each_entry(t, &father->children, sibling) {
		if (rcu_access_pointer(t->real_parent) != father)
			return false;
		listed++;
	}
	return listed == found;
}

static void exit_reparent_legacy(struct abpath_path *p,
				 struct task_struct *father)
{
	unsigned long scanned = 0, found;
	bool inject, ok;

	read_lock(&tasklist_lock);
	/* Only an exit with a child can miss one. */
	inject = !list_empty(&father->children) && abpath_inject_take(p);
	found = exit_reparent_scan(father, inject, &scanned);
	ok = exit_reparent_check(father, found);
	read_unlock(&tasklist_lock);

	abpath_add(p, ABPATH_LEGACY, EXIT_TASKS_SCANNED, scanned);
	abpath_add(p, ABPATH_LEGACY, EXIT_CHILDREN_FOUND, found);
	if (!ok)
		abpath_add(p, ABPATH_LEGACY, ABPATH_MISMATCHES, 1);
}

/*
 * Process context, preemptible until the scan takes tasklist_lock: a call
 * that was switched out is recorded but not judged by the watchdog.
 */
void abpath_exit_reparent_hook(struct task_struct *father)
{
	struct abpath_path *p = &abpath_exit_reparent_path;
	unsigned long state = abpath_state_now(p);
	enum abpath_mode mode = abpath_state_mode(state);
	unsigned long switches = abpath_switches();
	u64 t0 = abpath_start(p, mode), ns;

	if (mode == ABPATH_LEGACY)
		exit_reparent_legacy(p, father);
	if (!t0)
		return;
	ns = abpath_record(p, mode, t0);
	if (mode == ABPATH_LEGACY && abpath_switches() == switches)
		abpath_watchdog_check(p, state, ns);
}
