/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's sysfs and debugfs files, the kernel's hook file, kallsyms
 * and config, and the diagnosis of why one of them is missing.
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
	DEBUGFS_NO_ACCESS,	/* /sys/kernel/debug is 0700 root */
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

extern const char *const ctl_builtin_paths[];
extern const int ctl_nr_builtin_paths;

/* Roots, overridable by ABPATH_SYSFS, ABPATH_DEBUGFS and ABPATH_PROC. */
const char *ctl_sysfs(void);
const char *ctl_debugfs(void);
const char *ctl_proc(void);
/* The directory debugfs is mounted on: the parent of ctl_debugfs(). */
const char *ctl_debugfs_mount(void);

/* snprintf(dst, len, "%s", src) without the truncation warning. */
void ctl_copy(char *dst, size_t len, const char *src);

/* Both return 0 or -errno.  Reads strip one trailing newline. */
int ctl_read(const char *file, char *buf, size_t len);
int ctl_write(const char *file, const char *val);
/*
 * A file under the sysfs that holds ctl_sysfs() (/sys, or a fake tree's
 * sys/): ctl_sys_read("module/abpath/parameters/mode", ...).
 */
int ctl_sys_read(const char *rel, char *buf, size_t len);
/* Its name: "<sysfs>/<rel>". */
void ctl_sys_path(char *file, size_t len, const char *rel);
/* A module parameter, from sysfs beside ctl_sysfs() (/sys/module/abpath). */
int ctl_param(const char *name, char *buf, size_t len);

bool ctl_module_present(void);		/* the sysfs root exists */
void ctl_path_names(struct ctl_paths *p);
bool ctl_valid_path(const struct ctl_paths *p, const char *name);
bool ctl_valid_mode(const char *mode);

/* Active mode of one path ("legacy [optimized]" -> "optimized"). */
int ctl_path_mode(const char *path, char *mode, size_t len);
int ctl_path_site(const char *path, char *site, size_t len);
/*
 * The module's mode files: @path's, or the module's own for "all".
 * Returns 0 or -errno; -EPROTO when @path took the write but reads
 * another mode (the module did not switch).  The explanation of a
 * failure is ctl_explain_set()'s.
 */
int ctl_set_mode(const char *path, const char *mode);
/* The module's own files; each returns 0 or -errno. */
int ctl_module_version(char *buf, size_t len);
int ctl_backend(char *buf, size_t len);		/* "patched" or "stock" */
int ctl_module_mode(char *buf, size_t len);	/* every path's, or "mixed" */
int ctl_reset(void);				/* zero every counter */
/*
 * The counters file (debugfs), for reading: its name in @name, for a
 * message about its content.  NULL with errno set on failure.
 */
FILE *ctl_open_counters(char *name, size_t len);
/* Each loaded module parameter, in name order; 0 or -errno (not loaded). */
typedef void ctl_param_fn(const char *name, const char *val, void *ctx);
int ctl_params(ctl_param_fn *fn, void *ctx);
/* The kernel lists the module in sysfs (loaded, or coming, or going). */
bool ctl_module_listed(void);

/* The machine, for a result's provenance; each returns 0 or -errno. */
int ctl_cpu_model(char *buf, size_t len);	/* the first "model name" */
int ctl_cpufreq_governor(long cpu, char *buf, size_t len);
int ctl_clocksource(char *buf, size_t len);

int ctl_read_hooks(struct ctl_hooks *h);
void ctl_kernel_probe(struct ctl_kernel *k);
/*
 * Whether k can take neither backend, after an "abpath: error:" line that
 * starts with prefix and says what the kernel lacks.
 */
bool ctl_takes_neither(const struct ctl_kernel *k, const char *prefix);
enum debugfs_state ctl_debugfs_state(void);

/*
 * Print the "abpath: error:" line explaining why file could not be used
 * (err is -errno), with the fix.  Always returns 1, the exit code.
 */
int ctl_explain(const char *file, int err, bool needs_debugfs);
int ctl_explain_not_loaded(void);
/*
 * Why ctl_set_mode(@path, @mode) failed with @err; @mode NULL: why
 * reading @path's mode (ctl_path_mode()) did.  Returns 1.
 */
int ctl_explain_set(const char *path, const char *mode, int err);
int ctl_explain_reset(int err);
int ctl_explain_counters(int err);
/*
 * A mode write refused with EOPNOTSUPP: the path's site says why (the
 * stock backend could not attach its legacy arm).  @path may be "all".
 * Every command that writes a mode explains it here.  Returns 1.
 */
int ctl_explain_unsupported(const char *path, const char *mode);

#endif
