/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's log around each bench run (kmsg.c): a marker at each end
 * of the run, and what the kernel reported in between, told apart.
 */
#ifndef ABPATH_KMSG_H
#define ABPATH_KMSG_H

#include <stdbool.h>


/*
 * What the log held between two markers.  An RCU stall report in which
 * every CPU had passed a quiescent state ("All QSes seen", or "Stall
 * ended before state dump start") says that no CPU held the grace period
 * up: its kthread did not get the CPU time to end it.  A collapsing
 * legacy arm causes exactly that, by leaving the CPUs little time
 * outside interrupts.  Any other report is a problem of its own.
 */
struct kmsg_reports {
	int stalls;		/* RCU stall reports */
	int starved;		/* of them, with no CPU stalled */
	int other;		/* any other report, in its first line: */
	char first[160];
	bool lost;		/* records overwritten before they were read */
	double t_first, t_last;	/* the reports' kernel timestamps, s */
};

/* All zeros: not open, never tried. */
struct kmsg {
	bool open;
	int fd;			/* /dev/kmsg, read-only, when open */
	int err;		/* why it is not open: an errno */
	double stall_t;		/* the last stall report's head, s */
	/* Read by a mark that took no reports, for the next one that does. */
	struct kmsg_reports carry;
};

/* /dev/kmsg, or $ABPATH_KMSG (the host tests point it elsewhere). */
const char *kmsg_path(void);
/* Opens the log at its end; without it (not root) reports go unread. */
void kmsg_open(struct kmsg *k);
void kmsg_close(struct kmsg *k);
/*
 * Writes "abpath: bench: TEXT" to the log and reads up to it, adding the
 * records before it to @r; with @r NULL they wait for the next mark that
 * has one, so that no record goes unjudged.  The marker's
 * own timestamp goes to *@t when @t is not NULL.  0, or -1 when the log
 * cannot be used (not open, or k->err says why).
 */
int kmsg_mark(struct kmsg *k, struct kmsg_reports *r, double *t,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Whether @r holds any report, and whether they are all starved stalls. */
bool kmsg_any(const struct kmsg_reports *r);
bool kmsg_only_starved(const struct kmsg_reports *r);

#endif
