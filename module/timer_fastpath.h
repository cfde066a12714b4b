/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timer_fastpath, as the backends call it and name its site: the per-thread
 * shares of the 2.6.27 tick.  Its slow path runs in the tick, as 2.6.27's
 * did, except on PREEMPT_RT, where the locks it takes sleep and it runs in
 * the CPU timer task work: a variant, named so in the path's site wherever
 * a result is reported.
 */
#ifndef _ABPATH_TIMER_FASTPATH_H
#define _ABPATH_TIMER_FASTPATH_H

#include "abpath.h"

#ifdef CONFIG_PREEMPT_RT
#define ABPATH_TF_SLOW_IN_TICK	false
#define ABPATH_TF_SLOW_SITE \
	"slow path in CPU timer task work (PREEMPT_RT variant; 2.6.27 ran it in the tick)"
#else
#define ABPATH_TF_SLOW_IN_TICK	true
#define ABPATH_TF_SLOW_SITE	"slow path in the tick, hardirq (2.6.27)"
#endif

bool abpath_timer_fastpath_hook(struct task_struct *tsk,
				abpath_timer_check_fn stock);
void abpath_timer_slowpath_hook(struct task_struct *tsk);

#endif /* _ABPATH_TIMER_FASTPATH_H */
