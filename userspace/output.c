// SPDX-License-Identifier: GPL-2.0
/*
 * Text and JSON output from one tree.  The tree is always a jansson object:
 * JSON is just json_dumpf() of it, and the text renderer walks the same
 * tree, so a field can only be added to both formats at once.  Jansson keeps
 * object keys in insertion order, which is what gives text tables a stable
 * row and column order without sorting.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"

#define OUT_MAX_DEPTH 16

/*
 * Text hints live beside the tree rather than in it, so that nothing
 * text-specific can leak into the JSON.
 */
struct out_hint {
	json_t *node;
	unsigned flags;
	const char *label;
	/* Text to show instead: a u64 past 2^63 digit for digit, a measurement. */
	char exact[32];
};

static bool out_json;
static json_t *out_stack[OUT_MAX_DEPTH];
static int out_depth;
static struct out_hint *out_hints;
static size_t out_nhints, out_hints_cap;
/* What out_hint() applies to: the node added or ended last. */
static json_t *out_last;

static void __attribute__((noreturn)) oom(void)
{
	fputs("abpath: error: out of memory\n", stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q)
		oom();
	return q;
}

static void out_reset(void)
{
	if (out_depth > 0)
		json_decref(out_stack[0]);
	out_stack[0] = json_object();
	if (!out_stack[0])
		oom();
	out_depth = 1;
	out_nhints = 0;
	out_last = NULL;
}

void out_init(bool json)
{
	out_json = json;
	out_reset();
}

bool out_is_json(void)
{
	return out_json;
}

static void out_add(const char *key, json_t *val)
{
	json_t *parent = out_stack[out_depth - 1];

	if (!val)
		oom();
	if (json_is_array(parent)) {
		json_array_append_new(parent, val);
	} else if (json_object_set_new(parent, key ? key : "", val)) {
		/*
		 * jansson has freed val, which out_push() would go on to
		 * use: a key that is not UTF-8, which the readers keep out.
		 */
		fputs("abpath: error: an output key that is not UTF-8\n", stderr);
		abort();
	}
	out_last = val;
}

static struct out_hint *out_hint_new(json_t *node, unsigned flags,
				     const char *label)
{
	if (out_nhints == out_hints_cap) {
		out_hints_cap = out_hints_cap ? 2 * out_hints_cap : 16;
		out_hints = xrealloc(out_hints,
				     out_hints_cap * sizeof(*out_hints));
	}
	out_hints[out_nhints] = (struct out_hint){ node, flags, label, "" };
	return &out_hints[out_nhints++];
}

static void out_push(const char *key, json_t *node, unsigned flags,
		     const char *label)
{
	if (out_depth >= OUT_MAX_DEPTH) {
		/* Only a programming error gets here; fail loudly. */
		fputs("abpath: error: output nested too deeply\n", stderr);
		abort();
	}
	/* A borrowed reference is enough: the parent owns the node. */
	out_add(key, node);
	out_stack[out_depth++] = node;
	if (flags || label)
		out_hint_new(node, flags, label);
}

void out_begin_object(const char *key, unsigned flags)
{
	out_push(key, json_object(), flags, NULL);
}

void out_begin_table(const char *key, unsigned flags, const char *label)
{
	out_push(key, json_object(), flags, label ? label : "");
}

void out_begin_array(const char *key)
{
	out_push(key, json_array(), 0, NULL);
}

void out_end(void)
{
	if (out_depth > 1)
		out_last = out_stack[--out_depth];
}

void out_hint(unsigned flags)
{
	size_t i;

	if (!out_last || json_is_null(out_last) || json_is_boolean(out_last))
		return;
	for (i = 0; i < out_nhints && out_hints[i].node != out_last; i++)
		;
	if (i == out_nhints)
		out_hint_new(out_last, 0, NULL);
	out_hints[i].flags |= flags;
}

/*
 * jansson takes UTF-8 only, and a file name or a line of a kernel config
 * can be in another encoding: such a string is shown with '?' for each
 * byte that is not part of a UTF-8 character, rather than refused (which
 * out_add() would take for running out of memory).  Each character is
 * checked by jansson itself, so what passes is what it takes.
 */
static json_t *utf8_string(const char *val)
{
	json_t *j = json_string(val), *c;
	size_t len, i, n;
	char *fixed;

	if (j)
		return j;
	len = strlen(val);
	fixed = malloc(len + 1);
	if (!fixed)
		oom();
	for (i = 0; i < len; i += n) {
		unsigned char b = (unsigned char)val[i];

		n = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
		c = n <= len - i ? json_stringn(val + i, n) : NULL;
		if (c || b < 0x80) {
			memcpy(fixed + i, val + i, n);
		} else {
			fixed[i] = '?';
			n = 1;
		}
		json_decref(c);
	}
	fixed[len] = '\0';
	j = json_string(fixed);
	free(fixed);
	return j;
}

void out_string(const char *key, const char *val)
{
	out_add(key, val ? utf8_string(val) : json_null());
}

void out_u64(const char *key, uint64_t val)
{
	/*
	 * json_int_t is signed 64-bit; a counter past 2^63 keeps its
	 * magnitude as a real rather than turning negative.
	 */
	if (val > (uint64_t)INT64_MAX) {
		json_t *real = json_real((double)val);

		out_add(key, real);
		/* Text can still show every digit. */
		snprintf(out_hint_new(real, 0, NULL)->exact,
			 sizeof(out_hints[0].exact), "%" PRIu64, val);
	} else
		out_add(key, json_integer((json_int_t)val));
}

void out_double(const char *key, double val)
{
	if (!isfinite(val))
		out_add(key, json_null());
	else
		out_add(key, json_real(round(val * 1000.0) / 1000.0));
}

void out_time(const char *key, double val)
{
	json_t *real = json_real(round(val * 1000.0) / 1000.0);
	time_t secs = (time_t)val;
	struct tm tm;

	out_add(key, real);
	if (localtime_r(&secs, &tm))
		strftime(out_hint_new(real, 0, NULL)->exact,
			 sizeof(out_hints[0].exact), "%Y-%m-%d %H:%M:%S", &tm);
}

const char *out_fmt_sig(char *buf, size_t len, double val, int sig)
{
	int mag, decimals;

	if (!isfinite(val)) {
		snprintf(buf, len, "-");
		return buf;
	}
	/*
	 * %g would switch to an exponent for 1234567 or 0.00001, which
	 * reads badly in a table of timings; fixed point with as many
	 * decimals as sig needs does not.
	 */
	mag = val == 0 ? 0 : (int)floor(log10(fabs(val)));
	decimals = sig - 1 - mag;
	if (decimals < 0)
		decimals = 0;
	if (decimals > 9)
		decimals = 9;
	snprintf(buf, len, "%.*f", decimals, val);
	return buf;
}

void out_real(const char *key, double val, int sig)
{
	json_t *real;

	if (!isfinite(val)) {
		out_add(key, json_null());
		return;
	}
	real = json_real(val);
	out_add(key, real);
	out_fmt_sig(out_hint_new(real, 0, NULL)->exact,
		    sizeof(out_hints[0].exact), val, sig);
}

void out_real_hidden(const char *key, double val, int sig)
{
	out_real(key, val, sig);
	out_hint(OUT_HIDDEN);
}

void out_range(const char *key, double lo, double hi, int sig)
{
	out_begin_array(key);
	out_real(NULL, lo, sig);
	out_real(NULL, hi, sig);
	out_end();
	out_hint(OUT_RANGE);
}

void out_jansson(const char *key, struct json_t *val)
{
	out_add(key, val ? json_deep_copy(val) : json_null());
}

void out_bool(const char *key, bool val)
{
	out_add(key, json_boolean(val));
}

void out_null(const char *key)
{
	out_add(key, json_null());
}

/* ---- text rendering ---------------------------------------------------- */

static const struct out_hint *hint_of(const json_t *node)
{
	for (size_t i = 0; i < out_nhints; i++)
		if (out_hints[i].node == node)
			return &out_hints[i];
	return NULL;
}

static unsigned flags_of(const json_t *v)
{
	const struct out_hint *h = hint_of(v);

	return h ? h->flags : 0;
}

static bool hidden(const json_t *v)
{
	return flags_of(v) & OUT_HIDDEN;
}

/* An array drawn on one line, as a scalar is (OUT_LINE, OUT_RANGE). */
static bool one_line(const json_t *v)
{
	return json_is_array(v) && (flags_of(v) & (OUT_LINE | OUT_RANGE));
}

static bool is_scalar(const json_t *v)
{
	return (!json_is_object(v) && !json_is_array(v)) || one_line(v);
}

static void scalar_text(const json_t *v, char *buf, size_t len);

/* "a b c", or "lo–hi" for a range, "-" for an empty or partial one. */
static void array_text(const json_t *v, char *buf, size_t len)
{
	bool range = flags_of(v) & OUT_RANGE;
	size_t used = 0, i;
	char one[256];
	json_t *e;

	snprintf(buf, len, "-");
	json_array_foreach(v, i, e) {
		if (range && !json_is_number(e)) {
			snprintf(buf, len, "-");
			return;
		}
		scalar_text(e, one, sizeof(one));
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 i ? (range ? "–" : " ") : "",
						 one);
	}
}

static void scalar_text(const json_t *v, char *buf, size_t len)
{
	const struct out_hint *h = json_is_real(v) ? hint_of(v) : NULL;

	if (h && h->exact[0]) {
		snprintf(buf, len, "%s", h->exact);
	} else if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	} else if (json_is_real(v)) {
		double d = json_real_value(v);

		snprintf(buf, len, "%.1f", d);
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	} else if (one_line(v)) {
		array_text(v, buf, len);
	} else {
		snprintf(buf, len, "-");
	}
}

/*
 * What an OUT_BESIDE object adds to the node being drawn: its own node at
 * the same place, if any, and the label its columns take.
 */
struct beside {
	json_t *node;
	const char *label;
};

static struct beside beside_child(struct beside b, const char *key)
{
	if (b.node && json_is_object(b.node))
		b.node = json_object_get(b.node, key);
	else
		b.node = NULL;
	return b;
}

static void render_node(FILE *f, const char *key, json_t *v,
			struct beside b, int indent, int keyw);

/*
 * Columns on a terminal, not bytes: the intervals' "–" is three bytes of
 * UTF-8 and one column.  Counting the bytes that start a character is
 * enough for what abpath prints (no double-width characters) and needs
 * no locale, which printf's own padding would (it counts bytes).
 */
static int text_width(const char *s)
{
	int w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* s padded with spaces to width columns: after it, or before it (right). */
static void put_padded(FILE *f, const char *s, int width, bool right)
{
	int pad = width - text_width(s);

	if (right)
		fprintf(f, "%*s%s", pad > 0 ? pad : 0, "", s);
	else
		fprintf(f, "%s%*s", s, pad > 0 ? pad : 0, "");
}

/*
 * One cell: numbers to the right, words to the left, never trailing; two
 * spaces before it, unless it starts the line.
 */
static void put_cell(FILE *f, const char *s, const int *width,
		     const bool *numeric, size_t c, size_t ncols, bool lead)
{
	if (lead)
		fputs("  ", f);
	if (numeric[c + 1])
		put_padded(f, s, width[c + 1], true);
	else
		put_padded(f, s, c + 1 == ncols ? 0 : width[c + 1], false);
}

static bool numeric_cell(const json_t *v)
{
	return json_is_number(v) ||
	       (json_is_array(v) && (flags_of(v) & OUT_RANGE));
}

static char *xjoin(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 1;
	char *s = xrealloc(NULL, n);

	snprintf(s, n, "%s%s", a, b);
	return s;
}

/* A table's child that is one of its rows or columns. */
static bool in_table(const json_t *v)
{
	return json_is_object(v) && !(flags_of(v) & (OUT_APART | OUT_HIDDEN));
}

/*
 * The table's children, each followed by its namesake beside it; an
 * array's elements have no name (NULL).
 */
static size_t table_outer(json_t *tab, struct beside b, json_t **node,
			  char **name)
{
	json_t *child, *next;
	const char *k;
	size_t n = 0, i;

	if (json_is_array(tab)) {
		json_array_foreach(tab, i, child)
			if (in_table(child)) {
				node[n] = child;
				name[n++] = NULL;
			}
		return n;
	}
	json_object_foreach(tab, k, child) {
		if (!in_table(child))
			continue;
		node[n] = child;
		name[n++] = xjoin(k, "");
		next = beside_child(b, k).node;
		if (next && json_is_object(next)) {
			node[n] = next;
			name[n++] = xjoin(k, b.label);
		}
	}
	return n;
}

/*
 * The other axis of a table: the members of its children, in the order
 * they first appear.  With @nest, a member that is an object is a heading
 * (@set gets an object for it) whose own members follow, one level in;
 * else it is one cell like any other.
 */
static void axis_collect(json_t *set, json_t *child, bool nest)
{
	json_t *v, *sub;
	const char *k;

	json_object_foreach(child, k, v) {
		if (hidden(v))
			continue;
		sub = json_object_get(set, k);
		if (nest && json_is_object(v)) {
			if (!json_is_object(sub)) {
				sub = json_object();
				if (!sub)
					oom();
				json_object_set_new(set, k, sub);
			}
			axis_collect(sub, v, nest);
		} else if (!sub) {
			json_object_set_new(set, k, json_true());
		}
	}
}

/* One entry of that axis: the keys from a child down to the member. */
struct axis {
	int depth;
	const char *path[OUT_MAX_DEPTH];
	bool heading;
};

static size_t axis_flatten(json_t *set, struct axis *a, size_t n,
			   const struct axis *up)
{
	const char *k;
	json_t *v;

	json_object_foreach(set, k, v) {
		a[n] = up ? *up : (struct axis){ .depth = -1 };
		if (++a[n].depth >= OUT_MAX_DEPTH)
			continue;
		a[n].path[a[n].depth] = k;
		a[n].heading = json_is_object(v);
		n++;
		if (json_is_object(v))
			n = axis_flatten(v, a, n, &a[n - 1]);
	}
	return n;
}

static size_t axis_size(json_t *set)
{
	size_t n = json_object_size(set);
	const char *k;
	json_t *v;

	json_object_foreach(set, k, v)
		if (json_is_object(v))
			n += axis_size(v);
	return n;
}

static json_t *cell_at(json_t *child, const struct axis *a)
{
	for (int d = 0; child && d <= a->depth; d++)
		child = json_object_get(child, a->path[d]);
	return child;
}

static void render_table(FILE *f, json_t *tab, unsigned flags,
			 const char *label, struct beside b, int indent)
{
	/* An object used as an ordered set collects the other axis. */
	json_t *set = json_object(), **outer, *cell;
	bool rows_outer = flags & OUT_ROWS, *numeric;
	/* An array's rows have no names: no first column. */
	bool keyed = json_is_object(tab);
	size_t nouter, ninner, i, j, r, c, nrows, ncols, cap;
	struct axis *inner;
	char **outer_keys;
	int *width, w;
	/* A cell is shown whole: a site's "unavailable: why" runs past 100. */
	char buf[512];

	if (!set)
		oom();
	cap = 2 * (keyed ? json_object_size(tab) : json_array_size(tab)) + 1;
	outer = xrealloc(NULL, cap * sizeof(*outer));
	outer_keys = xrealloc(NULL, cap * sizeof(*outer_keys));
	nouter = table_outer(tab, b, outer, outer_keys);
	for (i = 0; i < nouter; i++)
		axis_collect(set, outer[i], !rows_outer);
	inner = xrealloc(NULL, (axis_size(set) + 1) * sizeof(*inner));
	ninner = axis_flatten(set, inner, 0, NULL);

	nrows = rows_outer ? nouter : ninner;
	ncols = rows_outer ? ninner : nouter;
	width = xrealloc(NULL, (ncols + 1) * sizeof(*width));
	numeric = xrealloc(NULL, (ncols + 1) * sizeof(*numeric));
	width[0] = text_width(label);
	for (r = 0; r < nrows && keyed; r++) {
		w = rows_outer ? text_width(outer_keys[r]) :
		    2 * inner[r].depth +
		    text_width(inner[r].path[inner[r].depth]);
		if (w > width[0])
			width[0] = w;
	}
	for (c = 0; c < ncols; c++) {
		width[c + 1] = text_width(rows_outer ?
					  inner[c].path[inner[c].depth] :
					  outer_keys[c]);
		numeric[c + 1] = false;
		for (r = 0; r < nrows; r++) {
			i = rows_outer ? r : c;
			j = rows_outer ? c : r;
			if (inner[j].heading)
				continue;
			cell = cell_at(outer[i], &inner[j]);
			/* Numbers line up on the right, words on the left. */
			if (numeric_cell(cell))
				numeric[c + 1] = true;
			scalar_text(cell, buf, sizeof(buf));
			if (text_width(buf) > width[c + 1])
				width[c + 1] = text_width(buf);
		}
	}

	fprintf(f, "%*s", indent, "");
	if (keyed)
		put_padded(f, label, width[0], false);
	for (c = 0; c < ncols; c++)
		put_cell(f, rows_outer ? inner[c].path[inner[c].depth] :
			 outer_keys[c], width, numeric, c, ncols, keyed || c);
	fputc('\n', f);
	for (r = 0; r < nrows; r++) {
		fprintf(f, "%*s", indent, "");
		if (!rows_outer) {
			fprintf(f, "%*s", 2 * inner[r].depth, "");
			/* A heading has no cells: nothing to pad for. */
			if (inner[r].heading) {
				fprintf(f, "%s\n", inner[r].path[inner[r].depth]);
				continue;
			}
			put_padded(f, inner[r].path[inner[r].depth],
				   width[0] - 2 * inner[r].depth, false);
		} else if (keyed) {
			put_padded(f, outer_keys[r], width[0], false);
		}
		for (c = 0; c < ncols; c++) {
			i = rows_outer ? r : c;
			j = rows_outer ? c : r;
			cell = cell_at(outer[i], &inner[j]);
			scalar_text(cell, buf, sizeof(buf));
			put_cell(f, buf, width, numeric, c, ncols, keyed || c);
		}
		fputc('\n', f);
	}
	free(numeric);
	free(width);
	free(inner);
	for (i = 0; i < nouter; i++)
		free(outer_keys[i]);
	free(outer_keys);
	free(outer);
	json_decref(set);
}

static int scalar_key_width(json_t *obj)
{
	const char *k;
	json_t *v;
	int w = 0;

	json_object_foreach(obj, k, v)
		if (is_scalar(v) && !hidden(v) && text_width(k) > w)
			w = text_width(k);
	return w;
}

static const struct out_hint *beside_hint(json_t *v)
{
	const struct out_hint *h = hint_of(v);

	return h && (h->flags & OUT_BESIDE) ? h : NULL;
}

/*
 * An OUT_BESIDE child is drawn with its previous sibling, into which it
 * is passed down key by key; b is what the object itself has beside it.
 */
static void render_object(FILE *f, json_t *obj, struct beside b, int indent)
{
	int keyw = scalar_key_width(obj);
	const struct out_hint *h;
	const char *k;
	json_t *v, *prev = NULL;
	const char *prev_key = NULL;
	struct beside pb;

	json_object_foreach(obj, k, v) {
		if (hidden(v))
			continue;
		h = beside_hint(v);
		if (h && prev) {
			pb = (struct beside){ v, h->label };
			render_node(f, prev_key, prev, pb, indent, keyw);
			prev = NULL;
			continue;
		}
		if (prev)
			render_node(f, prev_key, prev, beside_child(b, prev_key),
				    indent, keyw);
		prev = v;
		prev_key = k;
	}
	if (prev)
		render_node(f, prev_key, prev, beside_child(b, prev_key),
			    indent, keyw);
}

/* A table's members that are none of its rows or columns, after it. */
static void render_apart(FILE *f, json_t *tab, int indent)
{
	const char *k;
	json_t *v;
	int keyw = 0;

	json_object_foreach(tab, k, v)
		if (!in_table(v) && !hidden(v) && is_scalar(v) &&
		    text_width(k) > keyw)
			keyw = text_width(k);
	json_object_foreach(tab, k, v)
		if (!in_table(v) && !hidden(v))
			render_node(f, k, v, (struct beside){ 0 }, indent, keyw);
}

static void render_node(FILE *f, const char *key, json_t *v,
			struct beside b, int indent, int keyw)
{
	const struct out_hint *h = hint_of(v);
	unsigned flags = h ? h->flags : 0;
	int inner = indent + 2;
	char buf[4096];	/* a verdict runs past 512 */
	size_t i;
	json_t *e;

	if (is_scalar(v)) {
		scalar_text(v, buf, sizeof(buf));
		fprintf(f, "%*s%s:%*s %s\n", indent, "", key,
			keyw - text_width(key), "", buf);
		return;
	}
	if (flags & OUT_INLINE)
		inner = indent;
	else
		fprintf(f, "%*s%s:\n", indent, "", key);

	if (flags & (OUT_ROWS | OUT_COLS)) {
		render_table(f, v, flags, h->label ? h->label : "", b, inner);
		if (json_is_object(v))
			render_apart(f, v, inner);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e) {
			if (hidden(e))
				continue;
			if (json_is_object(e)) {
				render_object(f, e, (struct beside){ 0 }, inner);
			} else {
				scalar_text(e, buf, sizeof(buf));
				fprintf(f, "%*s%s\n", inner, "", buf);
			}
		}
	} else {
		render_object(f, v, b, inner);
	}
}

int out_flush(FILE *f)
{
	int ret = 0;

	if (out_json) {
		/*
		 * Compact, one document per line: what jq and line-oriented
		 * consumers of --watch want.
		 */
		if (json_dumpf(out_stack[0], f, JSON_COMPACT |
			       JSON_REAL_PRECISION(15)) < 0)
			ret = -1;
		fputc('\n', f);
	} else {
		render_object(f, out_stack[0], (struct beside){ 0 }, 0);
	}
	if (fflush(f) == EOF || ferror(f))
		ret = -1;
	out_reset();
	return ret;
}

json_t *out_take(void)
{
	json_t *tree = json_incref(out_stack[0]);

	out_reset();
	return tree;
}

/* ---- diagnostics ------------------------------------------------------- */

/* "abpath: KIND: message" on stderr, a line. */
static void say(const char *kind, const char *fmt, va_list ap)
{
	/* Pending text must not interleave with the message on a tty. */
	fflush(stdout);
	fprintf(stderr, "abpath: %s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void abpath_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("error", fmt, ap);
	va_end(ap);
}

void abpath_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning", fmt, ap);
	va_end(ap);
}
