/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The door to the kernel: everything the CLI reads or writes there, named
 * by what it holds, and the diagnosis of why one of them is missing.
 * Behind it, control.c has the module's own files and kernel.c what the
 * kernel and the machine say; only those two spell a file of sysfs,
 * procfs or debugfs, and their roots are static to them.
 */
#ifndef ABPATH_CONTROL_H
#define ABPATH_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The Makefile sets both (-D); these let a file build on its own. */
#ifndef ABPATH_VERSION
#define ABPATH_VERSION "0.0.0"
#endif
#ifndef ABPATH_WORKLOAD_DIR
#define ABPATH_WORKLOAD_DIR "/usr/local/libexec/abpath"
#endif

#define CTL_NAME_MAX	64
#define CTL_MAX_PATHS	32

enum tri { TRI_UNKNOWN = -1, TRI_NO = 0, TRI_YES = 1 };

enum debugfs_state {
	DEBUGFS_MOUNTED,
	DEBUGFS_NOT_MOUNTED,
	DEBUGFS_NO_ACCESS,	/* debugfs is 0700 root */
};

struct ctl_paths {
	int n;
	char name[CTL_MAX_PATHS][CTL_NAME_MAX];
};

/* Where a user finds the hook patch for a kernel, named in every hint. */
#define CTL_HOOK_PATCHES \
	"patches/linux-6.12, patches/linux-6.1 or patches/linux-7.3"
/* What an unpatched kernel needs for the stock backend. */
#define CTL_STOCK_NEEDS \
	"CONFIG_LIVEPATCH, CONFIG_DYNAMIC_FTRACE_WITH_ARGS and " \
	"CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"

/* What the kernel (not the module) says about either backend. */
struct ctl_kernel {
	char release[128];
	char version[256];		/* uname -v: the exact build */
	char config_source[256];	/* file it came from, "" if none */
	/* The patched backend: the hook patch. */
	enum tri config;		/* CONFIG_ABPATH_HOOKS=y */
	enum tri kallsyms;		/* abpath_register in kallsyms */
	bool hooks_file;		/* debugfs abpath_hooks exists */
	enum debugfs_state debugfs;
	enum tri hooks;			/* conclusion from all of the above */
	/* The stock backend: CTL_STOCK_NEEDS, one by one, and all. */
	enum tri livepatch, ftrace_args, ftrace_direct;
	enum tri stock;
	enum tri ftrace_enabled;	/* sysctl kernel.ftrace_enabled */
	/* Whether an unsigned or unknown-key module loads. */
	enum tri sig_enforce;		/* module.sig_enforce */
	char lockdown[32];		/* none, integrity, ...; "" unknown */
	enum tri secure_boot;		/* EFI SecureBoot variable */
};

/* Parsed debugfs abpath_hooks: "registered 0|1" then "<path> 0|1". */
struct ctl_hooks {
	bool registered;
	int n;
	char name[CTL_MAX_PATHS][CTL_NAME_MAX];
	bool key[CTL_MAX_PATHS];
};

/* snprintf(dst, len, "%s", src) without the truncation warning. */
void ctl_copy(char *dst, size_t len, const char *src);
/* Returns 0 or -errno; strips one trailing newline. */
int ctl_read(const char *file, char *buf, size_t len);

/* ---- the module's files (control.c) ------------------------------------ */

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

/* ---- the kernel and the machine (kernel.c) ----------------------------- */

void ctl_kernel_probe(struct ctl_kernel *k);
int ctl_read_hooks(struct ctl_hooks *h);
enum debugfs_state ctl_debugfs_state(void);
/*
 * Whether k can take neither backend, after an "abpath: error:" line that
 * starts with prefix and says what the kernel lacks.
 */
bool ctl_takes_neither(const struct ctl_kernel *k, const char *prefix);
/* Whether debugfs cannot be read, after the error line that says why. */
bool ctl_explain_debugfs(void);
/* The warning that debugfs, and so the hook state, is root's only. */
void ctl_warn_hooks_unknown(void);

/* A module parameter; each of them, in name order (0 or -errno). */
int ctl_param(const char *name, char *buf, size_t len);
typedef void ctl_param_fn(const char *name, const char *val, void *ctx);
int ctl_params(ctl_param_fn *fn, void *ctx);
/* The kernel lists the module (loaded, or coming, or going). */
bool ctl_module_listed(void);

/* The machine, for a result's provenance; each returns 0 or -errno. */
int ctl_cpu_model(char *buf, size_t len);	/* the first "model name" */
int ctl_cpufreq_governor(long cpu, char *buf, size_t len);
int ctl_clocksource(char *buf, size_t len);

#endif
