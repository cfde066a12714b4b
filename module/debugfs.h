/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/debug/abpath/ (debugfs.c): the module works without it. */
#ifndef _ABPATH_DEBUGFS_H
#define _ABPATH_DEBUGFS_H

void abpath_debugfs_init(void);
void abpath_debugfs_exit(void);

#endif /* _ABPATH_DEBUGFS_H */
