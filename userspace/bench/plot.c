// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* pipe2, strchrnul */
/*
 * Plots through gnuplot, of one bench (its script is here) and of a suite
 * (tables.c): finding it before a long run, quoting, and feeding it a
 * script on a pipe so that nothing is left in $TMPDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "report.h"
#include "../atomic.h"
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
	struct atomic_file a;
	int fds[2], status;
	pid_t pid;
	FILE *f;

	if (!gp || !fmt) {
		abpath_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
		return 1;
	}
	/*
	 * gnuplot writes the temporary (a.tmp) by name, and we rename it
	 * once gnuplot has said it is done: a plot stopped half way is
	 * never left under the plot's name.  It inherits the stop signals
	 * held, so a Ctrl-C does not cost the exports after the plot.
	 */
	if (atomic_open(&a, file))
		return 1;
	if (pipe2(fds, O_CLOEXEC)) {
		abpath_error("pipe: %s", strerror(errno));
		atomic_abort(&a);
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		abpath_error("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		atomic_abort(&a);
		return 1;
	}
	if (pid == 0) {
		sigset_t chld;

		/* A bench's hold on SIGCHLD is ours, not gnuplot's. */
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
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
		bench_gp_quote(f, a.tmp);
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
		return atomic_commit(&a, false);
	atomic_abort(&a);
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

/* ---- one bench --------------------------------------------------------- */

/*
 * Every run as a point above its mode, spread sideways by a fixed
 * golden-ratio sequence (deterministic, so the same data give the same
 * picture), warm-ups hollow and grey, the geometric mean as a bar.  The
 * data go inline as datablocks: nothing to clean up in $TMPDIR.
 */
struct gp_ctx {
	const struct bench *b;
	const struct report *r;
};

static void gp_script(FILE *f, const void *ctx)
{
	static const char *const color[2] = { "#d62728", "#1f77b4" };
	const struct bench *b = ((const struct gp_ctx *)ctx)->b;
	const struct report *r = ((const struct gp_ctx *)ctx)->r;
	char title[1024];
	bool nonneg = true;
	int k[2] = { 0, 0 }, nwarm = 0, ninvalid = 0;

	snprintf(title, sizeof(title), "%s, %s: %s", b->workload_name,
		 b->o->path, r->verdict);
	fputs("set title noenhanced ", f);
	bench_gp_quote(f, title);
	snprintf(title, sizeof(title), "%s (%s, %s is better)", b->metric,
		 b->unit, b->lower_is_better ? "lower" : "higher");
	fputs("\nset ylabel noenhanced ", f);
	bench_gp_quote(f, title);
	fputs("\nset xrange [0.4:2.6]\nset xtics ('legacy' 1, 'optimized' 2)\n"
	      "set grid ytics\nset key outside bottom center horizontal\n", f);

	for (int m = 0; m < 2; m++) {
		fprintf(f, "$%s << EOD\n", bench_mode_name[m]);
		for (int i = 0; i < b->done; i++) {
			const struct bench_sample *s = &b->s[i];
			double frac;

			if ((int)s->mode != m || !bench_counts(s))
				continue;
			frac = fmod(0.5 + k[m]++ * 0.6180339887498949, 1.0);
			fprintf(f, "%.4f %.17g\n", m + 1 + 0.3 * (frac - 0.5),
				s->value);
			nonneg &= s->value >= 0;
		}
		fputs("EOD\n", f);
	}
	fputs("$warmup << EOD\n", f);
	for (int i = 0; i < b->done; i++)
		if (b->s[i].warmup && !b->s[i].invalid[0]) {
			fprintf(f, "%d %.17g\n", b->s[i].mode + 1, b->s[i].value);
			nonneg &= b->s[i].value >= 0;
			nwarm++;
		}
	fputs("EOD\n$invalid << EOD\n", f);
	for (int i = 0; i < b->done; i++)
		if (b->s[i].invalid[0]) {
			fprintf(f, "%d %.17g\n", b->s[i].mode + 1,
				b->s[i].value);
			nonneg &= b->s[i].value >= 0;
			ninvalid++;
		}
	fprintf(f, "EOD\n$gmean << EOD\n1 %.17g\n2 %.17g\nEOD\n",
		r->m[0].s.gmean, r->m[1].s.gmean);
	/* A ratio is read against zero; start there when nothing is below. */
	if (nonneg)
		fputs("set yrange [0:*]\n", f);
	fprintf(f, "plot $legacy using 1:2 with points pt 7 ps 0.9 lc rgb '%s' "
		"title 'legacy', \\\n"
		"  $optimized using 1:2 with points pt 7 ps 0.9 lc rgb '%s' "
		"title 'optimized', \\\n", color[0], color[1]);
	if (nwarm)
		fputs("  $warmup using 1:2 with points pt 6 ps 0.9 "
		      "lc rgb '#888888' title 'warm-up (not counted)', \\\n", f);
	if (ninvalid)
		fputs("  $invalid using 1:2 with points pt 2 ps 1.2 "
		      "lc rgb '#000000' title 'invalid (not counted)', \\\n", f);
	fputs("  $gmean using ($1-0.25):2:(0.5):(0) with vectors nohead "
	      "lw 2 lc rgb 'black' title 'geometric mean'\n", f);
}

int bench_plot(const struct bench *b, const struct report *r,
	       const char *file)
{
	struct gp_ctx ctx = { b, r };

	return bench_gnuplot(file, gp_script, &ctx);
}
