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

/* The door's two helpers, control.c's too. */
void ctl_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
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
		if (sscanf(line, "%63s %d", name, &val) != 2)
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

/* The options the backends need, as one config file sets them. */
struct kconfig {
	enum tri hooks, livepatch, ftrace_args, ftrace_direct;
};

static void config_opt(const char *line, const char *opt, enum tri *val)
{
	size_t n = strlen(opt);

	if (!strncmp(line, opt, n) && line[n] == '=')
		*val = line[n + 1] == 'y' ? TRI_YES : TRI_NO;
}

/* "# CONFIG_X is not set" changes nothing: absent is already a "no". */
static void config_line(const char *line, struct kconfig *c)
{
	config_opt(line, "CONFIG_ABPATH_HOOKS", &c->hooks);
	config_opt(line, "CONFIG_LIVEPATCH", &c->livepatch);
	config_opt(line, "CONFIG_DYNAMIC_FTRACE_WITH_ARGS", &c->ftrace_args);
	config_opt(line, "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
		   &c->ftrace_direct);
}

/*
 * A readable config without an option at all means a kernel without it,
 * so that is a "no" as well, not an "unknown".
 */
static void kernel_config(struct ctl_kernel *k)
{
	struct kconfig c = { TRI_NO, TRI_NO, TRI_NO, TRI_NO };
	char file[4096], line[512];
	gzFile gz;
	FILE *f;

	k->config = k->stock = TRI_UNKNOWN;
	snprintf(file, sizeof(file), "%s/config.gz", ctl_proc());
	gz = gzopen(file, "rb");
	if (gz) {
		while (gzgets(gz, line, sizeof(line)))
			config_line(line, &c);
		gzclose(gz);
	} else {
		snprintf(file, sizeof(file), "/boot/config-%s", k->release);
		f = fopen(file, "re");
		if (!f)
			return;
		while (fgets(line, sizeof(line), f))
			config_line(line, &c);
		fclose(f);
	}
	ctl_copy(k->config_source, sizeof(k->config_source), file);
	k->config = c.hooks;
	k->livepatch = c.livepatch;
	k->ftrace_args = c.ftrace_args;
	k->ftrace_direct = c.ftrace_direct;
	k->stock = c.livepatch == TRI_YES && c.ftrace_args == TRI_YES &&
		   c.ftrace_direct == TRI_YES ? TRI_YES : TRI_NO;
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

static enum tri kallsyms_has(const char *sym)
{
	char file[4096], line[512], name[256];
	enum tri ret = TRI_UNKNOWN;
	FILE *f;

	snprintf(file, sizeof(file), "%s/kallsyms", ctl_proc());
	f = fopen(file, "re");
	if (!f)
		return TRI_UNKNOWN;
	/* Names are visible without root even when addresses are not. */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %255s", name) != 1)
			continue;
		ret = TRI_NO;
		if (!strcmp(name, sym)) {
			ret = TRI_YES;
			break;
		}
	}
	fclose(f);
	return ret;
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
	const char *opt[] = { "CONFIG_LIVEPATCH",
			      "CONFIG_DYNAMIC_FTRACE_WITH_ARGS",
			      "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS" };
	enum tri val[] = { k->livepatch, k->ftrace_args, k->ftrace_direct };
	char lacks[160] = "";
	size_t used = 0;
	int n = 0, i;

	if (k->hooks != TRI_NO || k->stock != TRI_NO)
		return false;
	/* Only what this kernel lacks: that is what to look for in another. */
	for (i = 0; i < 3; i++)
		n += val[i] != TRI_YES;
	for (i = 0; i < 3 && used < sizeof(lacks); i++) {
		if (val[i] == TRI_YES)
			continue;
		used += (size_t)snprintf(lacks + used, sizeof(lacks) - used,
					 "%s%s", used ? (--n == 1 ? " and " : ", ")
					 : "", opt[i]);
	}
	abpath_error("%sthe running kernel %s can take neither backend: it "
		     "has no abpath hooks and lacks %s; boot a kernel that has "
		     CTL_STOCK_NEEDS " (every Debian kernel does) for the "
		     "stock backend, or one built with CONFIG_ABPATH_HOOKS=y ("
		     CTL_HOOK_PATCHES ")", prefix, k->release, lacks);
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
