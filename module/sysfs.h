/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/abpath/ (sysfs.c): the modes, for the user to read and set. */
#ifndef _ABPATH_SYSFS_H
#define _ABPATH_SYSFS_H

int abpath_sysfs_init(void);
void abpath_sysfs_exit(void);

#endif /* _ABPATH_SYSFS_H */
