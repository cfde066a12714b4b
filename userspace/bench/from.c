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
 *     one DIR/<experiment>.json ("points"): the Markdown tables, or with
 *     -j the JSON again with the same tables in it ("tables"), and with
 *     --plot one plot per experiment.
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

#include "internal.h"
#include "../output.h"

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
	/* -j: the file again, in the form abpath writes it, and its tables. */
	ret = suite_report(stdout, j, h, o->json);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		ret = 1;
	}
	if (!ret && o->plot)
		ret = suite_plot(h, o->plot);
	json_decref(h);
	return ret;
}


/*
 * Several suite results: one table per experiment across them.  A bench
 * result has no experiments to line up, and is refused.
 */
static int from_several(const struct bench_opts *o)
{
	json_t *h[BENCH_MAX_ACROSS] = { NULL }, *j, *e;
	const char *names[BENCH_MAX_ACROSS], *given[BENCH_MAX_ACROSS], *file;
	char labels[BENCH_MAX_ACROSS][64];
	int ret = 0, n;
	size_t i;

	for (n = 0; !ret && n < o->nfrom; n++) {
		bench_from_label(o->from[n], &file, labels[n],
				 sizeof(labels[n]));
		given[n] = labels[n];
		j = bench_from_file(file, &names[n]);
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
		ret = suite_print_across(stdout, h, names, given, o->nfrom);
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
	if (!strcmp(json_string_value(json_object_get(j, "schema")) ?: "",
		    BENCH_SCHEMA_FACTORIAL))
		ret = bench_factorial_from(o, j, what);
	else if (json_object_get(j, "samples"))
		ret = bench_from_one(o, j, what, bench_load, bench_report);
	else
		ret = from_suite(o, j, what);
	json_decref(j);
	return ret;
}
