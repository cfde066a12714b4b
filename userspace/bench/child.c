// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* pipe2, ppoll */
/*
 * One child process of the bench (a workload, a command, --prepare's
 * shell): started with its standard output and error on pipes, read
 * while it runs, waited for with wait4 (its rusage counts the
 * descendants it waited for), and stopped cleanly on a stop request.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "internal.h"
#include "../output.h"

/* A workload has this long to clean up after SIGTERM before SIGKILL. */
#define BENCH_KILL_GRACE_S	10

/* Where a workload child's executable is found: fixed at build time, moved by the environment for the host tests and a clone. */
const char *bench_workload_dir(void)
{
	const char *dir = getenv("ABPATH_WORKLOAD_DIR");

	return dir && *dir ? dir : ABPATH_WORKLOAD_DIR;
}

int bench_no_workload_dir(void)
{
	abpath_error("workload directory %s does not exist; install the "
		     "workloads (the Debian package, or 'make -C userspace/workloads "
		     "install' from a clone) or set ABPATH_WORKLOAD_DIR",
		     bench_workload_dir());
	return 1;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Reads what is there; returns -1 on error or past max (unless the buffer
 * discards the excess), 0 otherwise.
 */
static int buf_fill(struct bench_buf *b)
{
	char sink[4096], *dst;
	size_t room;
	ssize_t r;

	while (b->fd >= 0) {
		if (b->n + 1 >= b->max) {
			if (!b->discard)
				return -1;
			dst = sink;
			room = sizeof(sink);
		} else {
			if (b->cap - b->n < 4096 && b->cap < b->max) {
				size_t cap = b->cap ? 2 * b->cap : 8192;
				char *p;

				cap = cap < b->max ? cap : b->max;
				p = realloc(b->p, cap);
				if (!p)
					return -1;
				b->p = p;
				b->cap = cap;
			}
			dst = b->p + b->n;
			room = b->cap - b->n - 1;
		}
		r = read(b->fd, dst, room);
		if (r > 0 && dst != sink) {
			b->n += (size_t)r;
			b->p[b->n] = '\0';
		} else if (r > 0) {
			continue;
		} else if (r == 0) {
			close(b->fd);
			b->fd = -1;
		} else if (errno == EINTR) {
			continue;
		} else {
			return errno == EAGAIN ? 0 : -1;
		}
	}
	return 0;
}

static void child_exec(const struct bench_child *c, int out, int err)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	sigprocmask(SIG_SETMASK, bench_orig_sigmask(), NULL);
	/* A workload reading the terminal would stop a background bench. */
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (c->shown) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
	} else {
		dup2(c->stdout_kept || null < 0 ? out : null, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
	}
	if (c->search)
		execvp(c->argv[0], c->argv);
	else
		execv(c->argv[0], c->argv);
	dprintf(STDERR_FILENO, "cannot execute %s: %s\n", c->argv[0],
		strerror(errno));
	_exit(127);
}

int bench_spawn(const struct bench_child *c, struct bench_buf *out,
		struct bench_buf *err, int *status, struct rusage *ru,
		double *wall)
{
	int po[2], pe[2], n, got;
	bool term_sent = false, kill_sent = false;
	double deadline = 0, t0;
	struct pollfd fds[2];
	struct timespec ts;
	pid_t pid;

	if (pipe2(po, O_CLOEXEC)) {
		abpath_error("pipe: %s", strerror(errno));
		return 1;
	}
	if (pipe2(pe, O_CLOEXEC)) {
		abpath_error("pipe: %s", strerror(errno));
		close(po[0]);
		close(po[1]);
		return 1;
	}
	t0 = bench_now();
	pid = fork();
	if (pid < 0) {
		abpath_error("fork: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			close(po[i]);
			close(pe[i]);
		}
		return 1;
	}
	if (pid == 0)
		child_exec(c, po[1], pe[1]);
	close(po[1]);
	close(pe[1]);
	out->fd = po[0];
	err->fd = pe[0];
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);

	for (;;) {
		got = wait4(pid, status, WNOHANG, ru);
		if (got == pid) {
			*wall = bench_now() - t0;
			break;
		}
		if (bench_stopping() && !term_sent) {
			kill(pid, SIGTERM);
			term_sent = true;
			deadline = bench_now() + BENCH_KILL_GRACE_S;
		}
		if (term_sent && !kill_sent &&
		    (bench_stop_requests() > 1 || bench_now() >= deadline)) {
			kill(pid, SIGKILL);
			kill_sent = true;
		}
		n = 0;
		if (out->fd >= 0)
			fds[n++] = (struct pollfd){ out->fd, POLLIN, 0 };
		if (err->fd >= 0)
			fds[n++] = (struct pollfd){ err->fd, POLLIN, 0 };
		ts = (struct timespec){ 1, 0 };
		/* Signals are let in only while we sleep here. */
		if (ppoll(fds, (nfds_t)n, term_sent ? &ts : NULL,
			  bench_orig_sigmask()) < 0 && errno != EINTR) {
			abpath_error("ppoll: %s", strerror(errno));
			kill(pid, SIGKILL);
			wait4(pid, status, 0, ru);
			return 1;
		}
		if (buf_fill(out) || buf_fill(err)) {
			/* Too much output: no report; stop it, keep reaping. */
			if (!term_sent)
				kill(pid, SIGKILL);
			term_sent = kill_sent = true;
			close(out->fd);
			close(err->fd);
			out->fd = err->fd = -1;
		}
	}
	/*
	 * Take what is left, but do not wait for EOF: a grandchild that
	 * outlived the workload may hold the pipes open.
	 */
	buf_fill(out);
	buf_fill(err);
	if (out->fd >= 0)
		close(out->fd);
	if (err->fd >= 0)
		close(err->fd);
	out->fd = err->fd = -1;
	return 0;
}

void bench_show_stderr(const char *text)
{
	const char *line = text, *nl;

	if (!text || !*text) {
		fputs("  (nothing on its standard error)\n", stderr);
		return;
	}
	while (*line) {
		nl = strchr(line, '\n');
		fprintf(stderr, "  %.*s\n", (int)(nl ? nl - line : (long)strlen(line)),
			line);
		if (!nl)
			break;
		line = nl + 1;
	}
}
