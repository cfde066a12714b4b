// SPDX-License-Identifier: GPL-2.0
/*
 * A bench's result (result.h): a saved file read and its schema checked
 * (bench_from_file(), for every reader: --from, --pool, a factorial's),
 * read back into a struct bench, its runs as the bench made them, and
 * with --runs auto its stopping rule, and reported again
 * (bench_from_one(), with the bench's or a factorial's loader); and
 * freed.  from.c (--from), pooled.c (--pool) and tables.c (a suite's
 * rule verdicts) read results through here, never through the runner;
 * only the runs and the rule are taken, every statistic is computed
 * again.
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

const char *const bench_mode_name[2] = { "legacy", "optimized" };

static int bad(const char *what, const char *why)
{
	abpath_error("%s: not an abpath bench result: %s", what, why);
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

void bench_load_run(json_t *js, int i, struct bench_sample *s)
{
	json_t *idx = json_object_get(js, "index");

	s->index = json_is_integer(idx) ? (int)json_integer_value(idx) : i + 1;
	s->value = json_number_value(json_object_get(js, "value"));
	s->counters = json_incref(json_object_get(js, "counters"));
	if (!s->counters)
		s->counters = json_object();
	s->results = json_incref(json_object_get(js, "results"));
	s->kernel_reports = json_incref(json_object_get(js, "kernel_reports"));
	/* Schema 3: left out of the statistics, as when it ran. */
	ctl_copy(s->invalid, sizeof(s->invalid),
		 json_string_value(json_object_get(js, "invalid")) ?: "");
}

static int load_sample(json_t *js, int i, struct bench_sample *s)
{
	const char *mode = json_string_value(json_object_get(js, "mode"));
	json_t *v = json_object_get(js, "value");

	if (!json_is_object(js) || !mode || !json_is_number(v))
		return -1;
	if (!strcmp(mode, bench_mode_name[BENCH_LEGACY]))
		s->mode = BENCH_LEGACY;
	else if (!strcmp(mode, bench_mode_name[BENCH_OPTIMIZED]))
		s->mode = BENCH_OPTIMIZED;
	else
		return -1;
	s->warmup = json_is_true(json_object_get(js, "warmup"));
	bench_load_run(js, i, s);
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

int bench_load_common(json_t *j, struct bench *b, struct bench_opts *o)
{
	json_t *samples = json_object_get(j, "samples");
	json_t *args = json_object_get(j, "args"), *e;
	size_t i;

	o->nargs = 0;
	o->args = calloc(json_array_size(args) + 1, sizeof(*o->args));
	/*
	 * One slot per sample present, never per run planned: a file's
	 * counts are not to be trusted with an allocation.
	 */
	b->slots = (int)json_array_size(samples);
	b->s = calloc((size_t)b->slots, sizeof(*b->s));
	b->workload_name = dup_str(j, "workload", "");
	b->metric = dup_str(j, "metric", "value");
	b->unit = dup_str(j, "unit", "");
	if (!o->args || !b->s || !b->workload_name || !b->metric || !b->unit) {
		abpath_error("out of memory");
		return -ENOMEM;
	}
	json_array_foreach(args, i, e) {
		if (!json_is_string(e))
			return -EINVAL;
		o->args[o->nargs++] = (char *)json_string_value(e);
	}
	b->lower_is_better = !json_is_false(json_object_get(j,
							    "lower_is_better"));
	b->provenance = json_incref(json_object_get(j, "provenance"));
	o->command = json_is_true(json_object_get(j, "command"));
	o->prepare = json_string_value(json_object_get(j, "prepare"));
	return 0;
}

int bench_from_one(const struct bench_opts *o, json_t *j, const char *what,
		   int (*loader)(json_t *, const char *, struct bench *,
			       struct bench_opts *),
		   int (*reporter)(const struct bench *))
{
	struct bench_opts lo = {
		.json = o->json, .plot = o->plot,
		.export_md = o->export_md, .export_csv = o->export_csv,
		.export_json = o->export_json,
	};
	struct bench b;
	int ret;

	ret = loader(j, what, &b, &lo);
	if (!ret)
		ret = reporter(&b);
	bench_free(&b);
	free(lo.args);
	return ret;
}

int bench_load(json_t *j, const char *what, struct bench *b,
	       struct bench_opts *o)
{
	json_t *samples = json_object_get(j, "samples");
	json_t *paths = json_object_get(j, "paths"), *e;
	size_t i;
	int err;

	*b = (struct bench){ .o = o };
	o->path = json_string_value(json_object_get(j, "path"));
	o->workload = json_string_value(json_object_get(j, "workload"));
	if (!json_is_object(j) || !o->workload || !o->path)
		return bad(what, "no \"workload\" or \"path\"");
	if (!json_is_array(samples) || !json_array_size(samples))
		return bad(what, "no \"samples\"");
	/* More than any --runs and --warmup can make: not a bench's. */
	if (json_array_size(samples) > 4000000)
		return bad(what, "more \"samples\" than a bench makes");
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
	err = bench_load_common(j, b, o);
	if (err == -EINVAL)
		return bad(what, "\"args\" is not a list of strings");
	if (err)
		return 1;
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

void bench_free(struct bench *b)
{
	for (int i = 0; i < b->done; i++) {
		json_decref(b->s[i].counters);
		json_decref(b->s[i].results);
		json_decref(b->s[i].kernel_reports);
	}
	/* A run that failed may have left its kernel reports in its slot. */
	if (b->done < b->slots && b->s)
		json_decref(b->s[b->done].kernel_reports);
	free(b->s);
	free(b->plan);
	free(b->workload_name);
	free(b->metric);
	free(b->unit);
	json_decref(b->provenance);
	*b = (struct bench){ 0 };
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
