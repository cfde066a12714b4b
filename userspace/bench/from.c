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
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
			!strcmp(schema, BENCH_SCHEMA_FACTORIAL) ||
			!strcmp(schema, "abpath-bench/2") ||
			!strcmp(schema, "abpath-bench/1"))))
		return 0;
	abpath_error("%s: schema %s is not one this abpath (%s) reads: "
		     "abpath-bench/1, abpath-bench/2, %s, %s or %s", what,
		     schema ? schema : "(not a string)", ABPATH_VERSION,
		     BENCH_SCHEMA, BENCH_SCHEMA_ADAPTIVE,
		     BENCH_SCHEMA_FACTORIAL);
	return 1;
}

int bench_from_one(const struct bench_opts *o, json_t *j, const char *what,
		   int (*load)(json_t *, const char *, struct bench *,
			       struct bench_opts *),
		   int (*report)(const struct bench *))
{
	struct bench_opts lo = {
		.json = o->json, .plot = o->plot,
		.export_md = o->export_md, .export_csv = o->export_csv,
		.export_json = o->export_json,
	};
	struct bench b;
	int ret;

	ret = load(j, what, &b, &lo);
	if (!ret)
		ret = report(&b);
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
 * Past this a file is no result abpath wrote (a whole suite's history is
 * a few MB): stop reading /dev/zero or a disk image, not run out of memory.
 */
#define FROM_MAX_BYTES	(256u << 20)

/*
 * The whole of fd into *buf (NUL-terminated for the messages, not for
 * jansson, which is given the length), *len bytes: 0, -EFBIG past
 * FROM_MAX_BYTES, -EILSEQ at a NUL byte (binary: no JSON text has one,
 * and reading on would only take longer to say so), or -errno.
 */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *p = NULL, *q;
	ssize_t r;

	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 65536;
			q = realloc(p, cap + 1);
			if (!q) {
				free(p);
				return -ENOMEM;
			}
			p = q;
		}
		r = read(fd, p + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(p);
			return (int)r;
		}
		if (!r)
			break;
		if (memchr(p + n, '\0', (size_t)r)) {
			free(p);
			return -EILSEQ;
		}
		n += (size_t)r;
		if (n > FROM_MAX_BYTES) {
			free(p);
			return -EFBIG;
		}
	}
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
}

/*
 * The file's JSON, or NULL after an error that names it and says what it
 * is instead: missing or unreadable, a directory, empty, binary, cut
 * short (a copy that stopped, or an older abpath's write that a signal
 * tore), or text that is not JSON.
 */
static json_t *load_json(const char *file, const char *what)
{
	bool in = !strcmp(file, "-");
	int fd = in ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC);
	json_error_t err;
	struct stat st;
	size_t len = 0;
	char *buf = NULL;
	json_t *j;
	int e;

	if (fd < 0) {
		abpath_error("cannot read %s: %s", what, strerror(errno));
		return NULL;
	}
	if (!fstat(fd, &st) && S_ISDIR(st.st_mode)) {
		if (!in)
			close(fd);
		abpath_error("%s is a directory, not a result file (abpath "
			     "bench -j, or a suite's history.json)", what);
		return NULL;
	}
	e = read_all(fd, &buf, &len);
	if (!in)
		close(fd);
	if (e == -EILSEQ || e == -EFBIG) {
		abpath_error("%s: not an abpath result: %s", what,
			     e == -EILSEQ ? "a binary file, not JSON text" :
			     "larger than any result (256 MiB)");
		return NULL;
	}
	if (e) {
		abpath_error("cannot read %s: %s", what, strerror(-e));
		return NULL;
	}
	if (strspn(buf, " \t\r\n") == len) {
		free(buf);
		abpath_error("%s: an empty file, not an abpath result", what);
		return NULL;
	}
	j = json_loadb(buf, len, 0, &err);
	free(buf);
	if (j)
		return j;
	switch (json_error_code(&err)) {
	case json_error_premature_end_of_input:
		abpath_error("%s: truncated: its JSON stops unfinished at "
			     "byte %zu (line %d)", what, len, err.line);
		break;
	case json_error_invalid_utf8:
		abpath_error("%s: not an abpath result: a binary file, not "
			     "JSON text (line %d: %s)", what, err.line,
			     err.text);
		break;
	default:
		abpath_error("%s: not an abpath result: not JSON, line %d: "
			     "%s", what, err.line, err.text);
		break;
	}
	return NULL;
}

json_t *bench_from_file(const char *file, const char **what)
{
	json_t *j;

	*what = strcmp(file, "-") ? file : "standard input";
	j = load_json(file, *what);
	if (!j)
		return NULL;
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

bool bench_from_label(const char *arg, const char **file, char *label,
		      size_t len)
{
	const char *eq = strchr(arg, '=');

	if (eq && eq != arg && !memchr(arg, '/', (size_t)(eq - arg)) &&
	    access(arg, F_OK)) {
		snprintf(label, len, "%.*s", (int)(eq - arg), arg);
		*file = eq + 1;
		return true;
	}
	*file = arg;
	if (len)
		label[0] = '\0';
	return false;
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
