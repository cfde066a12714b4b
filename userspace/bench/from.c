// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench --from FILE: report a result saved earlier, without
 * running anything and without the module, so that a machine without
 * gnuplot (the test VM) can save JSON and another one draw the plots.
 *
 * FILE is one of:
 *   - what 'abpath bench -j' printed: the same report as the bench gave
 *     (text, or the JSON again, normalized, with -j), and --plot;
 *   - what 'abpath bench --suite' wrote: history.json ("experiments") or
 *     one DIR/<experiment>.json ("points"): the Markdown tables, or the
 *     JSON again with -j, and with --plot one plot per experiment.
 * "-" reads standard input.
 *
 * The statistics of a bench result are computed again from its samples,
 * so the summary in the file is not trusted, only the raw runs.  A file
 * of another schema (BENCH_SCHEMA) is refused: its numbers meant
 * something else.  The provenance is this file's too: where a result was
 * measured travels with it.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "../output.h"

static int bad(const char *what, const char *why)
{
	abpath_error("%s: not an abpath bench result: %s", what, why);
	return 1;
}

/*
 * 0 if j is of a schema this abpath reads, else 1 after the error.  A
 * file without "schema" is version 1: its runs are the same, only its
 * summary (recomputed here anyway) and its provenance are missing.
 */
static int check_schema(json_t *j, const char *what)
{
	const char *schema = json_string_value(json_object_get(j, "schema"));

	if (!json_object_get(j, "schema") ||
	    (schema && (!strcmp(schema, BENCH_SCHEMA) ||
			!strcmp(schema, BENCH_SCHEMA_ADAPTIVE) ||
			!strcmp(schema, "abpath-bench/2") ||
			!strcmp(schema, "abpath-bench/1"))))
		return 0;
	abpath_error("%s: schema %s is not one this abpath (%s) reads: "
		     "abpath-bench/1, abpath-bench/2, %s or %s", what,
		     schema ? schema : "(not a string)", ABPATH_VERSION,
		     BENCH_SCHEMA, BENCH_SCHEMA_ADAPTIVE);
	return 1;
}

static char *dup_str(json_t *j, const char *key, const char *dflt)
{
	const char *v = json_string_value(json_object_get(j, key));

	return strdup(v ? v : dflt);
}

static int get_count(json_t *j, const char *key, int *val)
{
	json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 1000000)
		return -1;
	*val = (int)json_integer_value(v);
	return 0;
}

static int load_sample(json_t *js, int i, struct bench_sample *s)
{
	const char *mode = json_string_value(json_object_get(js, "mode"));
	json_t *v = json_object_get(js, "value");
	json_t *idx = json_object_get(js, "index");

	if (!json_is_object(js) || !mode || !json_is_number(v))
		return -1;
	if (!strcmp(mode, bench_mode_name[BENCH_LEGACY]))
		s->mode = BENCH_LEGACY;
	else if (!strcmp(mode, bench_mode_name[BENCH_OPTIMIZED]))
		s->mode = BENCH_OPTIMIZED;
	else
		return -1;
	s->index = json_is_integer(idx) ? (int)json_integer_value(idx) : i + 1;
	s->warmup = json_is_true(json_object_get(js, "warmup"));
	s->value = json_number_value(v);
	s->counters = json_incref(json_object_get(js, "counters"));
	if (!s->counters)
		s->counters = json_object();
	s->results = json_incref(json_object_get(js, "results"));
	s->kernel_reports = json_incref(json_object_get(js, "kernel_reports"));
	/* Schema 3: left out of the statistics, as when it ran. */
	ctl_copy(s->invalid, sizeof(s->invalid),
		 json_string_value(json_object_get(js, "invalid")) ?: "");
	return 0;
}

/*
 * An adaptive bench's rule, from its "sequential": 0, 1 after the error.
 * Its looks are not read: the report derives them again from the runs.
 */
static int load_rule(json_t *seq, const char *what, struct bench_opts *o)
{
	struct seq_rule *r = &o->seq;
	json_t *prec = json_object_get(seq, "precision");
	const char *why;
	int first, cap;

	if (!json_is_object(seq) ||
	    !json_is_number(json_object_get(seq, "alpha")) ||
	    !json_is_number(json_object_get(seq, "gamma")) ||
	    !json_is_number(json_object_get(seq, "margin")) ||
	    !(json_is_number(prec) || json_is_null(prec)) ||
	    get_count(seq, "first_look_runs", &first) ||
	    get_count(seq, "cap_runs", &cap))
		return bad(what, "\"sequential\" lacks the rule's alpha, gamma, "
			   "first_look_runs, cap_runs, margin or precision");
	*r = (struct seq_rule){
		.alpha = json_number_value(json_object_get(seq, "alpha")),
		.gamma = json_number_value(json_object_get(seq, "gamma")),
		.first = first, .cap = cap,
		.margin = json_number_value(json_object_get(seq, "margin")),
		.precision = json_is_number(prec) ? json_number_value(prec) : 0,
	};
	why = seq_rule_check(r);
	if (why)
		return bad(what, why);
	o->adaptive = true;
	return 0;
}

int bench_load(json_t *j, const char *what, struct bench *b,
	       struct bench_opts *o)
{
	json_t *samples = json_object_get(j, "samples");
	json_t *paths = json_object_get(j, "paths"), *args, *e;
	size_t i;

	*b = (struct bench){ .o = o };
	o->path = json_string_value(json_object_get(j, "path"));
	o->workload = json_string_value(json_object_get(j, "workload"));
	if (!json_is_object(j) || !o->workload || !o->path)
		return bad(what, "no \"workload\" or \"path\"");
	if (!json_is_array(samples) || !json_array_size(samples))
		return bad(what, "no \"samples\"");
	if (get_count(j, "runs_per_mode", &o->runs) ||
	    get_count(j, "warmup_per_mode", &o->warmup))
		return bad(what, "no \"runs_per_mode\" or \"warmup_per_mode\"");
	if (json_object_get(j, "sequential") &&
	    load_rule(json_object_get(j, "sequential"), what, o))
		return 1;
	if (!json_is_array(paths) || !json_array_size(paths)) {
		b->paths.n = 1;
		ctl_copy(b->paths.name[0], CTL_NAME_MAX, o->path);
	}
	json_array_foreach(paths, i, e) {
		if (!json_is_string(e) || b->paths.n >= CTL_MAX_PATHS)
			return bad(what, "\"paths\" is not a list of names");
		ctl_copy(b->paths.name[b->paths.n++], CTL_NAME_MAX,
			 json_string_value(e));
	}
	args = json_object_get(j, "args");
	o->nargs = 0;
	o->args = calloc(json_array_size(args) + 1, sizeof(*o->args));
	b->s = calloc(json_array_size(samples), sizeof(*b->s));
	b->workload_name = dup_str(j, "workload", "");
	b->metric = dup_str(j, "metric", "value");
	b->unit = dup_str(j, "unit", "");
	if (!o->args || !b->s || !b->workload_name || !b->metric || !b->unit) {
		abpath_error("out of memory");
		return 1;
	}
	json_array_foreach(args, i, e) {
		if (!json_is_string(e))
			return bad(what, "\"args\" is not a list of strings");
		o->args[o->nargs++] = (char *)json_string_value(e);
	}
	b->lower_is_better = !json_is_false(json_object_get(j,
							    "lower_is_better"));
	b->provenance = json_incref(json_object_get(j, "provenance"));
	o->command = json_is_true(json_object_get(j, "command"));
	o->prepare = json_string_value(json_object_get(j, "prepare"));
	b->total = (int)json_array_size(samples);
	/* An interrupted bench: say how far it got, as it did. */
	b->incomplete = json_is_false(json_object_get(j, "complete"));
	if (b->incomplete)
		b->total = 2 * (o->runs + o->warmup);
	json_array_foreach(samples, i, e) {
		if (load_sample(e, (int)i, &b->s[i]))
			return bad(what, "a sample without a \"mode\" (legacy "
				   "or optimized) and a numeric \"value\"");
		b->done++;
	}
	return 0;
}

static int from_bench(const struct bench_opts *o, json_t *j, const char *what)
{
	struct bench_opts lo = {
		.json = o->json, .plot = o->plot,
		.export_md = o->export_md, .export_csv = o->export_csv,
		.export_json = o->export_json,
	};
	struct bench b;
	int ret;

	ret = bench_load(j, what, &b, &lo);
	if (!ret)
		ret = bench_report(&b);
	bench_free(&b);
	free(lo.args);
	return ret;
}

/* A single experiment file becomes a history with one experiment. */
static json_t *as_history(json_t *j)
{
	json_t *h, *cpus;

	if (json_object_get(j, "experiments"))
		return json_incref(j);
	h = json_object();
	json_object_set_new(h, "schema", json_string(BENCH_SCHEMA));
	json_object_set_new(h, "suite", json_string("history"));
	cpus = json_object_get(j, "cpus");
	if (cpus)
		json_object_set(h, "cpus", cpus);
	json_object_set_new(h, "experiments", json_pack("[O]", j));
	return h;
}

static int from_suite(const struct bench_opts *o, json_t *j, const char *what)
{
	json_t *h, *e;
	int ret = 0;
	size_t i;

	if (o->export_md || o->export_csv) {
		abpath_error("%s is a suite's result: --export-markdown and "
			     "--export-csv take one bench's (its tables are "
			     "Markdown already)", what);
		return 1;
	}
	h = as_history(j);
	json_array_foreach(json_object_get(h, "experiments"), i, e)
		if (!json_is_object(e) ||
		    !json_is_array(json_object_get(e, "points"))) {
			json_decref(h);
			abpath_error("%s: experiment %zu has no \"points\"",
				     what, i + 1);
			return 1;
		}
	/* -j: the file again, in the form abpath writes it. */
	if (o->json) {
		if (json_dumpf(j, stdout, JSON_COMPACT |
			       JSON_REAL_PRECISION(15)) < 0)
			ret = 1;
		fputc('\n', stdout);
	} else {
		ret = suite_print_markdown(stdout, h);
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	if (!ret && o->plot)
		ret = suite_plot(h, o->plot);
	json_decref(h);
	return ret;
}


json_t *bench_from_file(const char *file, const char **what)
{
	bool in = !strcmp(file, "-");
	json_error_t err;
	json_t *j;

	*what = in ? "standard input" : file;
	j = in ? json_loadf(stdin, 0, &err) : json_load_file(file, 0, &err);
	if (!j) {
		/* jansson says "unable to open FILE: No such file ..." */
		if (err.line < 0 || strstr(err.text, "unable to open"))
			abpath_error("%s", err.text);
		else
			abpath_error("%s: line %d: %s", *what, err.line,
				     err.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		bad(*what, "not a JSON object");
	} else if (!json_object_get(j, "samples") &&
		   !json_object_get(j, "experiments") &&
		   !json_object_get(j, "points")) {
		bad(*what, "neither \"samples\" (abpath bench -j) nor "
		    "\"experiments\" or \"points\" (abpath bench --suite)");
	} else if (!check_schema(j, *what)) {
		return j;
	}
	json_decref(j);
	return NULL;
}

/*
 * Several suite results: one table per experiment across them.  A bench
 * result has no experiments to line up, and is refused.
 */
static int from_several(const struct bench_opts *o)
{
	json_t *h[BENCH_MAX_ACROSS] = { NULL }, *j, *e;
	const char *names[BENCH_MAX_ACROSS];
	int ret = 0, n;
	size_t i;

	for (n = 0; !ret && n < o->nfrom; n++) {
		j = bench_from_file(o->from[n], &names[n]);
		if (!j) {
			ret = 1;
			break;
		}
		if (json_object_get(j, "samples")) {
			abpath_error("%s is one bench's result: several --from "
				     "take suite results (abpath bench --suite)",
				     names[n]);
			ret = 1;
		} else {
			h[n] = as_history(j);
			json_array_foreach(json_object_get(h[n], "experiments"),
					   i, e)
				if (!ret && (!json_is_object(e) || !json_is_array(
					     json_object_get(e, "points")))) {
					abpath_error("%s: experiment %zu has no "
						     "\"points\"", names[n], i + 1);
					ret = 1;
				}
		}
		json_decref(j);
	}
	if (!ret)
		ret = suite_print_across(stdout, h, names, o->nfrom);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	for (int k = 0; k < o->nfrom; k++)
		json_decref(h[k]);
	return ret;
}

int bench_from(const struct bench_opts *o)
{
	const char *what;
	json_t *j;
	int ret;

	if (o->plot && !bench_find_gnuplot()) {
		abpath_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
		return 1;
	}
	if (o->nfrom > 1)
		return from_several(o);
	j = bench_from_file(o->from[0], &what);
	if (!j)
		return 1;
	if (json_object_get(j, "samples"))
		ret = from_bench(o, j, what);
	else
		ret = from_suite(o, j, what);
	json_decref(j);
	return ret;
}
