// SPDX-License-Identifier: GPL-2.0
/*
 * The watchdog: a legacy algorithm reproduces a historical cost, and on a
 * big enough machine (or thread group, or task list) that cost can keep a
 * CPU in hardirq or under tasklist_lock for too long.  When one legacy call
 * takes longer than its path's budget, the path goes back to optimized.
 *
 * The overrun is seen where the call ran, often in hardirq with IRQs off,
 * but modes change only under abpath_mode_lock, a mutex: the hook only
 * queues a work item, which reverts from process context.  Until it runs,
 * the calls of the setting that tripped run optimized (abpath_state_now()):
 * a CPU whose every tick overruns may reach process context only seconds
 * later.  The revert
 * applies to the setting the slow call ran under (its mode and epoch), so
 * a mode the user chose in between is never undone.  One pending bit per
 * path makes a burst of slow calls queue one revert and log one line.
 *
 * It sees the timed calls only, one in 2^sample_shift of a path's (every
 * call, unless paths.h gives the path a sample shift), so a path that is
 * over budget on every call is caught within that many calls.  A process-context call
 * (group_cputime, exit_reparent) that was switched out part way is not
 * judged (see abpath_switches()).
 *
 * It sits above the stats, which do not know of it: a path's callback,
 * or abpath_account() for it, hands it a timed legacy call's duration.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/workqueue.h>

#include "abpath.h"
#include "mode.h"
#include "params.h"
#include "stats.h"
#include "watchdog.h"

/*
 * 10 ms: two and a half ticks at HZ=250.  A legacy tick may cost a tick's
 * worth or more (that is the effect being measured), but not so much that
 * the CPU loses more than two ticks in a row; and it stays far below the
 * soft-lockup and RCU-stall thresholds, which are seconds.  0 turns the
 * watchdog off for a path.
 */
static unsigned int watchdog_us[ABPATH_NR_PATHS] = {
	[0 ... ABPATH_NR_PATHS - 1] = 10000,
};

static struct abpath_param_paths watchdog_param = {
	.val	= watchdog_us,
	.max	= UINT_MAX,
};
module_param_cb(watchdog_us, &abpath_param_paths_ops, &watchdog_param, 0644);
MODULE_PARM_DESC(watchdog_us,
		 "per-path budget of one legacy call in microseconds, "
		 ABPATH_PARAM_ORDER " (0: no limit)");

static void abpath_watchdog_work(struct work_struct *work)
{
	struct abpath_path *p = container_of(work, struct abpath_path,
					     watchdog_work);

	if (abpath_revert_mode(p, READ_ONCE(p->watchdog_state))) {
		abpath_add(p, ABPATH_LEGACY, ABPATH_WATCHDOG_REVERTS, 1);
		pr_warn("%s: a legacy call took %llu us, over the %u us budget; switched back to optimized\n",
			p->name, READ_ONCE(p->watchdog_ns) / NSEC_PER_USEC,
			READ_ONCE(watchdog_us[p->id]));
	}
	clear_bit(0, &p->watchdog_pending);
}

/* Any context; called with the duration of a legacy call and its state. */
void abpath_watchdog_check(struct abpath_path *p, unsigned long state, u64 ns)
{
	u64 budget = (u64)READ_ONCE(watchdog_us[p->id]) * NSEC_PER_USEC;

	if (!budget || ns <= budget)
		return;
	if (test_and_set_bit(0, &p->watchdog_pending))
		return;
	WRITE_ONCE(p->watchdog_state, state);
	WRITE_ONCE(p->watchdog_ns, ns);
	schedule_work(&p->watchdog_work);
}

/* A timed call's end: recorded, and judged if it ran legacy. */
void abpath_account(struct abpath_path *p, unsigned long state, u64 t0)
{
	enum abpath_mode mode = abpath_state_mode(state);
	u64 ns = abpath_record(p, mode, t0);

	if (mode == ABPATH_LEGACY)
		abpath_watchdog_check(p, state, ns);
}

void abpath_watchdog_init(void)
{
	struct abpath_path *p;

	abpath_for_each_path(p)
		INIT_WORK(&p->watchdog_work, abpath_watchdog_work);
}

/* After the backend has detached: no callback can queue a revert any more. */
void abpath_watchdog_exit(void)
{
	struct abpath_path *p;

	abpath_for_each_path(p)
		cancel_work_sync(&p->watchdog_work);
}
