// SPDX-License-Identifier: GPL-2.0
/*
 * Access to the files the kernel patch and the module export.  Every root
 * can be moved with an environment variable so that the host tests can run
 * the real binary against a fake tree; nothing else in the CLI knows where
 * the files live.
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

#include "control.h"
#include "output.h"

/* The design's order (docs/design.md); used when the module's sysfs is absent. */
const char *const ctl_builtin_paths[] = {
	"group_cputime", "timer_fastpath", "exit_reparent", "timer_softirq",
};
const int ctl_nr_builtin_paths =
	sizeof(ctl_builtin_paths) / sizeof(ctl_builtin_paths[0]);

void ctl_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static const char *env_or(const char *var, const char *def)
{
	const char *v = getenv(var);

	return v && *v ? v : def;
}

const char *ctl_sysfs(void)
{
	return env_or("ABPATH_SYSFS", "/sys/kernel/abpath");
}

const char *ctl_debugfs(void)
{
	return env_or("ABPATH_DEBUGFS", "/sys/kernel/debug/abpath");
}

const char *ctl_proc(void)
{
	return env_or("ABPATH_PROC", "/proc");
}

/*
 * abpath_hooks sits at the debugfs root, next to the module's directory;
 * deriving it keeps the overrides down to one variable per tree.
 */
const char *ctl_debugfs_mount(void)
{
	static char buf[4096];
	char *slash;

	ctl_copy(buf, sizeof(buf), ctl_debugfs());
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

/* /sys/kernel/abpath -> /sys: two levels up, fake trees alike. */
void ctl_sys_path(char *file, size_t len, const char *rel)
{
	const char *root = ctl_sysfs();
	size_t n = strlen(root);

	for (int up = 0; up < 2 && n; up++)
		while (n && root[--n] != '/')
			;
	snprintf(file, len, "%.*s/%s", (int)n, root, rel);
}

int ctl_sys_read(const char *rel, char *buf, size_t len)
{
	char file[4096];

	ctl_sys_path(file, sizeof(file), rel);
	return ctl_read(file, buf, len);
}

int ctl_param(const char *name, char *buf, size_t len)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "module/abpath/parameters/%s", name);
	return ctl_sys_read(rel, buf, len);
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

int ctl_write(const char *file, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	/*
	 * O_TRUNC is what "echo > file" does: sysfs and debugfs ignore it,
	 * and it keeps a fake regular file from holding stale bytes.
	 */
	fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs takes a value in one write(); never split it. */
	do
		n = write(fd, val, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

bool ctl_module_present(void)
{
	struct stat st;

	return stat(ctl_sysfs(), &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

void ctl_path_names(struct ctl_paths *p)
{
	char found[CTL_MAX_PATHS][CTL_NAME_MAX], file[4096];
	int nfound = 0, i, j;
	struct dirent *de;
	struct stat st;
	DIR *d;

	p->n = 0;
	d = opendir(ctl_sysfs());
	while (d && (de = readdir(d)) && nfound < CTL_MAX_PATHS) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= CTL_NAME_MAX)
			continue;
		/* Only directories with a mode file are paths (not hist/). */
		snprintf(file, sizeof(file), "%s/%s/mode", ctl_sysfs(),
			 de->d_name);
		if (stat(file, &st) == 0)
			ctl_copy(found[nfound++], CTL_NAME_MAX, de->d_name);
	}
	if (d)
		closedir(d);
	if (!nfound) {
		for (i = 0; i < ctl_nr_builtin_paths; i++)
			ctl_copy(p->name[p->n++], CTL_NAME_MAX,
				 ctl_builtin_paths[i]);
		return;
	}
	/* The contract's order first, then any newer paths by name. */
	for (i = 0; i < ctl_nr_builtin_paths; i++)
		for (j = 0; j < nfound; j++)
			if (!strcmp(found[j], ctl_builtin_paths[i])) {
				ctl_copy(p->name[p->n++], CTL_NAME_MAX, found[j]);
				found[j][0] = '\0';
			}
	qsort(found, (size_t)nfound, CTL_NAME_MAX, cmp_name);
	for (j = 0; j < nfound; j++)
		if (found[j][0])
			ctl_copy(p->name[p->n++], CTL_NAME_MAX, found[j]);
}

bool ctl_valid_path(const struct ctl_paths *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->name[i], name))
			return true;
	return false;
}

bool ctl_valid_mode(const char *mode)
{
	return !strcmp(mode, "legacy") || !strcmp(mode, "optimized");
}

/* Where the backend attached @path, or "unavailable: why". */
int ctl_path_site(const char *path, char *site, size_t len)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/%s/site", ctl_sysfs(), path);
	return ctl_read(file, site, len);
}

int ctl_path_mode(const char *path, char *mode, size_t len)
{
	char file[4096], buf[256], *open_br, *close_br;
	int err;

	snprintf(file, sizeof(file), "%s/%s/mode", ctl_sysfs(), path);
	err = ctl_read(file, buf, sizeof(buf));
	if (err)
		return err;
	open_br = strchr(buf, '[');
	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (open_br && close_br) {
		*close_br = '\0';
		ctl_copy(mode, len, open_br + 1);
	} else {
		/* Tolerate a bare word: it can only be the active mode. */
		ctl_copy(mode, len, buf);
	}
	return 0;
}

/* <sysfs>/<path>/mode, or the module's own <sysfs>/mode for "all". */
static void mode_file(char *file, size_t len, const char *path)
{
	if (!strcmp(path, "all"))
		snprintf(file, len, "%s/mode", ctl_sysfs());
	else
		snprintf(file, len, "%s/%s/mode", ctl_sysfs(), path);
}

int ctl_set_mode(const char *path, const char *mode)
{
	char file[4096], now[CTL_NAME_MAX];
	int err;

	mode_file(file, sizeof(file), path);
	err = ctl_write(file, mode);
	/* "all" sets each path in turn: the paths' own files tell, not it. */
	if (err || !strcmp(path, "all"))
		return err;
	err = ctl_path_mode(path, now, sizeof(now));
	if (err)
		return err;
	return strcmp(now, mode) ? -EPROTO : 0;
}

/* The module's own files: <sysfs>/<name>. */
static int module_read(const char *name, char *buf, size_t len)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/%s", ctl_sysfs(), name);
	return ctl_read(file, buf, len);
}

int ctl_module_version(char *buf, size_t len)
{
	return module_read("version", buf, len);
}

int ctl_backend(char *buf, size_t len)
{
	return module_read("backend", buf, len);
}

int ctl_module_mode(char *buf, size_t len)
{
	return module_read("mode", buf, len);
}

int ctl_reset(void)
{
	char file[4096];

	/* sysfs: lockdown refuses every debugfs write. */
	snprintf(file, sizeof(file), "%s/reset", ctl_sysfs());
	return ctl_write(file, "1");
}

int ctl_explain_reset(int err)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/reset", ctl_sysfs());
	return ctl_explain(file, err, false);
}

FILE *ctl_open_counters(char *name, size_t len)
{
	snprintf(name, len, "%s/stats", ctl_debugfs());
	return fopen(name, "re");
}

int ctl_explain_counters(int err)
{
	char file[4096];

	snprintf(file, sizeof(file), "%s/stats", ctl_debugfs());
	return ctl_explain(file, err, true);
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

int ctl_read_hooks(struct ctl_hooks *h)
{
	char file[4096], line[256], name[CTL_NAME_MAX];
	int val;
	FILE *f;

	memset(h, 0, sizeof(*h));
	snprintf(file, sizeof(file), "%s/abpath_hooks", ctl_debugfs_mount());
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
	d = opendir(ctl_debugfs_mount());
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
	snprintf(file, sizeof(file), "%s/abpath_hooks", ctl_debugfs_mount());
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

int ctl_explain_not_loaded(void)
{
	struct ctl_kernel k;

	ctl_kernel_probe(&k);
	if (!ctl_takes_neither(&k, "module abpath is not loaded, and "))
		abpath_error("module abpath is not loaded; load it with "
			     "'abpath load' or 'modprobe abpath'");
	return 1;
}

int ctl_explain(const char *file, int err, bool needs_debugfs)
{
	if (err == -EACCES || err == -EPERM) {
		abpath_error("%s: %s; run as root", file, strerror(-err));
		return 1;
	}
	if (err != -ENOENT && err != -ENOTDIR) {
		abpath_error("%s: %s", file, strerror(-err));
		return 1;
	}
	/* Without the module there is nothing to mount or read: say that. */
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	if (needs_debugfs) {
		switch (ctl_debugfs_state()) {
		case DEBUGFS_NO_ACCESS:
			abpath_error("cannot read %s: permission denied; "
				     "run as root", ctl_debugfs_mount());
			return 1;
		case DEBUGFS_NOT_MOUNTED:
			abpath_error("debugfs is not mounted on %s; mount it "
				     "with 'mount -t debugfs none %s'",
				     ctl_debugfs_mount(), ctl_debugfs_mount());
			return 1;
		case DEBUGFS_MOUNTED:
			break;
		}
	}
	/*
	 * rmmod removes debugfs before sysfs: a file that vanished while the
	 * module still shows is most likely an unload in progress.
	 */
	if (ctl_module_present())
		usleep(200 * 1000);
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	abpath_error("%s does not exist; the loaded abpath module does not "
		     "provide it (update the module)", file);
	return 1;
}

int ctl_explain_set(const char *path, const char *mode, int err)
{
	char file[4096], now[CTL_NAME_MAX];

	mode_file(file, sizeof(file), path);
	if (!mode)
		return ctl_explain(file, err, false);
	switch (err) {
	case -EOPNOTSUPP:
		return ctl_explain_unsupported(path, mode);
	case -EINVAL:
		abpath_error("the module rejected '%s' for %s (%s); check "
			     "that the module and the CLI versions match "
			     "('abpath status')", mode, path, strerror(EINVAL));
		return 1;
	case -EPROTO:
		if (ctl_path_mode(path, now, sizeof(now)))
			ctl_copy(now, sizeof(now), "unreadable");
		abpath_error("%s reads '%s' after writing '%s'; the module did "
			     "not switch", file, now, mode);
		return 1;
	}
	return ctl_explain(file, err, false);
}

/*
 * -EOPNOTSUPP: the backend could not attach the path's legacy arm on this
 * kernel, and <path>/site says why.  A write of all four checks every path
 * before changing any, so it names the first one that refused.
 */
int ctl_explain_unsupported(const char *path, const char *mode)
{
	struct ctl_paths p;
	char site[512];
	int i;

	if (strcmp(path, "all")) {
		if (ctl_path_site(path, site, sizeof(site)))
			ctl_copy(site, sizeof(site), "see dmesg");
		abpath_error("%s cannot run %s on this kernel: %s", path,
			     mode, site);
		return 1;
	}
	ctl_path_names(&p);
	for (i = 0; i < p.n; i++) {
		if (!ctl_path_site(p.name[i], site, sizeof(site)) &&
		    !strncmp(site, "unavailable", 11)) {
			abpath_error("%s cannot run %s on this kernel (%s), "
				     "so no path was changed; set the others "
				     "one by one with 'abpath set PATH %s'",
				     p.name[i], mode, site, mode);
			return 1;
		}
	}
	abpath_error("some path cannot run %s on this kernel (see dmesg), so "
		     "no path was changed", mode);
	return 1;
}
