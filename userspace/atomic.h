/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file abpath writes (a result, an export, a suite's JSON, a plot)
 * goes through here, so that whoever reads it, and whatever stops
 * abpath, finds either the file as it was or the whole new one: never a
 * file cut at a page boundary, which no reader can parse and which holds
 * none of the runs.
 *
 *	struct atomic_file a;
 *
 *	if (atomic_open(&a, file))
 *		return 1;
 *	write to a.f (or have a program write to a.tmp) ...
 *	return atomic_commit(&a, failed);
 *
 * The text goes to a temporary file beside the target (same directory,
 * so the same file system), is flushed and fsync()ed, and then renamed
 * over the target.  SIGINT, SIGTERM, SIGHUP and SIGQUIT are held from
 * open to commit or abort, so a stop request does not leave the
 * temporary behind; it is acted on right after.  Only SIGKILL or a crash
 * can leave a ".NAME.XXXXXX" beside the target, and never a torn target.
 *
 * A target that is not a regular file (/dev/null, a FIFO, a terminal),
 * or that stands for an open one (a kernel name for an open file, as kernel.c says),
 * is not replaced by a rename but written in place, as before.  A
 * replaced file keeps its permission bits but is a new inode: another
 * hard link to it keeps the old text.
 */
#ifndef ABPATH_ATOMIC_H
#define ABPATH_ATOMIC_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

struct atomic_file {
	FILE *f;		/* write here */
	/*
	 * The file being written, for a program that writes it itself
	 * (gnuplot's "set output"): the temporary, or the target when it is
	 * written in place.
	 */
	const char *tmp;
	/* Private. */
	char *target;		/* what is renamed over (symlinks resolved) */
	char *temp;		/* NULL when written in place */
	const char *name;	/* as given, for the messages */
	sigset_t saved;
};

/*
 * Open a temporary for @file: 0, or 1 after the error ("cannot write
 * FILE: ...").  On 0, atomic_commit() or atomic_abort() must follow.
 */
int atomic_open(struct atomic_file *a, const char *file);
/*
 * @failed: the caller's own write failed.  Otherwise flush, fsync and
 * rename over the target: 0, or 1 after the error ("writing FILE: ...").
 * Either way the temporary is gone and, on 1, the target as it was.
 */
int atomic_commit(struct atomic_file *a, bool failed);
/* Remove the temporary and keep the target; says nothing. */
void atomic_abort(struct atomic_file *a);

#endif
