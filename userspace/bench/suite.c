// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench --suite history: the historical experiments, one per path
 * plus sleep-loop, each a sweep of bench points over one parameter.  A
 * point is an ordinary bench (same ABBA order, counters and statistics:
 * bench_prepare/bench_collect/bench_json, in this process), and keeps the
 * whole 'abpath bench -j' object, so that every number in the tables can
 * be traced back to its runs and recomputed with --from.
 *
 * Output: a JSON object per experiment
 *   {schema, provenance, experiment, path, workload, metric, unit,
 *    lower_is_better, param_name, title, reproduces, cpus, kernel,
 *    args_template, runs_per_mode, warmup_per_mode, adaptive,
 *    points: [{param, args: [...], bench: {abpath bench -j}}], elapsed_s}
 * written to DIR/<experiment>.json with --out, and all of them in
 *   {schema, provenance, suite: "history", version, kernel, cpus, quick,
 *    runs_per_mode, warmup_per_mode, adaptive, complete, experiments: [...]}
 * With --runs auto (adaptive) each point stops by the rule (adaptive.c)
 * and runs_per_mode is its cap.
 * (DIR/history.json); standard output gets the tables of tables.c, as
 * Markdown, or with -j the history with the same tables in it
 * ("tables": every cell's text and the numbers it shows).
 */
#define _GNU_SOURCE	/* strchrnul */
#include <errno.h>
#include <signal.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "experiments.h"
#include "../atomic.h"
#include "../output.h"


const char *bench_suite_check(const char *name)
{
	return strcmp(name, "history") ? "the only one is "
		"'history'" : NULL;
}

/* Whether @path is a word of the comma-separated @list (NULL: all). */
static bool path_selected(const char *list, const char *path)
{
	size_t len = strlen(path);

	const char *end;

	if (!list || !strcmp(list, "all"))
		return true;
	for (const char *w = list; ; w = end + 1) {
		end = strchrnul(w, ',');
		if ((size_t)(end - w) == len && !strncmp(w, path, len))
			return true;
		if (!*end)
			return false;
	}
}

const char *bench_suite_path_check(const char *list, const char **bad)
{
	static char word[64];
	const char *w = list, *end;

	for (;;) {
		bool found = false;
		size_t len;

		end = strchrnul(w, ',');
		len = (size_t)(end - w);
		if (!len) {
			*bad = "";
			return "an empty name in the list";
		}
		if (len >= sizeof(word)) {
			*bad = list;
			return "no path has so long a name";
		}
		memcpy(word, w, len);
		word[len] = '\0';
		*bad = word;
		if (!strcmp(word, "all")) {
			if (w != list || *end)
				return "'all' stands alone, not in a list";
			return NULL;
		}
		for (int i = 0; i < suite_nr_history && !found; i++)
			found = !strcmp(suite_history[i].path, word);
		if (!found)
			return "no experiment of the history suite switches it";
		if (!*end)
			return NULL;
		w = end + 1;
	}
}

/* ---- running ----------------------------------------------------------- */

struct suite_run {
	const struct bench_opts *o;
	int runs, warmup;	/* with --runs auto, runs is the cap */
	struct seq_rule seq;
	json_t *history;
};

/* The workload's arguments: the template's words, "@" the parameter. */
static char **make_args(const char *tmpl, const char *param, int *n)
{
	char *copy = strdup(tmpl), *save = NULL, *w;
	char **argv = calloc(strlen(tmpl) + 2, sizeof(*argv));

	*n = 0;
	if (!copy || !argv) {
		free(copy);
		free(argv);
		return NULL;
	}
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		if (!(argv[(*n)++] = strdup(strcmp(w, "@") ? w : param)))
			break;
	free(copy);
	return argv;
}

static void free_args(char **argv, int n)
{
	for (int i = 0; argv && i < n; i++)
		free(argv[i]);
	free(argv);
}

static int mkdir_p(const char *dir)
{
	char buf[4096], *p;

	if (!*dir)
		return -ENOENT;
	ctl_copy(buf, sizeof(buf), dir);
	for (p = buf + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	return 0;
}

static int write_json(const char *dir, const char *name, json_t *j)
{
	struct atomic_file a;
	char file[4096];
	int bad;

	snprintf(file, sizeof(file), "%s/%s.json", dir, name);
	if (atomic_open(&a, file))
		return 1;
	bad = json_dumpf(j, a.f, JSON_COMPACT | JSON_REAL_PRECISION(15)) < 0;
	fputc('\n', a.f);
	return atomic_commit(&a, bad);
}

/* Checked before the first run, not after an hour of them. */
static int check_workloads(const char *paths)
{
	char exe[4096];
	int err;

	for (int i = 0; i < suite_nr_history; i++) {
		if (!path_selected(paths, suite_history[i].path))
			continue;
		snprintf(exe, sizeof(exe), "%s/%s", bench_workload_dir(),
			 suite_history[i].workload);
		if (!access(exe, X_OK))
			continue;
		err = errno;
		if (access(bench_workload_dir(), F_OK))
			return bench_no_workload_dir();
		abpath_error("%s: %s; install the workloads (the Debian "
			     "package, or 'make -C userspace/workloads "
			     "install' from a clone) or set ABPATH_WORKLOAD_DIR", exe, strerror(err));
		return 1;
	}
	return 0;
}

static json_t *new_experiment(const struct suite_run *sr,
			      const struct suite_exp *e)
{
	return json_pack("{s:s, s:O, s:s, s:s, s:s, s:s, s:s, s:b, s:s, s:s,"
			 " s:s, s:O, s:O, s:s, s:i, s:i, s:[]}",
			 "schema", sr->o->adaptive ? BENCH_SCHEMA_ADAPTIVE
						   : BENCH_SCHEMA,
			 "provenance", json_object_get(sr->history, "provenance"),
			 "experiment", e->id, "path", e->path,
			 "workload", e->workload, "metric", e->metric,
			 "unit", e->unit, "lower_is_better", e->lower_is_better,
			 "param_name", e->param_name, "title", e->title,
			 "reproduces", e->reproduces,
			 "cpus", json_object_get(sr->history, "cpus"),
			 "kernel", json_object_get(sr->history, "kernel"),
			 "args_template", sr->o->quick ? e->quick_args : e->args,
			 "runs_per_mode", sr->runs,
			 "warmup_per_mode", sr->warmup, "points");
}

/* --runs auto: the experiment's runs_per_mode is the cap. */
static json_t *with_mode(const struct suite_run *sr, json_t *j)
{
	if (j && json_object_set_new(j, "adaptive",
				     json_boolean(sr->o->adaptive))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* One point: a whole bench, appended to the experiment's points. */
static int run_point(const struct suite_run *sr, const struct suite_exp *e,
		     const char *param, int k, int npoints, json_t *exp)
{
	struct bench_opts bo = {
		.workload = e->workload, .path = e->path, .runs = sr->runs,
		.warmup = sr->warmup, .adaptive = sr->o->adaptive,
		.seq = sr->seq,
	};
	char exe[4096], label[256];
	json_t *bj = NULL, *args;
	struct bench b;
	int ret;

	bo.args = make_args(sr->o->quick ? e->quick_args : e->args, param,
			    &bo.nargs);
	if (!bo.args) {
		abpath_error("out of memory");
		return 1;
	}
	snprintf(exe, sizeof(exe), "%s/%s", bench_workload_dir(), e->workload);
	snprintf(label, sizeof(label), "%s, %s %s (%d/%d)", e->id,
		 e->param_name, param, k + 1, npoints);
	bo.exe = exe;
	bo.label = label;
	ret = bench_prepare(&b, &bo);
	if (!ret)
		ret = bench_collect(&b);
	if (!ret)
		ret = b.restore_err;
	if (!ret && !(bj = bench_json(&b)))
		ret = 1;
	if (!ret) {
		args = json_array();
		for (int i = 0; i < bo.nargs; i++)
			json_array_append_new(args, json_string(bo.args[i]));
		json_array_append_new(json_object_get(exp, "points"),
			json_pack("{s:o, s:o, s:o}", "param", e->numeric ?
				  json_integer(strtoll(param, NULL, 10)) :
				  json_string(param), "args", args,
				  "bench", bj));
	}
	bench_free(&b);
	free_args(bo.args, bo.nargs);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * "paths": those whose experiments run (--path, in the suite's order), so
 * that a result of part of the suite says so.  Consumes @h.
 */
static json_t *with_paths(const char *list, json_t *h)
{
	json_t *a = json_array(), *last;
	int bad = !a;

	for (int i = 0; !bad && i < suite_nr_history; i++) {
		const char *p = suite_history[i].path;

		last = json_array_get(a, json_array_size(a) - 1);
		if (path_selected(list, p) &&
		    !(last && !strcmp(json_string_value(last), p)))
			bad = json_array_append_new(a, json_string(p));
	}
	if (bad || !h) {
		json_decref(a);
		json_decref(h);
		return NULL;
	}
	/* json_object_set_new() drops @a when it fails. */
	if (json_object_set_new(h, "paths", a)) {
		json_decref(h);
		return NULL;
	}
	return h;
}

static int run_all(struct suite_run *sr)
{
	const struct bench_opts *o = sr->o;
	json_t *exps = json_object_get(sr->history, "experiments");
	int ret = 0, nsel = 0, sel = 0;

	for (int i = 0; i < suite_nr_history; i++)
		nsel += path_selected(o->path, suite_history[i].path);
	for (int i = 0; !ret && i < suite_nr_history; i++) {
		const struct suite_exp *e = &suite_history[i];
		const char *const *params = o->quick ? e->quick_params
						     : e->params;
		json_t *exp;
		double t0 = now_s(), took;
		int n = 0;

		if (!path_selected(o->path, e->path))
			continue;
		exp = with_mode(sr, new_experiment(sr, e));
		while (n < SUITE_MAX_POINTS && params[n])
			n++;
		if (!exp || json_array_append_new(exps, exp)) {
			abpath_error("out of memory");
			return 1;
		}
		fprintf(stderr, "abpath: suite: experiment %d of %d: %s (%s, "
			"path %s), %d points\n", ++sel, nsel,
			e->id, e->workload, e->path, n);
		for (int k = 0; !ret && k < n; k++)
			ret = run_point(sr, e, params[k], k, n, exp);
		/* What sizing the next suite needs: the time each one took. */
		took = now_s() - t0;
		json_object_set_new(exp, "elapsed_s", json_real(took));
		if (!ret)
			fprintf(stderr, "abpath: suite: %s took %.0f s\n",
				e->id, took);
		if (!ret && o->out)
			ret = write_json(o->out, e->id, exp);
	}
	return ret;
}

int bench_suite(const struct bench_opts *o)
{
	struct suite_run sr = { .o = o };
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int ret, err, sig;

	sr.runs = o->runs_given ? o->runs : o->quick ? SUITE_QUICK_RUNS
						     : SUITE_DEFAULT_RUNS;
	sr.seq = o->seq;
	if (o->adaptive) {
		if (!o->max_runs_given)
			sr.seq.cap = o->quick ? SUITE_QUICK_AUTO_CAP
					      : SUITE_AUTO_CAP;
		sr.runs = sr.seq.cap;
	}
	sr.warmup = o->warmup_given ? o->warmup : BENCH_DEFAULT_WARMUP;
	if (o->plot && !bench_find_gnuplot()) {
		abpath_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
		return 1;
	}
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	if (check_workloads(o->path))
		return 1;
	if (o->out && (err = mkdir_p(o->out))) {
		abpath_error("cannot create %s: %s", o->out, strerror(-err));
		return 1;
	}
	if (uname(&u))
		u.release[0] = '\0';
	sr.history = json_pack("{s:s, s:o*, s:s, s:s, s:s, s:i, s:b, s:i, s:i,"
			       " s:b, s:[]}",
			       "schema", o->adaptive ? BENCH_SCHEMA_ADAPTIVE
						     : BENCH_SCHEMA,
			       "provenance", bench_provenance(),
			       "suite", o->suite, "version", ABPATH_VERSION,
			       "kernel", u.release, "cpus", (int)cpus,
			       "quick", o->quick, "runs_per_mode", sr.runs,
			       "warmup_per_mode", sr.warmup, "complete", 0,
			       "experiments");
	sr.history = with_mode(&sr, with_paths(o->path, sr.history));
	if (!sr.history) {
		abpath_error("out of memory");
		return 1;
	}

	/*
	 * Held until history.json, the tables and the plots are out: a stop
	 * request then costs nothing written, and is acted on after.
	 */
	bench_signals_begin();
	ret = run_all(&sr);
	sig = bench_stop_signal();
	if (!ret && sig) {
		fprintf(stderr, "abpath: suite: interrupted by %s after the "
			"last run\n", bench_signal_name(sig));
		ret = 128 + sig;
	}
	json_object_set_new(sr.history, "complete", json_boolean(!ret));
	if (o->out) {
		if (write_json(o->out, "history", sr.history))
			ret = ret ? ret : 1;
		else if (ret)
			fprintf(stderr, "abpath: suite: stopped; the points "
				"done so far are in %s/history.json (complete: "
				"false)\n", o->out);
	}
	if (!ret) {
		ret = suite_report(stdout, sr.history, sr.history, o->json);
		if (fflush(stdout) == EOF || ferror(stdout)) {
			abpath_error("writing to standard output: %s",
				     strerror(errno));
			ret = 1;
		}
	}
	if (!ret && o->plot)
		ret = suite_plot(sr.history, o->plot);
	json_decref(sr.history);
	bench_signals_end();
	if (sig && ret == 128 + sig)
		return bench_reraise(sig);
	/* A request that came once the suite was done: done, then stop. */
	if (!sig && !ret && bench_stopping())
		return bench_reraise(bench_stopping());
	return ret;
}
