// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* pipe2, strchrnul */
/*
 * Plots through gnuplot, for a bench (report.c) and for a suite
 * (tables.c): finding it before a long run, quoting, and feeding it
 * a script on a pipe so that nothing is left in $TMPDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "../output.h"

const char *bench_find_gnuplot(void)
{
	static char found[4096];
	const char *path = getenv("PATH"), *end;
	size_t len;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (; *path; path = *end ? end + 1 : end) {
		end = strchrnul(path, ':');
		len = (size_t)(end - path);
		snprintf(found, sizeof(found), "%.*s/gnuplot",
			 (int)(len ? len : 1), len ? path : ".");
		if (access(found, X_OK) == 0)
			return found;
	}
	return NULL;
}

/* gnuplot's single-quoted string: only the quote itself is special. */
void bench_gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

int bench_gnuplot(const char *file, void (*write)(FILE *f, const void *ctx),
		  const void *ctx)
{
	const char *gp = bench_find_gnuplot(), *fmt = bench_plot_format(file);
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	int fds[2], status;
	pid_t pid;
	FILE *f;

	if (!gp || !fmt) {
		abpath_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
		return 1;
	}
	if (pipe2(fds, O_CLOEXEC)) {
		abpath_error("pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		abpath_error("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		execl(gp, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	/* A gnuplot that dies early must give an error, not kill us. */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	f = fdopen(fds[1], "w");
	if (f) {
		fputs("set encoding utf8\n", f);
		if (!strcmp(fmt, "svg"))
			fputs("set terminal svg size 720,480 dynamic font "
			      "'sans,11' background rgb 'white'\n", f);
		else
			fputs("set terminal pngcairo size 720,480 font "
			      "'sans,10' background rgb 'white'\n", f);
		fputs("set output ", f);
		bench_gp_quote(f, file);
		fputc('\n', f);
		write(f, ctx);
		fclose(f);
	} else {
		close(fds[1]);
	}
	sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	abpath_error("gnuplot (%s) could not write %s; see its messages "
		     "above", gp, file);
	return 1;
}

const char *bench_plot_format(const char *file)
{
	const char *dot = strrchr(file, '.');

	if (!dot || dot == file || dot[-1] == '/')
		return NULL;
	if (!strcmp(dot, ".svg"))
		return "svg";
	if (!strcmp(dot, ".png"))
		return "png";
	return NULL;
}
