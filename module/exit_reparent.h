/* SPDX-License-Identifier: GPL-2.0 */
/* exit_reparent, as the backends call it: at the start of an exit. */
#ifndef _ABPATH_EXIT_REPARENT_H
#define _ABPATH_EXIT_REPARENT_H

#include "abpath.h"

void abpath_exit_reparent_hook(struct task_struct *father);

#endif /* _ABPATH_EXIT_REPARENT_H */
