/* SPDX-License-Identifier: GPL-2.0 */
/*
 * group_cputime, as the backends call it: the hook patch's callback, or the
 * stock backend's claim in its trampoline and the call it then diverts.
 */
#ifndef _ABPATH_GROUP_CPUTIME_H
#define _ABPATH_GROUP_CPUTIME_H

#include "abpath.h"
#include "mode.h"
#include "stats.h"

bool abpath_group_cputime_hook(struct task_struct *tsk,
			       struct task_cputime *times,
			       abpath_group_cputime_fn stock);

/*
 * Counts the call and chooses what runs.  false leaves it to the stock
 * pass, untimed; true gives the mode and whether the call is timed (every
 * legacy call runs in the module, an optimized one only when timed).
 * Inline: the stock backend runs it from a trampoline on every times(),
 * and a call here would cost a stack frame there.
 */
static __always_inline bool abpath_group_cputime_claim(unsigned long state,
						       enum abpath_mode *mode,
						       bool *timed)
{
	struct abpath_path *p = &abpath_group_cputime_path;

	/* The mode first: each arm's count then has a constant address. */
	*mode = abpath_state_mode(state);
	if (*mode == ABPATH_LEGACY) {
		*timed = abpath_count(p, ABPATH_LEGACY, ABPATH_ID(group_cputime));
		return true;
	}
	*timed = abpath_count(p, ABPATH_OPTIMIZED, ABPATH_ID(group_cputime));
	return *timed;
}

/* A call a backend has already counted and chosen with the claim above. */
void abpath_group_cputime_claimed(enum abpath_mode mode, bool timed,
				  struct task_struct *tsk,
				  struct task_cputime *times,
				  abpath_group_cputime_fn stock);

#endif /* _ABPATH_GROUP_CPUTIME_H */
