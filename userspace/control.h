/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The door to the kernel: everything the CLI reads or writes there, named
 * by what it holds, and the diagnosis of why one of them is missing.
 * control.c has the module's own files, over kernel.c (kernel.h), what
 * the kernel and the machine say; only those two spell a file of sysfs,
 * procfs or debugfs, and their roots are static to them.
 */
#ifndef ABPATH_CONTROL_H
#define ABPATH_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kernel.h"

/* The Makefile sets both (-D); these let a file build on its own. */
#ifndef ABPATH_VERSION
#define ABPATH_VERSION "0.0.0"
#endif
#ifndef ABPATH_WORKLOAD_DIR
#define ABPATH_WORKLOAD_DIR "/usr/local/libexec/abpath"
#endif

struct ctl_paths {
	int n;
	char name[CTL_MAX_PATHS][CTL_NAME_MAX];
};

bool ctl_module_present(void);		/* its sysfs directory exists */
/*
 * The paths: the loaded module's, in module/paths.h's order, then any
 * paths.h does not have by name (true); without the module, paths.h's as
 * this abpath was built (false).
 */
bool ctl_path_names(struct ctl_paths *p);
bool ctl_valid_path(const struct ctl_paths *p, const char *name);
bool ctl_valid_mode(const char *mode);

/* Active mode of one path ("legacy [optimized]" -> "optimized"). */
int ctl_path_mode(const char *path, char *mode, size_t len);
/* Where the backend attached @path, or "unavailable: why". */
int ctl_path_site(const char *path, char *site, size_t len);
/*
 * The one mode write: @path's mode, or every path's for "all".  Returns 0
 * or -errno; -EPROTO when @path took the write but reads another mode (the
 * module did not switch).  ctl_explain_set() says why it failed.
 */
int ctl_set_mode(const char *path, const char *mode);
/* The module's own files; each returns 0 or -errno. */
int ctl_module_version(char *buf, size_t len);
int ctl_backend(char *buf, size_t len);		/* "patched" or "stock" */
/* "exports", "livepatch" or "kallsyms": how it reaches the kernel's symbols */
int ctl_resolution_loaded(char *buf, size_t len);
int ctl_module_mode(char *buf, size_t len);	/* every path's, or "mixed" */
int ctl_reset(void);				/* zero every counter */
/*
 * The counters file (debugfs), opened for reading, and its name in @name
 * for a message about its content; NULL with errno set on failure.
 */
FILE *ctl_open_counters(char *name, size_t len);

/*
 * Each prints the "abpath: error:" line that says why, with the fix, and
 * returns 1, the exit code.
 */
int ctl_explain_not_loaded(void);
/*
 * Why ctl_set_mode(@path, @mode) failed with @err; @mode NULL: why
 * reading @path's mode (ctl_path_mode()) did.  EOPNOTSUPP: the path's
 * site says why it cannot run @mode; with "all", the first path's that
 * cannot.
 */
int ctl_explain_set(const char *path, const char *mode, int err);
int ctl_explain_reset(int err);
int ctl_explain_counters(int err);

#endif
