/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel and the machine say (kernel.c): the kernel's
 * config, kallsyms and hook patch, what lets a module load, the module's
 * parameters and its entry in the kernel's list of modules, the machine a
 * result was measured on.  The lower room of the door (control.h), which
 * includes it: only kernel.c and control.c spell a file of sysfs, procfs
 * or debugfs.
 */
#ifndef ABPATH_KERNEL_H
#define ABPATH_KERNEL_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_NAME_MAX	64
#define CTL_MAX_PATHS	32

enum tri { TRI_UNKNOWN = -1, TRI_NO = 0, TRI_YES = 1 };

enum debugfs_state {
	DEBUGFS_MOUNTED,
	DEBUGFS_NOT_MOUNTED,
	DEBUGFS_NO_ACCESS,	/* debugfs is 0700 root */
};

/* Where a user finds the hook patch for a kernel, named in every hint. */
#define CTL_HOOK_PATCHES \
	"patches/linux-6.12, patches/linux-6.1 or patches/linux-7.3"
/* Room for module/requires.h's entries of either kind. */
#define CTL_MAX_REQUIRES	16

/*
 * One entry of module/requires.h; backend is NULL for a refusal, and
 * resolution names the stock resolution an ABPATH_RESOLVE() line is of.
 */
struct ctl_require {
	const char *backend, *option, *why, *resolution;
};
extern const struct ctl_require ctl_requires[], ctl_refuses[];
extern const int ctl_n_requires, ctl_n_refuses;

/* A kernel config, as one file states it. */
struct ctl_config {
	char source[256];	/* the file */
	char version[128];	/* its "# Linux/x86 V Kernel Configuration" */
	/*
	 * It states every option: an absent one is not set.  Not so for an
	 * input config (Fedora's dist-git) or an excerpt.
	 */
	bool complete;
	char *text;
	size_t len;
};

/* What the kernel (not the module) says about either backend. */
struct ctl_kernel {
	char release[128];
	char version[256];		/* uname -v: the exact build */
	char config_source[256];	/* file it came from, "" if none */
	int config_err;			/* why there is none: -errno */
	/* The patched backend: the hook patch. */
	/* module/requires.h's options, in its order, as the config says. */
	enum tri need[CTL_MAX_REQUIRES], refuse[CTL_MAX_REQUIRES];
	enum tri config;		/* the patched backend's options */
	enum tri kallsyms;		/* abpath_register in kallsyms */
	bool hooks_file;		/* debugfs abpath_hooks exists */
	enum debugfs_state debugfs;
	enum tri hooks;			/* conclusion from all of the above */
	/* The stock backend: all its options. */
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
/*
 * Whether @s can be the module's name of a path, mode or counter: printable
 * ASCII, no blank.  Any other byte is a file of something else, and
 * would be no key of the output's JSON (not UTF-8).
 */
bool ctl_is_name(const char *s);
/* Returns 0 or -errno; strips one trailing newline. */
int ctl_read(const char *file, char *buf, size_t len);

void ctl_kernel_probe(struct ctl_kernel *k);
/*
 * Reads a config: @file, or NULL for the running kernel's (procfs's
 * config.gz, else /boot's).  0, -errno, or -EINVAL for a file that is
 * not a kernel config.  ctl_config_free() releases it.
 */
int ctl_config_read(struct ctl_config *c, const char *file);
/* y or m: yes; "is not set", or absent from a complete config: no. */
enum tri ctl_config_get(const struct ctl_config *c, const char *opt);
void ctl_config_free(struct ctl_config *c);
/*
 * Whether a backend's options, need[] in ctl_requires' order, are met:
 * for the stock backend, its own and its resolution's (below).
 */
enum tri ctl_requires_met(const enum tri *need, const char *backend);
/*
 * The stock backend's resolution, as Kbuild picks it, when all its
 * options are met, else NULL.  The one judged is the first met, else the
 * first whose architecture is set, else the first whose architecture
 * is not ruled out; ctl_require_counts() says whether ctl_requires[i]
 * is one of its options, or no resolution's.
 */
const char *ctl_resolution(const enum tri *need);
bool ctl_require_counts(const enum tri *need, int i);
/*
 * Marks which of syms[0..n) kallsyms, or ftrace's list of the functions
 * it can trace, names; 0, or -errno when the file cannot be read.
 */
int ctl_kallsyms_find(const char *const *syms, int n, enum tri *found);
int ctl_traceable(const char *const *syms, int n, enum tri *found);
/* Whether /lib/modules/<release>/build, the headers DKMS builds with, is. */
enum tri ctl_kernel_headers(const char *release);
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
/*
 * The CPUs' "microcode" revisions, each once, comma-separated in the
 * order the CPUs list them ("0x5003604"); "" when cpuinfo has none (an
 * arm64 machine, some VMs).
 */
int ctl_cpu_microcode(char *buf, size_t len);
int ctl_cpufreq_governor(long cpu, char *buf, size_t len);
int ctl_clocksource(char *buf, size_t len);
/* This boot's random id, as the kernel gives it (kernel.c). */
int ctl_boot_id(char *buf, size_t len);
/*
 * Whether FILE is one of the kernel's names for a file already open
 * (standard output, a descriptor's name in devfs or procfs): written in place, never
 * replaced (atomic.c).
 */
bool ctl_names_open_file(const char *file);

#endif
