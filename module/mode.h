/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A path's mode word, as every call reads it, and the changes mode.c makes
 * to it.
 *
 * Mode and epoch in one word, so that a call reads both at once: the
 * watchdog reverts the setting a slow call ran under, and a change of mode
 * bumps the epoch.  The hook callbacks read it once per call, in any
 * context (hardirq, IRQs off, or process context that must not sleep); it
 * costs a call one load, in both modes alike.
 */
#ifndef _ABPATH_MODE_H
#define _ABPATH_MODE_H

#include <linux/compiler.h>

#include "abpath.h"

/* Bit 0 of a path's state word is its mode; the bits above, its epoch. */
#define ABPATH_STATE_MODE	1UL
#define ABPATH_STATE_EPOCH	2UL

/*
 * A revert the watchdog has queued counts from the call that tripped it:
 * while the work is pending and the word is still the setting that
 * tripped, calls run optimized.  The work itself runs in process context,
 * which a CPU whose every tick overruns may not reach for seconds (8000
 * threads under a 1 ms ITIMER_PROF on 8 vCPUs: 12 s, and an RCU stall).
 * The second load is paid in both modes alike.
 */
static __always_inline unsigned long
abpath_state_now(const struct abpath_path *p)
{
	unsigned long state = READ_ONCE(p->state);

	if (unlikely(READ_ONCE(p->watchdog_pending)) &&
	    state == READ_ONCE(p->watchdog_state))
		state &= ~ABPATH_STATE_MODE;	/* ABPATH_OPTIMIZED */
	return state;
}

static __always_inline enum abpath_mode abpath_state_mode(unsigned long state)
{
	return state & ABPATH_STATE_MODE;
}

static __always_inline enum abpath_mode
abpath_mode_now(const struct abpath_path *p)
{
	return abpath_state_mode(abpath_state_now(p));
}

/* mode.c: the only code that writes a state word, under abpath_mode_lock. */
extern const char *const abpath_mode_names[ABPATH_NR_MODES];

int abpath_set_mode(struct abpath_path *p, enum abpath_mode mode);
int abpath_set_all_modes(enum abpath_mode mode);
bool abpath_revert_mode(struct abpath_path *p, unsigned long state);

#endif /* _ABPATH_MODE_H */
