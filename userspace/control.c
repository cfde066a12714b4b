// SPDX-License-Identifier: GPL-2.0
/*
 * The module's files: its sysfs directory (modes, sites, version, backend,
 * reset) and its debugfs one (the counters), read and written by what
 * they hold, and the explanation of every failure with the fix.  Callers
 * name a path and a mode, never a file: only this file and kernel.c spell
 * a file of sysfs, procfs or debugfs, and their roots are static, so that
 * the compiler keeps it so.  Each root can be moved with an environment
 * variable, so that the host tests run the real binary on a fake tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control.h"
#include "output.h"

/*
 * The module's one list of its paths, in its order, read when this file
 * is built: the names without the module, and the order with it.
 */
static const char *const builtin_paths[] = {
#define ABPATH_PATH(name) #name,
#include "../module/paths.h"
};
#define NR_BUILTIN_PATHS \
	((int)(sizeof(builtin_paths) / sizeof(builtin_paths[0])))

static const char *env_or(const char *var, const char *def)
{
	const char *v = getenv(var);

	return v && *v ? v : def;
}

static const char *ctl_sysfs(void)
{
	return env_or("ABPATH_SYSFS", "/sys/kernel/abpath");
}

static const char *ctl_debugfs(void)
{
	return env_or("ABPATH_DEBUGFS", "/sys/kernel/debug/abpath");
}

static int ctl_write(const char *file, const char *val)
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

int ctl_explain_not_loaded(void)
{
	struct ctl_kernel k;

	ctl_kernel_probe(&k);
	if (!ctl_takes_neither(&k, "module abpath is not loaded, and "))
		abpath_error("module abpath is not loaded; load it with "
			     "'abpath load' or 'modprobe abpath'");
	return 1;
}

/* Why @file could not be used (@err is -errno), with the fix; returns 1. */
static int ctl_explain(const char *file, int err, bool needs_debugfs)
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
	if (needs_debugfs && ctl_explain_debugfs())
		return 1;
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

bool ctl_module_present(void)
{
	struct stat st;

	return stat(ctl_sysfs(), &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

bool ctl_path_names(struct ctl_paths *p)
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
		for (i = 0; i < NR_BUILTIN_PATHS; i++)
			ctl_copy(p->name[p->n++], CTL_NAME_MAX,
				 builtin_paths[i]);
		return false;
	}
	/* paths.h's order first, then any paths it does not have by name. */
	for (i = 0; i < NR_BUILTIN_PATHS; i++)
		for (j = 0; j < nfound; j++)
			if (!strcmp(found[j], builtin_paths[i])) {
				ctl_copy(p->name[p->n++], CTL_NAME_MAX, found[j]);
				found[j][0] = '\0';
			}
	qsort(found, (size_t)nfound, CTL_NAME_MAX, cmp_name);
	for (j = 0; j < nfound; j++)
		if (found[j][0])
			ctl_copy(p->name[p->n++], CTL_NAME_MAX, found[j]);
	return true;
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

/*
 * -EOPNOTSUPP: the backend could not attach the path's legacy arm on this
 * kernel, and <path>/site says why.  A write of all four checks every path
 * before changing any, so it names the first one that refused.
 */
static int ctl_explain_unsupported(const char *path, const char *mode)
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

int ctl_resolution_loaded(char *buf, size_t len)
{
	return module_read("resolution", buf, len);
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
