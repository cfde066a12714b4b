// SPDX-License-Identifier: GPL-2.0
/*
 * Whole files or none: atomic.h says why and how.
 */
#define _GNU_SOURCE	/* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic.h"
#include "kernel.h"
#include "output.h"

/*
 * Held while a file is half written: the signals a user or a system
 * sends to stop a process, each of which would otherwise kill abpath
 * between the temporary's creation and its rename or removal.
 */
static void hold_signals(sigset_t *saved)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigprocmask(SIG_BLOCK, &set, saved);
}

/*
 * Devices, FIFOs and the like are not replaced but written to; so are
 * the kernel's names for an open file (a redirection's, kernel.c's
 * ctl_names_open_file()), which a rename would take the place of,
 * leaving whoever holds it writing to a file no longer there.
 */
static bool in_place(const char *file)
{
	struct stat st;

	if (ctl_names_open_file(file))
		return true;
	return !stat(file, &st) && !S_ISREG(st.st_mode);
}

/*
 * A new file gets the mode fopen() would have given it; a file replaced
 * keeps its own, as it would have had it been rewritten in place.
 */
static mode_t new_mode(const char *target)
{
	struct stat st;
	mode_t mask;

	if (!stat(target, &st))
		return st.st_mode & 0777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

static void release(struct atomic_file *a)
{
	free(a->target);
	free(a->temp);
	a->target = a->temp = NULL;
	a->f = NULL;
	sigprocmask(SIG_SETMASK, &a->saved, NULL);
}

int atomic_open(struct atomic_file *a, const char *file)
{
	const char *base;
	char *real;
	int fd, e;

	*a = (struct atomic_file){ .name = file };
	hold_signals(&a->saved);
	if (in_place(file)) {
		a->target = strdup(file);
		a->f = a->target ? fopen(file, "we") : NULL;
		if (!a->f) {
			e = a->target ? errno : ENOMEM;
			release(a);
			abpath_error("cannot write %s: %s", file, strerror(e));
			return 1;
		}
		a->tmp = a->target;
		return 0;
	}
	/* Replace what a symlink points to, not the link. */
	real = realpath(file, NULL);
	a->target = real ? real : strdup(file);
	if (!a->target) {
		release(a);
		abpath_error("out of memory");
		return 1;
	}
	base = strrchr(a->target, '/');
	if (asprintf(&a->temp, "%.*s.%s.XXXXXX",
		     base ? (int)(base + 1 - a->target) : 0, a->target,
		     base ? base + 1 : a->target) < 0) {
		a->temp = NULL;
		release(a);
		abpath_error("out of memory");
		return 1;
	}
	fd = mkostemp(a->temp, O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		release(a);
		/* The file itself may be writable where its directory is not. */
		abpath_error("cannot write %s: %s%s", file, strerror(e),
			     e == EACCES || e == EPERM || e == EROFS ?
			     " (a temporary file beside it, renamed over it "
			     "when whole)" : "");
		return 1;
	}
	if (fchmod(fd, new_mode(a->target)) || !(a->f = fdopen(fd, "w"))) {
		e = errno;
		close(fd);
		unlink(a->temp);
		release(a);
		abpath_error("cannot write %s: %s", file, strerror(e));
		return 1;
	}
	a->tmp = a->temp;
	return 0;
}

/* The rename itself is lasting only once the directory is on disk too. */
static void sync_dir(const char *target)
{
	const char *slash = strrchr(target, '/');
	char dir[PATH_MAX];
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == target)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - target),
			 target);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		/* Best effort: the file is whole either way. */
		(void)fsync(fd);
		close(fd);
	}
}

int atomic_commit(struct atomic_file *a, bool failed)
{
	int e = failed ? (errno ? errno : EIO) : 0;

	if (fflush(a->f) == EOF || ferror(a->f))
		e = e ? e : errno ? errno : EIO;
	/* On disk before it has the name: a crash leaves the old file. */
	if (!e && a->temp && fsync(fileno(a->f)))
		e = errno;
	if (fclose(a->f) && !e)
		e = errno ? errno : EIO;
	if (!e && a->temp && rename(a->temp, a->target))
		e = errno;
	if (a->temp) {
		if (e)
			unlink(a->temp);
		else
			sync_dir(a->target);
	}
	release(a);
	if (e) {
		abpath_error("writing %s: %s", a->name, strerror(e));
		return 1;
	}
	return 0;
}

void atomic_abort(struct atomic_file *a)
{
	fclose(a->f);
	if (a->temp)
		unlink(a->temp);
	release(a);
}
