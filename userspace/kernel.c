// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel and the machine say: the door's lower room,
 * under control.c, which it never calls.  Only this file and control.c
 * spell a file of sysfs, procfs or debugfs; the roots below are static,
 * so that the compiler keeps it so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "kernel.h"
#include "output.h"

/* The door's helpers, control.c's and counters.c's too. */
void ctl_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

bool ctl_is_name(const char *s)
{
	for (; *s; s++)
		if (*s < '!' || *s > '~')
			return false;
	return true;
}

int ctl_read(const char *file, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int fd, err = 0;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	if (got && buf[got - 1] == '\n')
		buf[got - 1] = '\0';
	return err;
}

/*
 * The host tests move each tree with one variable (ABPATH_SYSFS,
 * ABPATH_DEBUGFS, ABPATH_PROC); control.c reads the first two as the
 * module's directories, and the kernel's roots derive from them.
 */
static const char *ctl_proc(void)
{
	const char *v = getenv("ABPATH_PROC");

	return v && *v ? v : "/proc";
}

/* The sysfs that holds the module's: <sys>/kernel/abpath, two levels up. */
static const char *sys_root(void)
{
	/* Half of a file name's 4096: a file under it still fits. */
	static char buf[2048];
	const char *v = getenv("ABPATH_SYSFS");
	size_t n;

	if (!v || !*v)
		return "/sys";
	n = strlen(v);
	for (int up = 0; up < 2 && n; up++)
		while (n && v[--n] != '/')
			;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, v);
	return buf;
}

/*
 * The debugfs that holds the module's directory, its parent: abpath_hooks
 * sits at its root.
 */
static const char *debugfs_root(void)
{
	static char buf[4096];
	const char *v = getenv("ABPATH_DEBUGFS");
	char *slash;

	if (!v || !*v)
		return "/sys/kernel/debug";
	ctl_copy(buf, sizeof(buf), v);
	while ((slash = strrchr(buf, '/')) && slash[1] == '\0' && slash != buf)
		*slash = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		snprintf(buf, sizeof(buf), ".");
	else if (slash == buf)
		slash[1] = '\0';
	else
		*slash = '\0';
	return buf;
}

/* A file of the sysfs: ctl_sys_path(file, len, "module/abpath"). */
static void ctl_sys_path(char *file, size_t len, const char *rel)
{
	snprintf(file, len, "%s/%s", sys_root(), rel);
}

static int ctl_sys_read(const char *rel, char *buf, size_t len)
{
	char file[4096];

	ctl_sys_path(file, sizeof(file), rel);
	return ctl_read(file, buf, len);
}

int ctl_read_hooks(struct ctl_hooks *h)
{
	char file[4096], line[256], name[CTL_NAME_MAX];
	int val;
	FILE *f;

	memset(h, 0, sizeof(*h));
	snprintf(file, sizeof(file), "%s/abpath_hooks", debugfs_root());
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %d", name, &val) != 2 ||
		    !ctl_is_name(name))
			continue;
		if (!strcmp(name, "registered"))
			h->registered = val != 0;
		else if (h->n < CTL_MAX_PATHS) {
			ctl_copy(h->name[h->n], CTL_NAME_MAX, name);
			h->key[h->n++] = val != 0;
		}
	}
	fclose(f);
	return 0;
}

/* module/requires.h: what each backend needs, and what refuses a load. */
const struct ctl_require ctl_requires[] = {
#define ABPATH_REQUIRE(backend, option, why) { #backend, #option, why, NULL },
#define ABPATH_RESOLVE(resolution, option, why) \
	{ "stock", #option, why, #resolution },
#include "../module/requires.h"
};
const int ctl_n_requires = sizeof(ctl_requires) / sizeof(ctl_requires[0]);
const struct ctl_require ctl_refuses[] = {
#define ABPATH_REFUSE(option, why) { NULL, #option, why, NULL },
#include "../module/requires.h"
};
const int ctl_n_refuses = sizeof(ctl_refuses) / sizeof(ctl_refuses[0]);

/* A config is a few hundred kB: a bound that no text file passes. */
#define CONFIG_MAX	(16 << 20)

/* The whole file, through zlib, which reads a plain file as it is too. */
static int config_slurp(struct ctl_config *c, const char *file)
{
	size_t cap = 1 << 16;
	gzFile gz;
	int n;

	gz = gzopen(file, "rb");
	if (!gz)
		return errno ? -errno : -ENOMEM;
	c->text = malloc(cap);
	c->len = 0;
	while (c->text) {
		if (c->len + 1 == cap) {
			char *grown = cap < CONFIG_MAX ? realloc(c->text, 2 * cap)
						       : NULL;

			if (!grown) {
				free(c->text);
				c->text = NULL;
				break;
			}
			c->text = grown;
			cap *= 2;
		}
		n = gzread(gz, c->text + c->len, (unsigned)(cap - 1 - c->len));
		if (n <= 0)
			break;
		c->len += (size_t)n;
	}
	gzclose(gz);
	if (!c->text)
		return -EFBIG;
	c->text[c->len] = '\0';
	return 0;
}

/*
 * A line of the kernel's own config writer: "CONFIG_X=" or
 * "# CONFIG_X is not set".  A text without one is not a config.
 */
static bool config_has_options(const char *text)
{
	for (const char *l = text; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (!strncmp(l, "CONFIG_", 7) || !strncmp(l, "# CONFIG_", 9))
			return true;
	}
	return false;
}

int ctl_config_read(struct ctl_config *c, const char *file)
{
	bool running = !file;
	const char *head, *end;
	struct utsname u;
	int err;

	memset(c, 0, sizeof(*c));
	if (file) {
		ctl_copy(c->source, sizeof(c->source), file);
		err = config_slurp(c, file);
	} else {
		/* The kernel's own copy first: /boot may hold another build's. */
		snprintf(c->source, sizeof(c->source), "%s/config.gz", ctl_proc());
		err = access(c->source, R_OK) ? -errno : config_slurp(c, c->source);
		if (err && uname(&u) == 0) {
			snprintf(c->source, sizeof(c->source), "/boot/config-%s",
				 u.release);
			err = config_slurp(c, c->source);
		}
	}
	if (err)
		return err;
	if (!config_has_options(c->text)) {
		ctl_config_free(c);
		return -EINVAL;
	}
	/* "# Linux/x86 6.1.76 Kernel Configuration", from olddefconfig. */
	head = strstr(c->text, "\n# Linux/");
	if (head && (head = strchr(head + 3, ' ')) &&
	    (end = strstr(head, " Kernel Configuration\n")) &&
	    end - head < (long)sizeof(c->version))
		snprintf(c->version, sizeof(c->version), "%.*s",
			 (int)(end - head - 1), head + 1);
	/*
	 * The running kernel's config is what it was built with, and one
	 * the kernel's own writer made says every option the kernel has:
	 * there an absent option is not set.  An input config (Fedora's
	 * dist-git) or an excerpt leaves the rest to Kconfig's defaults.
	 */
	c->complete = running ||
		      (strstr(c->text, "# Automatically generated file; DO NOT EDIT.\n") &&
		       !strstr(c->text, "\n# [omitted]"));
	return 0;
}

enum tri ctl_config_get(const struct ctl_config *c, const char *opt)
{
	size_t n = strlen(opt);

	if (!c->text)
		return TRI_UNKNOWN;
	for (const char *l = c->text; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (!strncmp(l, opt, n) && l[n] == '=')
			return l[n + 1] == 'y' || l[n + 1] == 'm' ? TRI_YES
								  : TRI_NO;
		if (!strncmp(l, "# ", 2) && !strncmp(l + 2, opt, n) &&
		    !strncmp(l + 2 + n, " is not set", 11))
			return TRI_NO;
	}
	return c->complete ? TRI_NO : TRI_UNKNOWN;
}

void ctl_config_free(struct ctl_config *c)
{
	free(c->text);
	c->text = NULL;
}

/* Whether ctl_requires[i] is the first line of its resolution. */
static bool resolution_first(int i)
{
	const char *r = ctl_requires[i].resolution;

	if (!r)
		return false;
	for (int j = 0; j < i; j++)
		if (ctl_requires[j].resolution &&
		    !strcmp(ctl_requires[j].resolution, r))
			return false;
	return true;
}

/* All of two requirements: one unset decides, else one unknown does. */
static enum tri tri_and(enum tri a, enum tri b)
{
	if (a == TRI_NO || b == TRI_NO)
		return TRI_NO;
	return a == TRI_UNKNOWN || b == TRI_UNKNOWN ? TRI_UNKNOWN : TRI_YES;
}

/* Every option of the resolution ctl_requires[first] begins. */
static enum tri resolution_met(const enum tri *need, int first)
{
	const char *r = ctl_requires[first].resolution;
	enum tri ret = TRI_YES;

	for (int i = first; i < ctl_n_requires; i++)
		if (ctl_requires[i].resolution &&
		    !strcmp(ctl_requires[i].resolution, r))
			ret = tri_and(ret, need[i]);
	return ret;
}

/*
 * The resolution judged (ctl_resolution()), by its first line; -1 where
 * requires.h has none.  A line's first option is its architecture.
 */
static int resolution_judged(const enum tri *need)
{
	int pass, i;

	for (pass = 0; pass < 4; pass++)
		for (i = 0; i < ctl_n_requires; i++) {
			if (!resolution_first(i))
				continue;
			if ((pass == 0 && resolution_met(need, i) == TRI_YES) ||
			    (pass == 1 && need[i] == TRI_YES) ||
			    (pass == 2 && need[i] != TRI_NO) || pass == 3)
				return i;
		}
	return -1;
}

const char *ctl_resolution(const enum tri *need)
{
	int r = resolution_judged(need);

	return r >= 0 && resolution_met(need, r) == TRI_YES ?
	       ctl_requires[r].resolution : NULL;
}

bool ctl_require_counts(const enum tri *need, int i)
{
	int r;

	if (!ctl_requires[i].resolution)
		return true;
	r = resolution_judged(need);
	return r >= 0 && !strcmp(ctl_requires[i].resolution,
				 ctl_requires[r].resolution);
}

enum tri ctl_requires_met(const enum tri *need, const char *backend)
{
	enum tri ret = TRI_YES;

	for (int i = 0; i < ctl_n_requires; i++)
		if (!strcmp(ctl_requires[i].backend, backend) &&
		    ctl_require_counts(need, i))
			ret = tri_and(ret, need[i]);
	return ret;
}

/*
 * The requirements' values for the running kernel.  No readable config
 * leaves every one unknown.
 */
static void kernel_config(struct ctl_kernel *k)
{
	struct ctl_config c;
	int i;

	k->config_err = ctl_config_read(&c, NULL);
	if (!k->config_err)
		ctl_copy(k->config_source, sizeof(k->config_source), c.source);
	for (i = 0; i < ctl_n_requires; i++)
		k->need[i] = ctl_config_get(&c, ctl_requires[i].option);
	for (i = 0; i < ctl_n_refuses; i++)
		k->refuse[i] = ctl_config_get(&c, ctl_refuses[i].option);
	ctl_config_free(&c);
	k->config = ctl_requires_met(k->need, "patched");
	k->stock = ctl_requires_met(k->need, "stock");
}

/* "1", "Y": yes; "0", "N": no; unreadable: unknown. */
static enum tri read_flag(int err, const char *buf)
{
	if (err)
		return TRI_UNKNOWN;
	return *buf == '1' || *buf == 'Y' || *buf == 'y' ? TRI_YES : TRI_NO;
}

/*
 * What decides whether a module that is unsigned, or signed by a key the
 * kernel does not know, may load; each is one small file, or unknown.
 */
static void kernel_signatures(struct ctl_kernel *k)
{
	/* EFI's global variable GUID: 4 bytes of attributes, then 0 or 1. */
	static const char sb_var[] = "firmware/efi/efivars/"
		"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
	char buf[128], file[4096], *open_br, *close_br;
	unsigned char var[5];
	ssize_t n;
	int fd;

	k->sig_enforce = read_flag(ctl_sys_read("module/module/parameters/"
						"sig_enforce", buf,
						sizeof(buf)), buf);
	/* "none [integrity] confidentiality": the bracketed one is on. */
	if (!ctl_sys_read("kernel/security/lockdown", buf, sizeof(buf)) &&
	    (open_br = strchr(buf, '[')) && (close_br = strchr(open_br, ']'))) {
		*close_br = '\0';
		ctl_copy(k->lockdown, sizeof(k->lockdown), open_br + 1);
	}
	/* A machine that did not boot through EFI has no Secure Boot. */
	ctl_sys_path(file, sizeof(file), "firmware/efi");
	if (access(file, F_OK) && errno == ENOENT) {
		k->secure_boot = TRI_NO;
		return;
	}
	k->secure_boot = TRI_UNKNOWN;
	ctl_sys_path(file, sizeof(file), sb_var);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, var, sizeof(var));
	close(fd);
	if (n == (ssize_t)sizeof(var))
		k->secure_boot = var[4] ? TRI_YES : TRI_NO;
}

/*
 * Marks each of syms[0..n) that a line's word number @word names: one
 * pass over a file of megabytes.  Returns 0, or -errno if unreadable.
 */
static int find_names(const char *file, int word, const char *const *syms,
		      int n, enum tri *found)
{
	char line[512], name[256];
	FILE *f;
	int i;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	for (i = 0; i < n; i++)
		found[i] = TRI_NO;
	while (fgets(line, sizeof(line), f)) {
		if ((word ? sscanf(line, "%*s %*s %255s", name)
			  : sscanf(line, "%255s", name)) != 1)
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(name, syms[i]))
				found[i] = TRI_YES;
	}
	fclose(f);
	return 0;
}

int ctl_kallsyms_find(const char *const *syms, int n, enum tri *found)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/kallsyms", ctl_proc());
	/* Names are visible without root even when addresses are not. */
	return find_names(file, 2, syms, n, found);
}

int ctl_traceable(const char *const *syms, int n, enum tri *found)
{
	char file[4096];
	int err;

	/* tracefs where it is mounted, else its automount in debugfs. */
	ctl_sys_path(file, sizeof(file),
		     "kernel/tracing/available_filter_functions");
	err = find_names(file, 0, syms, n, found);
	if (err == -ENOENT) {
		snprintf(file, sizeof(file),
			 "%s/tracing/available_filter_functions", debugfs_root());
		err = find_names(file, 0, syms, n, found);
	}
	return err;
}

enum tri ctl_kernel_headers(const char *release)
{
	char file[4096];
	const char *proc = getenv("ABPATH_PROC");

	/* A fake tree (the host tests) keeps lib/ beside its proc/. */
	snprintf(file, sizeof(file), "%s%s/lib/modules/%s/build",
		 proc && *proc ? proc : "", proc && *proc ? "/.." : "", release);
	if (!access(file, F_OK))
		return TRI_YES;
	return errno == ENOENT ? TRI_NO : TRI_UNKNOWN;
}

static enum tri kallsyms_has(const char *sym)
{
	enum tri found;

	return ctl_kallsyms_find(&sym, 1, &found) ? TRI_UNKNOWN : found;
}

enum debugfs_state ctl_debugfs_state(void)
{
	enum debugfs_state ret = DEBUGFS_NOT_MOUNTED;
	struct dirent *de;
	DIR *d;

	/* An unmounted mount point is an empty directory. */
	d = opendir(debugfs_root());
	if (!d)
		return errno == EACCES || errno == EPERM ? DEBUGFS_NO_ACCESS
							 : DEBUGFS_NOT_MOUNTED;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			ret = DEBUGFS_MOUNTED;
			break;
		}
	closedir(d);
	return ret;
}

void ctl_kernel_probe(struct ctl_kernel *k)
{
	char file[4096], flag[16];
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (uname(&u) == 0) {
		ctl_copy(k->release, sizeof(k->release), u.release);
		ctl_copy(k->version, sizeof(k->version), u.version);
	}
	kernel_config(k);
	snprintf(file, sizeof(file), "%s/sys/kernel/ftrace_enabled", ctl_proc());
	k->ftrace_enabled = read_flag(ctl_read(file, flag, sizeof(flag)), flag);
	kernel_signatures(k);
	k->debugfs = ctl_debugfs_state();
	snprintf(file, sizeof(file), "%s/abpath_hooks", debugfs_root());
	k->hooks_file = access(file, F_OK) == 0;
	/* kallsyms is megabytes; only read it when nothing else answered. */
	k->kallsyms = k->hooks_file ? TRI_UNKNOWN : kallsyms_has("abpath_register");

	if (k->hooks_file || k->kallsyms == TRI_YES || k->config == TRI_YES)
		k->hooks = TRI_YES;
	else if (k->config == TRI_NO || k->kallsyms == TRI_NO ||
		 k->debugfs == DEBUGFS_MOUNTED)
		k->hooks = TRI_NO;
	else
		k->hooks = TRI_UNKNOWN;
}

bool ctl_takes_neither(const struct ctl_kernel *k, const char *prefix)
{
	char lacks[512] = "";
	size_t used = 0;
	int n = 0, i;

	if (k->hooks != TRI_NO || k->stock != TRI_NO)
		return false;
	/* Only what this kernel lacks: that is what to look for in another. */
	for (i = 0; i < ctl_n_requires; i++)
		n += !strcmp(ctl_requires[i].backend, "stock") &&
		     ctl_require_counts(k->need, i) && k->need[i] != TRI_YES;
	for (i = 0; i < ctl_n_requires && used < sizeof(lacks); i++) {
		if (strcmp(ctl_requires[i].backend, "stock") ||
		    !ctl_require_counts(k->need, i) || k->need[i] == TRI_YES)
			continue;
		used += (size_t)snprintf(lacks + used, sizeof(lacks) - used,
					 "%s%s", used ? (--n == 1 ? " and " : ", ")
					 : "", ctl_requires[i].option);
	}
	abpath_error("%sthe running kernel %s can take neither backend: it "
		     "has no abpath hooks and lacks %s; boot a kernel that has "
		     "the stock backend's options (every Debian kernel does; "
		     "'abpath check' lists them), or one built with "
		     "CONFIG_ABPATH_HOOKS=y (" CTL_HOOK_PATCHES ")", prefix,
		     k->release, lacks);
	return true;
}

bool ctl_explain_debugfs(void)
{
	switch (ctl_debugfs_state()) {
	case DEBUGFS_NO_ACCESS:
		abpath_error("cannot read %s: permission denied; run as root",
			     debugfs_root());
		return true;
	case DEBUGFS_NOT_MOUNTED:
		abpath_error("debugfs is not mounted on %s; mount it with "
			     "'mount -t debugfs none %s'", debugfs_root(),
			     debugfs_root());
		return true;
	case DEBUGFS_MOUNTED:
		break;
	}
	return false;
}

void ctl_warn_hooks_unknown(void)
{
	abpath_warn("%s is not readable, hook state unknown; run as root",
		    debugfs_root());
}

int ctl_param(const char *name, char *buf, size_t len)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "module/abpath/parameters/%s", name);
	return ctl_sys_read(rel, buf, len);
}

static int not_dot(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

int ctl_params(ctl_param_fn *fn, void *ctx)
{
	char dir[4096], val[512];
	struct dirent **names;
	int n;

	ctl_sys_path(dir, sizeof(dir), "module/abpath/parameters");
	n = scandir(dir, &names, not_dot, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		if (!ctl_param(names[i]->d_name, val, sizeof(val)))
			fn(names[i]->d_name, val, ctx);
		free(names[i]);
	}
	free(names);
	return 0;
}

bool ctl_module_listed(void)
{
	char dir[4096];

	ctl_sys_path(dir, sizeof(dir), "module/abpath");
	return access(dir, F_OK) == 0;
}

int ctl_boot_id(char *buf, size_t len)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/sys/kernel/random/boot_id", ctl_proc());
	return ctl_read(file, buf, len);
}

int ctl_cpu_model(char *buf, size_t len)
{
	char file[4096], line[512], *colon;
	int err = -ENOENT;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cpuinfo", ctl_proc());
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(colon = strchr(line, ':')))
			continue;
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		colon[strcspn(colon, "\n")] = '\0';
		ctl_copy(buf, len, colon);
		err = 0;
	}
	fclose(f);
	return err;
}

int ctl_cpu_microcode(char *buf, size_t len)
{
	char file[4096], line[512], *v, *seen;
	size_t used = 0, n;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cpuinfo", ctl_proc());
	f = fopen(file, "re");
	if (!f)
		return -errno;
	buf[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "microcode", 9) || !(v = strchr(line, ':')))
			continue;
		for (v++; *v == ' ' || *v == '\t'; v++)
			;
		v[strcspn(v, "\n")] = '\0';
		n = strlen(v);
		/* Once each: a list of the CPUs that differ, not of the CPUs. */
		for (seen = buf; *v && (seen = strstr(seen, v)); seen += n)
			if ((seen == buf || seen[-1] == ',') &&
			    (seen[n] == ',' || !seen[n]))
				break;
		if (!*v || seen || used + n + 2 > len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", v);
	}
	fclose(f);
	return 0;
}

int ctl_cpufreq_governor(long cpu, char *buf, size_t len)
{
	char rel[128];

	snprintf(rel, sizeof(rel),
		 "devices/system/cpu/cpu%ld/cpufreq/scaling_governor", cpu);
	return ctl_sys_read(rel, buf, len);
}

int ctl_clocksource(char *buf, size_t len)
{
	return ctl_sys_read("devices/system/clocksource/clocksource0/"
			    "current_clocksource", buf, len);
}

bool ctl_names_open_file(const char *file)
{
	return !strncmp(file, "/dev/std", 8) || !strncmp(file, "/dev/fd/", 8) ||
	       !strncmp(file, "/proc/", 6);
}
