/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Judging a timed legacy call against its path's budget (watchdog.c).  A
 * call is recorded by stats and judged here; a revert goes through mode.c,
 * the only code that changes a mode.
 */
#ifndef _ABPATH_WATCHDOG_H
#define _ABPATH_WATCHDOG_H

#include <linux/sched.h>

#include "abpath.h"

void abpath_watchdog_init(void);
void abpath_watchdog_exit(void);
void abpath_watchdog_check(struct abpath_path *p, unsigned long state, u64 ns);
void abpath_account(struct abpath_path *p, unsigned long state, u64 t0);

/*
 * Context switches of current so far.  A process-context call that was
 * switched out part way is recorded, since that is the latency its caller
 * saw, but not judged by the watchdog: time spent off the CPU is not the
 * legacy algorithm's cost, and on a busy machine it alone would revert it.
 */
static __always_inline unsigned long abpath_switches(void)
{
	return READ_ONCE(current->nvcsw) + READ_ONCE(current->nivcsw);
}

/*
 * The end of a call that abpath_start() began, in a context that cannot
 * switch: a timed call is recorded, and judged if it ran legacy.
 */
static __always_inline void abpath_finish(struct abpath_path *p,
					  unsigned long state, u64 t0)
{
	if (t0)
		abpath_account(p, state, t0);
}

#endif /* _ABPATH_WATCHDOG_H */
