// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* strsignal */
/*
 * abpath bench: run one workload many times, switching the benched path(s)
 * between legacy and optimized before each run, and record the workload's
 * metric and the module's counter deltas for every run.
 *
 * The modes alternate in ABBA order (L O O L L O O L ...), warm-ups first:
 * a slow drift of the machine (thermal, page cache, a neighbour VM) then
 * adds about equally to both modes instead of biasing the later one.
 * Each run is a child process (child.c) in the mode modes.c sets, judged
 * by the counters and the kernel's log around it.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "internal.h"
#include "../control.h"
#include "../counters.h"
#include "../output.h"

/* More output than this is not a workload report. */
#define BENCH_MAX_OUTPUT	(16 << 20)
/* Of a command's standard error, the start is kept for an error message. */
#define BENCH_KEEP_STDERR	(64 << 10)

enum bench_mode bench_order(int i, int warmup_per_mode)
{
	int k = i < 2 * warmup_per_mode ? i : i - 2 * warmup_per_mode;

	return k % 4 == 0 || k % 4 == 3 ? BENCH_LEGACY : BENCH_OPTIMIZED;
}

/* A failed run's standard error: kept, or already shown (--show-output). */
static void show_child_stderr(const struct bench_opts *o, const char *text)
{
	if (o->show_output)
		fputs("  (above, with --show-output)\n", stderr);
	else
		bench_show_stderr(text);
}

/* Check the report and take what the bench needs from it. */
static int take_report(struct bench *b, const char *what,
		       struct bench_buf *out, struct bench_buf *err,
		       struct bench_sample *smp)
{
	json_t *rep, *v, *passed;
	json_error_t jerr;

	rep = json_loadb(out->p ? out->p : "", out->n, 0, &jerr);
	v = rep ? json_object_get(rep, "value") : NULL;
	if (!json_is_object(rep) || !json_is_number(v)) {
		abpath_error("%s: %s printed no JSON report with a \"value\" "
			     "(%s); is it an abpath workload? Its standard "
			     "error:", what, b->o->workload,
			     rep ? "not an object with a number \"value\""
				 : jerr.text);
		bench_show_stderr(err->p);
		json_decref(rep);
		return 1;
	}
	passed = json_object_get(json_object_get(rep, "checks"), "passed");
	if (!json_is_true(passed)) {
		abpath_error("%s: %s reported a failed check (checks.passed "
			     "is %s); its standard error:", what,
			     b->o->workload, passed ? "false" : "missing");
		bench_show_stderr(err->p);
		json_decref(rep);
		return 1;
	}
	smp->value = json_number_value(v);
	smp->results = json_incref(json_object_get(rep, "results"));
	if (!b->metric) {
		const char *name = json_string_value(json_object_get(rep, "workload"));
		const char *metric = json_string_value(json_object_get(rep, "metric"));
		const char *unit = json_string_value(json_object_get(rep, "unit"));

		b->workload_name = strdup(name ? name : b->o->workload);
		b->metric = strdup(metric ? metric : "value");
		b->unit = strdup(unit ? unit : "");
		if (!b->workload_name || !b->metric || !b->unit) {
			abpath_error("out of memory");
			json_decref(smp->results);
			json_decref(rep);
			return 1;
		}
		/* A workload that does not say is taken to time something. */
		v = json_object_get(rep, "lower_is_better");
		b->lower_is_better = !json_is_false(v);
	}
	json_decref(rep);
	return 0;
}

/*
 * --prepare's command, in the mode of the run it prepares (it may warm a
 * cache the run then finds): 0, or 1 after saying why.
 */
static int run_prepare(const struct bench *b, const char *what)
{
	char *argv[] = { "/bin/sh", "-c", (char *)b->o->prepare, NULL };
	struct bench_child c = { argv, false, false, false };
	struct bench_buf out = { .fd = -1, .max = 1, .discard = true };
	struct bench_buf err = { .fd = -1, .max = BENCH_KEEP_STDERR,
				  .discard = true };
	struct rusage ru;
	double wall;
	int ret, status;

	ret = bench_spawn(&c, &out, &err, &status, &ru, &wall);
	if (!ret && !bench_stopping() &&
	    (!WIFEXITED(status) || WEXITSTATUS(status))) {
		abpath_error("%s: --prepare '%s' %s %d; its standard error:",
			     what, b->o->prepare,
			     WIFEXITED(status) ? "exited with status"
					       : "was killed by signal",
			     WIFEXITED(status) ? WEXITSTATUS(status)
					       : WTERMSIG(status));
		bench_show_stderr(err.p);
		ret = 1;
	}
	free(out.p);
	free(err.p);
	return ret;
}

/*
 * A command's measurement: the wall time is the metric; user and system
 * time come from wait4, which counts the descendants the command waited
 * for (sh -c's children included).
 */
static int take_times(struct bench *b, double wall, const struct rusage *ru,
		      int status, struct bench_sample *smp)
{
	double user = (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	double sys = (double)ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;

	smp->value = wall;
	/* exit_status is null for a signal death, signal null otherwise. */
	smp->results = json_pack("{s:f, s:f, s:f, s:f, s:I, s:o, s:o}",
				 "wall_s", wall, "user_s", user, "sys_s", sys,
				 "cpu_s", user + sys, "max_rss_kb",
				 (json_int_t)ru->ru_maxrss, "exit_status",
				 WIFEXITED(status) ?
				 json_integer(WEXITSTATUS(status)) : json_null(),
				 "signal", WIFSIGNALED(status) ?
				 json_integer(WTERMSIG(status)) : json_null());
	if (!b->metric) {
		b->workload_name = strdup("command");
		b->metric = strdup("wall");
		b->unit = strdup("s");
		b->lower_is_better = true;
	}
	if (!smp->results || !b->workload_name || !b->metric || !b->unit) {
		abpath_error("out of memory");
		return 1;
	}
	return 0;
}

/* "run 3 of 14 (optimized); last 1.23 ms, about 40 s left" */
static void progress(const struct bench *b, const char *what, double spent)
{
	char last[32] = "", left[64] = "";

	if (b->done) {
		const struct bench_sample *s = &b->s[b->done - 1];
		int runs = b->done;	/* runs end with a sample or the bench */
		double eta = spent / runs * (b->total - runs);

		out_fmt_sig(last, sizeof(last), s->value, 3);
		snprintf(left, sizeof(left), eta < 90 ? "%.0f s" : "%.0f min",
			 eta < 90 ? eta : eta / 60);
		fprintf(stderr, "abpath: bench: %s; last %s%s%s, %s %s "
			"left\n", what, last, *b->unit ? " " : "", b->unit,
			b->o->adaptive ? "at most" : "about", left);
	} else {
		fprintf(stderr, "abpath: bench: %s\n", what);
	}
}

/*
 * A marker and what came before it, or false when the log cannot be read
 * (any more): then the runs from here on are not judged by it, and the
 * result says so instead of "read around every run".
 */
static bool log_mark(struct bench *b, struct kmsg_reports *r,
		     const char *what, const char *end)
{
	bool was_open = b->kmsg.open;

	if (!kmsg_mark(&b->kmsg, r, NULL, "%s %s", what, end))
		return true;
	if (was_open) {
		abpath_warn("%s: the kernel's log: %s; the runs from here on "
			    "are not checked for kernel reports", what,
			    strerror(b->kmsg.err));
		json_object_set_new(b->provenance, "kernel_log",
				    json_sprintf("read until %s: %s", what,
						 strerror(b->kmsg.err)));
		kmsg_close(&b->kmsg);
	}
	return false;
}

/*
 * Adds what the log held during @what (a run in mode @m, or the time
 * after one) to the run's sample: 0, or 1 after saying that the kernel
 * reported a problem, which fails the run.  Only RCU stall reports in
 * which no CPU stalled, during or right after a legacy run, are the
 * legacy arm's doing (kmsg.h); they are kept with the sample, said on
 * stderr, and named in the log for tests/vm/run.
 */
static int judge_reports(struct bench *b, const struct kmsg_reports *r,
			 int m, const char *what, struct bench_sample *smp)
{
	json_int_t n;

	if (!kmsg_any(r))
		return 0;
	if (m != BENCH_LEGACY || !kmsg_only_starved(r)) {
		if (r->lost)
			abpath_error("%s: the kernel's log overflowed before "
				     "abpath read it, so its reports cannot "
				     "be told apart; see dmesg", what);
		else
			abpath_error("%s: the kernel reported a problem "
				     "(dmesg from %.6f s): %s", what,
				     r->t_first, r->other ? r->first :
				     r->starved < r->stalls ?
				     "an RCU stall naming a stalled CPU" :
				     "an RCU stall with no CPU stalled, "
				     "outside a legacy run");
		return 1;
	}
	fprintf(stderr, "abpath: bench: %s: the kernel reported %d RCU "
		"stall%s (dmesg %.6f-%.6f s) with every CPU's quiescent state "
		"seen: the legacy arm left the grace-period kthread no CPU "
		"time, which is its collapse, not a CPU stuck; kept with the "
		"run\n", what, r->stalls, r->stalls == 1 ? "" : "s",
		r->t_first, r->t_last);
	kmsg_mark(&b->kmsg, NULL, NULL, "collapse reports %.6f-%.6f: %d RCU "
		  "stall%s, no CPU stalled, in %s", r->t_first, r->t_last,
		  r->stalls, r->stalls == 1 ? "" : "s", what);
	if (!smp)
		return 0;
	if (!smp->kernel_reports) {
		smp->kernel_reports = json_pack("{s:I, s:f}",
						"rcu_stalls_starved",
						(json_int_t)0, "from_s",
						r->t_first);
		if (!smp->kernel_reports) {
			abpath_error("out of memory");
			return 1;
		}
	}
	n = json_integer_value(json_object_get(smp->kernel_reports,
					       "rcu_stalls_starved"));
	json_object_set_new(smp->kernel_reports, "rcu_stalls_starved",
			    json_integer(n + r->stalls));
	json_object_set_new(smp->kernel_reports, "to_s", json_real(r->t_last));
	return 0;
}

/*
 * The mode of each benched path in run i into m[], and the run's
 * replicate and cell; returns the run's mode, legacy when any path is
 * (its legacy arm may starve RCU, judge_reports()).  A single bench's
 * paths all take bench_order()'s mode; a factorial's measured runs
 * follow its plan, its warm-ups alternate all legacy and all optimized.
 */
static enum bench_mode run_modes(const struct bench *b, int i,
				 enum bench_mode *m, int *block,
				 unsigned *cell)
{
	const struct bench_opts *o = b->o;
	enum bench_mode all = bench_order(i, o->warmup);
	int j = i - 2 * o->warmup;

	*block = -1;
	*cell = all == BENCH_LEGACY ? (1u << b->paths.n) - 1 : 0;
	if (b->plan && j >= 0) {
		*block = j >> o->fac_k;
		*cell = b->plan[j];
	}
	for (int p = 0; p < b->paths.n; p++)
		m[p] = *cell & (1u << p) ? BENCH_LEGACY : BENCH_OPTIMIZED;
	return *cell ? BENCH_LEGACY : BENCH_OPTIMIZED;
}

/* "legacy", "optimized", or a factorial's "legacy: P, Q". */
static const char *run_mode_words(const struct bench *b, unsigned cell,
				  char *buf, size_t len)
{
	size_t n;

	if (!cell || cell == (1u << b->paths.n) - 1 || !b->plan)
		return bench_mode_name[cell ? BENCH_LEGACY : BENCH_OPTIMIZED];
	n = (size_t)snprintf(buf, len, "legacy:");
	for (int p = 0; p < b->paths.n && n < len; p++)
		if (cell & (1u << p))
			n += (size_t)snprintf(buf + n, len - n, "%s %s",
					      n > 7 ? "," : "",
					      b->paths.name[p]);
	return buf;
}

static int run_one(struct bench *b, int i, double spent)
{
	struct bench_sample *smp = &b->s[b->done];
	struct counter_set before = { 0 }, after = { 0 };
	struct bench_buf out = { .fd = -1, .max = BENCH_MAX_OUTPUT };
	struct bench_buf err = { .fd = -1, .max = BENCH_MAX_OUTPUT };
	enum bench_mode modes[CTL_MAX_PATHS], m;
	const struct bench_opts *o = b->o;
	char what[512], words[320], **argv = NULL;
	struct bench_child c = { o->args, true, false, o->show_output };
	const char *name = o->command ? o->args[0] : o->workload;
	struct kmsg_reports gap = { 0 }, during = { 0 };
	struct rusage ru;
	double wall;
	int ret, status, block;
	unsigned cell;

	m = run_modes(b, i, modes, &block, &cell);
	json_decref(smp->kernel_reports);
	smp->kernel_reports = NULL;
	smp->invalid[0] = '\0';
	snprintf(what, sizeof(what), "%s%srun %d of %d (%s%s)",
		 o->label ? o->label : "", o->label ? ": " : "",
		 i + 1, b->total, run_mode_words(b, cell, words, sizeof(words)),
		 i < 2 * o->warmup ? ", warm-up" : "");
	progress(b, what, spent);
	if (o->command) {
		/* Only its errors matter: the start is enough to show. */
		err.max = BENCH_KEEP_STDERR;
		err.discard = true;
	} else {
		/* -j first: after the user's arguments it could follow "--". */
		argv = calloc((size_t)o->nargs + 3, sizeof(*argv));
		if (!argv) {
			abpath_error("out of memory");
			return 1;
		}
		argv[0] = (char *)o->exe;
		argv[1] = "-j";
		memcpy(argv + 2, o->args, (size_t)o->nargs * sizeof(*argv));
		c = (struct bench_child){ argv, false, true, false };
	}
	ret = bench_modes_set(&b->paths, modes);
	/* A factorial's other paths: held where they were, every run. */
	if (!ret && b->others.n)
		ret = bench_modes_set(&b->others, b->others_mode);
	if (!ret && o->prepare)
		ret = run_prepare(b, what);
	if (!ret && !bench_stopping())
		ret = counters_read(&before);
	/* What came since the last run belongs to it (or to none). */
	if (!ret && !bench_stopping() &&
	    log_mark(b, &gap, what, "begins"))
		ret = judge_reports(b, &gap, b->last_mode, "between runs",
				    b->done ? &b->s[b->done - 1] : NULL);
	if (!ret && !bench_stopping())
		ret = bench_spawn(&c, &out, &err, &status, &ru, &wall);
	/*
	 * Ctrl-C reaches the workload too; if it died of it before our own
	 * signal got in, this is an interruption, not a failed run.
	 */
	bench_signals_poll();
	if (ret || bench_stopping())
		goto out;
	b->last_mode = m;
	if (log_mark(b, &during, what, "ends"))
		ret = judge_reports(b, &during, m, what, smp);
	if (ret)
		goto out;
	ret = counters_read(&after);
	if (ret)
		goto out;
	bench_judge_modes(&b->paths, modes, &before, &after, smp->invalid,
			  sizeof(smp->invalid));
	/* A factorial's other paths: held, and checked as its own are. */
	if (!smp->invalid[0] && b->others.n)
		bench_judge_modes(&b->others, b->others_mode, &before, &after,
				  smp->invalid, sizeof(smp->invalid));
	if (o->ignore_failure && (WIFSIGNALED(status) || WEXITSTATUS(status))) {
		/* Kept, and said: a failure the user chose to measure. */
		fprintf(stderr, "abpath: bench: %s: %s %s %d; going on "
			"(--ignore-failure)\n", what, name,
			WIFSIGNALED(status) ? "was killed by signal"
					    : "exited with status",
			WIFSIGNALED(status) ? WTERMSIG(status)
					    : WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		abpath_error("%s: %s was killed by signal %d (%s); its "
			     "standard error:", what, name,
			     WTERMSIG(status), strsignal(WTERMSIG(status)));
		show_child_stderr(o, err.p);
		ret = 1;
		goto out;
	} else if (WEXITSTATUS(status)) {
		abpath_error("%s: %s exited with status %d; its standard "
			     "error:", what, name, WEXITSTATUS(status));
		show_child_stderr(o, err.p);
		if (o->command)
			fputs("  (to time a command that fails, add "
			      "--ignore-failure)\n", stderr);
		ret = 1;
		goto out;
	}
	if (o->command) {
		ret = take_times(b, wall, &ru, status, smp);
	} else {
		ret = take_report(b, what, &out, &err, smp);
		/* A successful run's warnings still belong to the user. */
		if (!ret && err.n)
			fputs(err.p, stderr);
	}
	if (ret)
		goto out;
	smp->index = i + 1;
	smp->mode = m;
	smp->block = block;
	smp->cell = cell;
	smp->warmup = i < 2 * o->warmup;
	smp->counters = bench_counter_deltas_modes(&b->paths, modes, &before,
						   &after);
	b->done++;
	if (smp->invalid[0])
		fprintf(stderr, "abpath: bench: %s is invalid, left out of "
			"the statistics: %s\n", what, smp->invalid);
out:
	counters_free(&before);
	counters_free(&after);
	free(argv);
	free(out.p);
	free(err.p);
	return ret;
}

/* ---- the bench --------------------------------------------------------- */

int bench_prepare(struct bench *b, const struct bench_opts *o)
{
	struct counter_set probe = { 0 };
	int ret;

	*b = (struct bench){ .o = o, .last_mode = -1 };
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	if (o->factorial) {
		b->paths.n = o->fac_k;
		for (int i = 0; i < o->fac_k; i++)
			ctl_copy(b->paths.name[i], CTL_NAME_MAX,
				 o->fac_path[i]);
	} else if (!strcmp(o->path, "all")) {
		ctl_path_names(&b->paths);
	} else {
		b->paths.n = 1;
		ctl_copy(b->paths.name[0], CTL_NAME_MAX, o->path);
	}
	/* Fail on a missing debugfs now, not after the first run. */
	ret = counters_read(&probe);
	counters_free(&probe);
	if (ret)
		return ret;

	kmsg_open(&b->kmsg);
	b->total = o->factorial ? 2 * o->warmup + (o->runs << o->fac_k) :
		   2 * (o->warmup + o->runs);
	b->slots = b->total;
	b->s = calloc((size_t)b->slots, sizeof(*b->s));
	b->provenance = bench_provenance();
	if (!b->s || !b->provenance) {
		kmsg_close(&b->kmsg);
		abpath_error("out of memory");
		return 1;
	}
	/* Whether a run's kernel reports were looked at, and if not why. */
	if (b->kmsg.open)
		json_object_set_new(b->provenance, "kernel_log",
				    json_string("read around every run"));
	else
		json_object_set_new(b->provenance, "kernel_log",
				    json_sprintf("unread: %s: %s", kmsg_path(),
						 strerror(b->kmsg.err)));
	return 0;
}

int bench_collect(struct bench *b)
{
	double t0 = bench_now();
	int ret, i, sig;

	bench_signals_begin();
	ret = bench_modes_save(&b->paths);
	for (i = 0; !ret && i < b->total; i++) {
		bench_signals_poll();
		if (bench_stopping())
			break;
		ret = run_one(b, i, bench_now() - t0);
		if (bench_stopping())
			break;
		/* --runs auto: after a block, the rule may stop here. */
		if (!ret && b->o->adaptive && bench_rule_stops(b))
			break;
	}
	b->restore_err = bench_modes_restore();
	bench_signals_end();
	/* The kernel's log is read around runs only: the result needs none. */
	kmsg_close(&b->kmsg);

	/* Still inside bench_run()'s hold: let a pending request count. */
	sig = bench_stop_signal();
	if (sig) {
		fprintf(stderr, "abpath: bench: interrupted by %s in %s%srun %d "
			"of %d", bench_signal_name(sig),
			b->o->label ? b->o->label : "", b->o->label ? ", " : "",
			i < b->total ? i + 1 : b->total, b->total);
		if (!b->restore_err)
			bench_modes_say_restored(stderr);
		fputc('\n', stderr);
		b->stop_sig = sig;
		b->incomplete = true;
		ret = 128 + sig;
	}
	return ret;
}
