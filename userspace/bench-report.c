// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* pipe2, strchrnul */
/*
 * The result of 'abpath bench': per-mode statistics, the legacy/optimized
 * ratio, the rank test and a one-line verdict, as text or JSON through
 * the one emitter, and the optional gnuplot plot.
 *
 * Warm-up runs are in the JSON samples (flagged) and in the plot (grey),
 * never in a statistic.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "output.h"
#include "statistics.h"

/* Significant digits of measurements in the text output. */
#define SIG 4

struct mode_stats {
	double *v;
	size_t n;
	struct st_summary s;
};

struct report {
	struct mode_stats m[2];
	struct st_ratio ratio;
	int ratio_err;
	struct st_mw mw;
	char verdict[256];
};

static const char *mw_method(const struct st_mw *mw)
{
	return mw->exact ? "exact" : "normal-tie-continuity-corrected";
}

/* "0.002", "0.48", "<0.001": as many digits as a reader can use. */
static void fmt_p(char *buf, size_t len, double p)
{
	if (p < 0.001)
		snprintf(buf, len, "p<0.001");
	else
		snprintf(buf, len, "p=%.*f", p < 0.01 ? 3 : 2, p);
}

/* Time-like metrics read better as slower/faster, others as worse/better. */
static bool speed_words(const char *unit, bool lower_is_better)
{
	static const char *const times[] = { "s", "ms", "us", "ns", "µs" };

	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(unit, times[i]))
			return lower_is_better;
	/* A throughput: loops/s, ops/s. */
	return !lower_is_better && strstr(unit, "/s");
}

/*
 * "legacy is 2.31x slower (95% CI 2.10–2.55), p=0.002": the factor is
 * always >= 1, in the direction of the worse mode.  Significant only when
 * the rank test says so and the ratio's CI excludes 1, so the two methods
 * must agree before the verdict claims a difference.
 */
static void verdict(const struct bench *b, struct report *r)
{
	const struct st_ratio *q = &r->ratio;
	char p[32], f[32], lo[32], hi[32];
	bool legacy_worse, speed = speed_words(b->unit, b->lower_is_better);
	double factor, flo, fhi;

	fmt_p(p, sizeof(p), r->mw.p);
	/* Zero or negative values: a metric the ratio does not suit. */
	if (!isfinite(q->value) || q->value <= 0) {
		snprintf(r->verdict, sizeof(r->verdict), "no ratio (means: "
			 "legacy %s, optimized %s); Mann-Whitney %s",
			 out_fmt_sig(lo, sizeof(lo), r->m[0].s.mean, 3),
			 out_fmt_sig(hi, sizeof(hi), r->m[1].s.mean, 3), p);
		return;
	}
	if (r->ratio_err || !isfinite(q->lo) || !isfinite(q->hi)) {
		snprintf(r->verdict, sizeof(r->verdict), "legacy/optimized %s, "
			 "without a CI (a resample of optimized averaged 0), %s",
			 out_fmt_sig(f, sizeof(f), q->value, 3), p);
		return;
	}
	if (!(r->mw.p < 0.05) || (q->lo <= 1 && q->hi >= 1)) {
		snprintf(r->verdict, sizeof(r->verdict), "no significant "
			 "difference: legacy/optimized %s (95%% CI %s–%s), %s",
			 out_fmt_sig(f, sizeof(f), q->value, 3),
			 out_fmt_sig(lo, sizeof(lo), q->lo, 3),
			 out_fmt_sig(hi, sizeof(hi), q->hi, 3), p);
		return;
	}
	legacy_worse = b->lower_is_better ? q->value > 1 : q->value < 1;
	/* Report the larger-than-one side: invert the ratio and its CI. */
	if (q->value < 1) {
		factor = 1 / q->value;
		flo = 1 / q->hi;
		fhi = 1 / q->lo;
	} else {
		factor = q->value;
		flo = q->lo;
		fhi = q->hi;
	}
	snprintf(r->verdict, sizeof(r->verdict),
		 "legacy is %sx %s (95%% CI %s–%s), %s",
		 out_fmt_sig(f, sizeof(f), factor, 3),
		 legacy_worse ? (speed ? "slower" : "worse")
			      : (speed ? "faster" : "better"),
		 out_fmt_sig(lo, sizeof(lo), flo, 3),
		 out_fmt_sig(hi, sizeof(hi), fhi, 3), p);
}

static int compute(const struct bench *b, struct report *r)
{
	int err;

	for (int m = 0; m < 2; m++) {
		r->m[m].v = calloc((size_t)b->done + 1, sizeof(double));
		if (!r->m[m].v)
			return -ENOMEM;
	}
	for (int i = 0; i < b->done; i++) {
		struct mode_stats *ms = &r->m[b->s[i].mode];

		if (!b->s[i].warmup)
			ms->v[ms->n++] = b->s[i].value;
	}
	for (int m = 0; m < 2; m++) {
		err = st_summarize(r->m[m].v, r->m[m].n, &r->m[m].s);
		if (err)
			return err;
	}
	err = st_mann_whitney(r->m[0].v, r->m[0].n, r->m[1].v, r->m[1].n,
			      &r->mw);
	if (err)
		return err;
	r->ratio_err = st_bootstrap_ratio(r->m[0].v, r->m[0].n, r->m[1].v,
					  r->m[1].n, ST_BOOTSTRAP_RESAMPLES,
					  ST_BOOTSTRAP_SEED, 0.95, &r->ratio);
	if (r->ratio_err == -ENOMEM)
		return -ENOMEM;
	verdict(b, r);
	return 0;
}

static bool is_max_counter(const char *name)
{
	size_t n = strlen(name);

	return n >= 4 && !strcmp(name + n - 4, "_max");
}

/*
 * Per counter of one path, over the measured runs of one mode: the mean
 * of the deltas, or the largest value of a maximum.  Runs where the
 * counter was reset (null) do not count.
 */
static void emit_counter_means(const struct bench *b, enum bench_mode m,
			       const char *path)
{
	json_t *seen = json_object(), *cnt, *v;
	const char *name;
	double acc;
	int n;

	for (int i = 0; i < b->done; i++) {
		if (b->s[i].mode != m || b->s[i].warmup)
			continue;
		cnt = json_object_get(b->s[i].counters, path);
		json_object_foreach(cnt, name, v)
			json_object_set_new(seen, name, json_true());
	}
	json_object_foreach(seen, name, v) {
		acc = is_max_counter(name) ? -INFINITY : 0;
		n = 0;
		for (int i = 0; i < b->done; i++) {
			json_t *c;

			if (b->s[i].mode != m || b->s[i].warmup)
				continue;
			c = json_object_get(json_object_get(b->s[i].counters,
							    path), name);
			if (!json_is_integer(c))
				continue;
			if (is_max_counter(name))
				acc = fmax(acc, (double)json_integer_value(c));
			else
				acc += (double)json_integer_value(c);
			n++;
		}
		if (!n)
			out_null(name);
		else {
			acc = is_max_counter(name) ? acc : acc / n;
			/* Counts are usually whole: no ".000" after them. */
			out_real(name, acc, acc == floor(acc) ? 1 : SIG);
		}
	}
	json_decref(seen);
}

static void emit_json(const struct bench *b, const struct report *r)
{
	const struct bench_opts *o = b->o;

	out_string("workload", b->workload_name);
	out_string("path", o->path);
	out_begin_array("paths");
	for (int i = 0; i < b->paths.n; i++)
		out_string(NULL, b->paths.name[i]);
	out_end();
	out_string("metric", b->metric);
	out_string("unit", b->unit);
	out_bool("lower_is_better", b->lower_is_better);
	out_begin_array("args");
	for (int i = 0; i < o->nargs; i++)
		out_string(NULL, o->args[i]);
	out_end();
	out_u64("runs_per_mode", (uint64_t)o->runs);
	out_u64("warmup_per_mode", (uint64_t)o->warmup);
	out_begin_array("order");
	for (int i = 0; i < b->done; i++)
		out_string(NULL, bench_mode_name[b->s[i].mode]);
	out_end();
	out_begin_array("samples");
	for (int i = 0; i < b->done; i++) {
		const struct bench_sample *s = &b->s[i];

		out_begin_object(NULL, OUT_PLAIN);
		out_u64("index", (uint64_t)s->index);
		out_string("mode", bench_mode_name[s->mode]);
		out_bool("warmup", s->warmup);
		out_real("value", s->value, SIG);
		out_jansson("counters", s->counters);
		out_jansson("results", s->results);
		out_end();
	}
	out_end();

	out_begin_object("summary", OUT_PLAIN);
	for (int m = 0; m < 2; m++) {
		const struct st_summary *s = &r->m[m].s;

		out_begin_object(bench_mode_name[m], OUT_PLAIN);
		out_u64("n", s->n);
		out_real("median", s->median, SIG);
		out_real("mean", s->mean, SIG);
		out_real("sd", s->sd, SIG);
		out_begin_array("ci95");
		out_real(NULL, s->ci_lo, SIG);
		out_real(NULL, s->ci_hi, SIG);
		out_end();
		out_real("min", s->min, SIG);
		out_real("max", s->max, SIG);
		out_begin_object("counters_mean", OUT_PLAIN);
		for (int i = 0; i < b->paths.n; i++) {
			out_begin_object(b->paths.name[i], OUT_PLAIN);
			emit_counter_means(b, (enum bench_mode)m,
					   b->paths.name[i]);
			out_end();
		}
		out_end();
		out_end();
	}
	out_begin_object("ratio", OUT_PLAIN);
	out_real("value", r->ratio.value, SIG);
	out_begin_array("ci95");
	out_real(NULL, r->ratio.lo, SIG);
	out_real(NULL, r->ratio.hi, SIG);
	out_end();
	out_string("method", "bootstrap-percentile");
	out_u64("resamples", ST_BOOTSTRAP_RESAMPLES);
	out_u64("seed", ST_BOOTSTRAP_SEED);
	out_end();
	out_begin_object("mann_whitney", OUT_PLAIN);
	out_real("u", r->mw.u, SIG);
	out_real("p", r->mw.p, SIG);
	out_string("method", mw_method(&r->mw));
	out_end();
	out_string("verdict", r->verdict);
	out_end();
}

static void emit_text(const struct bench *b, const struct report *r)
{
	const struct bench_opts *o = b->o;
	char line[512], lo[32], hi[32], p[32];
	size_t used;

	used = (size_t)snprintf(line, sizeof(line), "%s", b->workload_name);
	for (int i = 0; i < o->nargs && used < sizeof(line); i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 " %s", o->args[i]);
	out_string("workload", line);
	out_string("path", o->path);
	snprintf(line, sizeof(line), "%s (%s%s%s is better)", b->metric,
		 b->unit, *b->unit ? ", " : "",
		 b->lower_is_better ? "lower" : "higher");
	out_string("metric", line);
	/* Lower case: warm-ups; upper case: measured. */
	used = 0;
	line[0] = '\0';
	for (int i = 0; i < b->done && used + 4 < sizeof(line); i++)
		used += (size_t)snprintf(line + used, sizeof(line) - used,
					 "%s%c", i ? " " : "",
					 (b->s[i].warmup ? "lo" : "LO")[b->s[i].mode]);
	out_string("order", line);

	out_begin_table("summary", OUT_COLS, "");
	for (int m = 0; m < 2; m++) {
		const struct st_summary *s = &r->m[m].s;

		out_begin_object(bench_mode_name[m], OUT_PLAIN);
		out_u64("n", s->n);
		out_real("median", s->median, SIG);
		out_real("mean", s->mean, SIG);
		snprintf(line, sizeof(line), "%s–%s",
			 out_fmt_sig(lo, sizeof(lo), s->ci_lo, SIG),
			 out_fmt_sig(hi, sizeof(hi), s->ci_hi, SIG));
		out_string("mean 95% CI", line);
		out_real("min", s->min, SIG);
		out_real("max", s->max, SIG);
		out_end();
	}
	out_end();

	out_begin_object("counters per run (mean; *_max: largest)",
			 OUT_PLAIN);
	for (int i = 0; i < b->paths.n; i++) {
		out_begin_table(b->paths.name[i], OUT_COLS, "counter");
		for (int m = 0; m < 2; m++) {
			out_begin_object(bench_mode_name[m], OUT_PLAIN);
			emit_counter_means(b, (enum bench_mode)m,
					   b->paths.name[i]);
			out_end();
		}
		out_end();
	}
	out_end();

	if (!isfinite(r->ratio.value))
		snprintf(line, sizeof(line), "none (an optimized mean of 0)");
	else if (!isfinite(r->ratio.lo) || !isfinite(r->ratio.hi))
		snprintf(line, sizeof(line), "%s (ratio of means; no CI)",
			 out_fmt_sig(p, sizeof(p), r->ratio.value, SIG));
	else
		snprintf(line, sizeof(line), "%s (95%% CI %s–%s; ratio of "
			 "means, percentile bootstrap, %d resamples)",
			 out_fmt_sig(p, sizeof(p), r->ratio.value, SIG),
			 out_fmt_sig(lo, sizeof(lo), r->ratio.lo, SIG),
			 out_fmt_sig(hi, sizeof(hi), r->ratio.hi, SIG),
			 ST_BOOTSTRAP_RESAMPLES);
	out_string("legacy/optimized", line);
	fmt_p(p, sizeof(p), r->mw.p);
	snprintf(line, sizeof(line), "U=%g, %s (two-sided, %s)", r->mw.u, p,
		 r->mw.exact ? "exact" : "normal approximation with tie and "
		 "continuity corrections");
	out_string("Mann-Whitney", line);
	out_string("verdict", r->verdict);
}

/* ---- plot -------------------------------------------------------------- */

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

/*
 * Every run as a point above its mode, spread sideways by a fixed
 * golden-ratio sequence (deterministic, so the same data give the same
 * picture), warm-ups hollow and grey, the median as a bar.  The data go
 * inline as datablocks: nothing to clean up in $TMPDIR.
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
	char title[512];
	bool nonneg = true;
	int k[2] = { 0, 0 }, nwarm = 0;

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

			if ((int)s->mode != m || s->warmup)
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
		if (b->s[i].warmup) {
			fprintf(f, "%d %.17g\n", b->s[i].mode + 1, b->s[i].value);
			nonneg &= b->s[i].value >= 0;
			nwarm++;
		}
	fprintf(f, "EOD\n$median << EOD\n1 %.17g\n2 %.17g\nEOD\n",
		r->m[0].s.median, r->m[1].s.median);
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
	fputs("  $median using ($1-0.25):2:(0.5):(0) with vectors nohead "
	      "lw 2 lc rgb 'black' title 'median'\n", f);
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

int bench_report(const struct bench *b)
{
	struct report r = { 0 };
	int err, ret = 0;

	err = compute(b, &r);
	if (err) {
		abpath_error("computing the statistics: %s", strerror(-err));
		ret = 1;
		goto out;
	}
	out_init(b->o->json);
	if (b->o->json)
		emit_json(b, &r);
	else
		emit_text(b, &r);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	if (!ret && b->o->plot) {
		struct gp_ctx ctx = { b, &r };

		ret = bench_gnuplot(b->o->plot, gp_script, &ctx);
	}
out:
	free(r.m[0].v);
	free(r.m[1].v);
	return ret;
}

json_t *bench_json(const struct bench *b)
{
	struct report r = { 0 };
	json_t *j = NULL;
	int err;

	err = compute(b, &r);
	if (err) {
		abpath_error("computing the statistics: %s", strerror(-err));
	} else {
		out_init(true);
		emit_json(b, &r);
		j = out_take();
	}
	free(r.m[0].v);
	free(r.m[1].v);
	return j;
}
