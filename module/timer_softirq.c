// SPDX-License-Identifier: GPL-2.0
/*
 * timer_softirq: whether the tick raises TIMER_SOFTIRQ.
 *
 * Optimized is the stock run_local_timers(), which raises it only when a
 * timer base's next_expiry has passed (or timer migration needs this CPU),
 * since v5.9.  Legacy raises it on every tick, as mainline did until then
 * (the history: docs/design.md, "The four paths").  The softirq then runs
 * and finds nothing due.  A spurious raise is always safe, so legacy
 * changes cost, never which timers fire when; the path has no answer to
 * cross-check.
 *
 * Context: the tick's hardirq, right after run_local_timers(); the pending
 * bit tells whether the stock code raised the softirq on this tick (or it
 * was already pending, in which case it runs anyway), in whichever mask
 * this kernel raises it (abpath_timer_softirq_pending(), compat.h).
 */
#include <linux/interrupt.h>

#include "abpath.h"
#include "mode.h"
#include "stats.h"
#include "timer_softirq.h"
#include "watchdog.h"

enum {
	SOFTIRQ_TICKS = ABPATH_NR_COMMON,
	SOFTIRQ_RAISED,
	SOFTIRQ_SUPPRESSED,
};

static const char *const timer_softirq_counters[] = {
	"ticks",	/* every tick that reached the hook */
	"raised",	/* ticks that leave TIMER_SOFTIRQ raised */
	"suppressed",	/* ticks on which the stock code did not raise it */
};

struct abpath_path abpath_timer_softirq_path = {
	ABPATH_PATH_OF(timer_softirq),
	.counters	= timer_softirq_counters,
	.nr_counters	= ARRAY_SIZE(timer_softirq_counters),
};

bool abpath_timer_softirq_hook(void)
{
	struct abpath_path *p = &abpath_timer_softirq_path;
	unsigned long state = abpath_state_now(p);
	enum abpath_mode mode = abpath_state_mode(state);
	u64 t0 = abpath_start(p, mode);
	bool stock_raised;

	stock_raised = abpath_timer_softirq_pending();
	abpath_add(p, mode, SOFTIRQ_TICKS, 1);
	if (!stock_raised)
		abpath_add(p, mode, SOFTIRQ_SUPPRESSED, 1);
	if (stock_raised || mode == ABPATH_LEGACY)
		abpath_add(p, mode, SOFTIRQ_RAISED, 1);
	abpath_finish(p, state, t0);

	return mode == ABPATH_LEGACY && !stock_raised;
}
