// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's log around bench runs.  A legacy arm that collapses (the
 * 2.6.27 tick of timer_fastpath, with thousands of threads) leaves the
 * CPUs so little time outside interrupts that RCU's grace-period kthread
 * can go without the CPU for the stall timeout, and the kernel reports
 * an RCU stall.  Such a report belongs to the measurement, and is kept
 * with it; any other report means the kernel went wrong, and fails the
 * run.  Markers written into the log around each run say which records
 * belong to which run, to the reader of dmesg and to tests/vm/run.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmsg.h"

/* A record is at most about 1 KiB of text, escaped; 8 KiB is ample. */
#define KMSG_RECORD_MAX	8192

const char *kmsg_path(void)
{
	const char *p = getenv("ABPATH_KMSG");

	return p && *p ? p : "/dev/kmsg";
}

/* For reading only: each marker goes through an open of its own. */
void kmsg_open(struct kmsg *k)
{
	k->fd = open(kmsg_path(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	k->open = k->fd >= 0 && lseek(k->fd, 0, SEEK_END) >= 0;
	k->err = k->open ? 0 : errno;
	if (!k->open && k->fd >= 0)
		close(k->fd);
}

void kmsg_close(struct kmsg *k)
{
	if (k->open)
		close(k->fd);
	k->open = false;
}

/*
 * What the kernel writes when it went wrong: the lines tests/vm/run
 * fails a VM run on.  "traps: prog[pid] general protection fault" is a
 * user program's own fault, which the kernel only logs.
 */
static const char *const problems[] = {
	"WARNING:", "BUG:", "Oops", "Kernel panic", "kernel BUG",
	"general protection fault", "possible circular locking",
	"possible recursive locking", "inconsistent lock state",
	"suspicious RCU usage", "soft lockup", "hard LOCKUP", "KASAN:",
	"UBSAN:", "ODEBUG:", "new suspected memory leak",
	"blocked for more than", "rcu: INFO:", "Call Trace:",
};

static bool is_problem(const char *msg)
{
	if (!strncmp(msg, "traps: ", 7))
		return false;
	for (size_t i = 0; i < sizeof(problems) / sizeof(*problems); i++)
		if (strstr(msg, problems[i]))
			return true;
	return false;
}

/*
 * A stall report prints in one go, in well under a second even on a
 * serial console; what follows its head for this long is its stack
 * dumps, though a marker may fall in between.
 */
#define KMSG_STALL_SPAN	2.0

/*
 * One record.  The records after a stall report's head are its stack
 * dumps, and the report's time span covers them; the head tells a
 * starved grace period from a stalled CPU by the line that follows the
 * list of stalled CPUs.
 */
static void classify(struct kmsg *k, struct kmsg_reports *r,
		     const char *msg, double t)
{
	bool in_stall = k->stall_t && t - k->stall_t < KMSG_STALL_SPAN;

	if (strstr(msg, "detected stalls on CPUs/tasks")) {
		r->stalls++;
		k->stall_t = t;
	} else if (in_stall && (strstr(msg, "All QSes seen") ||
				strstr(msg, "Stall ended before state dump"))) {
		r->starved++;
	} else if (is_problem(msg) &&
		   !(in_stall && strstr(msg, "Call Trace:"))) {
		if (!r->other++)
			snprintf(r->first, sizeof(r->first), "%s", msg);
	} else if (!in_stall) {
		return;
	}
	if (!r->t_first || t < r->t_first)
		r->t_first = t;
	if (t > r->t_last)
		r->t_last = t;
}

static void merge(struct kmsg_reports *r, const struct kmsg_reports *from)
{
	if (from->other && !r->other)
		snprintf(r->first, sizeof(r->first), "%s", from->first);
	r->stalls += from->stalls;
	r->starved += from->starved;
	r->other += from->other;
	r->lost |= from->lost;
	if (from->t_first && (!r->t_first || from->t_first < r->t_first))
		r->t_first = from->t_first;
	if (from->t_last > r->t_last)
		r->t_last = from->t_last;
}

/*
 * /dev/kmsg rate-limits its writers per open file (printk_devkmsg=
 * ratelimit, the kernel's default: ten lines in five seconds, and the
 * rest dropped while write() still returns success).  A bench of short
 * runs writes two markers a run, and a collapse's span one more, so
 * through one descriptor the kernel would drop some; a dropped span
 * would fail the VM run that tests/vm/run excuses by it, and a dropped
 * end marker would leave the run's records to the next mark.  Each
 * marker has a descriptor of its own, opened write-only, which starts
 * with a full allowance: the limit never applies.  The open needs no
 * privilege beyond the device's permissions.
 */
static int kmsg_write(const char *line, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(kmsg_path(), O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, line, len);
	err = errno;
	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

int kmsg_mark(struct kmsg *k, struct kmsg_reports *r, double *t,
	      const char *fmt, ...)
{
	char mark[256], rec[KMSG_RECORD_MAX];
	unsigned long long usec;
	const char *msg;
	va_list ap;
	ssize_t n;
	int len;

	if (!k->open)
		return -1;
	if (!r) {
		r = &k->carry;
	} else {
		merge(r, &k->carry);
		k->carry = (struct kmsg_reports){ 0 };
	}
	len = snprintf(mark, sizeof(mark), "<5>abpath: bench: ");
	va_start(ap, fmt);
	vsnprintf(mark + len, sizeof(mark) - len - 1, fmt, ap);
	va_end(ap);
	/*
	 * The newline ends the record: without one the kernel keeps it open
	 * for a continuation, and readers see it only once the next record
	 * comes.  With it, the marker is readable when write() returns.
	 */
	len = (int)strlen(mark);
	mark[len] = '\n';
	if (kmsg_write(mark, (size_t)len + 1) < 0) {
		k->err = errno;
		return -1;
	}
	mark[len] = '\0';
	for (;;) {
		n = read(k->fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE) {
			r->lost = true;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/*
		 * Nothing left to read and no marker: the log overwrote it
		 * before it was read (r->lost says so), or user writes were
		 * turned off (printk_devkmsg=off) since the open.  Every
		 * record logged before the write has been read all the same,
		 * which is what the marker is for.
		 */
		if (n < 0 && errno == EAGAIN) {
			if (t)
				*t = NAN;
			return 0;
		}
		if (n <= 0) {
			k->err = n < 0 ? errno : EIO;
			return -1;
		}
		rec[n] = '\0';
		/* "prio,seq,usec,flags[,...];text\n[ KEY=value\n...]" */
		msg = strchr(rec, ';');
		if (!msg || sscanf(rec, "%*u,%*u,%llu", &usec) != 1)
			continue;
		msg++;
		rec[strcspn(rec, "\n")] = '\0';
		if (!strcmp(msg, mark + 3)) {
			if (t)
				*t = usec / 1e6;
			return 0;
		}
		classify(k, r, msg, usec / 1e6);
	}
}

bool kmsg_any(const struct kmsg_reports *r)
{
	return r->stalls || r->other || r->lost;
}

bool kmsg_only_starved(const struct kmsg_reports *r)
{
	return r->stalls && r->starved == r->stalls && !r->other && !r->lost;
}
