/* SPDX-License-Identifier: GPL-2.0 */
/* Module state, load and unload through libkmod (never modprobe(8)). */
#ifndef ABPATH_KMOD_H
#define ABPATH_KMOD_H

#include <stdbool.h>

#define ABPATH_MODULE "abpath"

struct km_info {
	const char *state;	/* live, coming, going, builtin, absent, unknown */
	bool loaded;		/* live, coming or builtin */
	int refcnt;		/* -1 when not loaded or unreadable */
	char holders[256];	/* modules using it, comma-separated */
};

/* Fills *info; returns 0, or -errno if libkmod could not be set up. */
int km_info(struct km_info *info);

/*
 * The commands proper: they print the "abpath: error:" line themselves
 * and return the exit code.  mode may be NULL for the module default.
 */
int km_load(const char *mode);
int km_unload(void);

#endif
