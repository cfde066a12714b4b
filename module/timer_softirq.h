/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timer_softirq, as the backends call it: in the tick, after the stock
 * code's raise or not; true asks the backend to raise TIMER_SOFTIRQ.
 */
#ifndef _ABPATH_TIMER_SOFTIRQ_H
#define _ABPATH_TIMER_SOFTIRQ_H

#include "abpath.h"

bool abpath_timer_softirq_hook(void);

#endif /* _ABPATH_TIMER_SOFTIRQ_H */
