/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One emitter for both output formats.  Commands describe their result as a
 * tree (objects, tables, arrays, scalars); out_flush() renders it either as
 * one line of JSON (through jansson) or as aligned text.  Because text and
 * JSON come from the same calls, the two can never disagree.
 */
#ifndef ABPATH_OUTPUT_H
#define ABPATH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Text-rendering hints; JSON ignores them. */
enum out_flags {
	OUT_PLAIN  = 0,
	/*
	 * Children are objects: one table row per child (e.g. paths); in an
	 * array, one row per element, with no first column.
	 */
	OUT_ROWS   = 1 << 0,
	/*
	 * Children are objects: one table column per child (e.g. modes); a
	 * member that is an object is a heading row, its members indented.
	 */
	OUT_COLS   = 1 << 1,
	/* No heading and no indentation: children render in place. */
	OUT_INLINE = 1 << 2,
	/*
	 * Drawn inside its previous sibling rather than on its own: each
	 * table there gains this object's same-named columns, each after
	 * its namesake and headed with its name and the label, which
	 * out_begin_table() gives (a rate beside its count: "legacy/s").
	 */
	OUT_BESIDE = 1 << 3,
	/* JSON only: text leaves the node out (what a program reads). */
	OUT_HIDDEN = 1 << 4,
	/*
	 * In a table: not one of its rows or columns, but drawn after it as
	 * an object's member would be, as the table's scalars and arrays are.
	 */
	OUT_APART  = 1 << 5,
	/* An array of scalars on one line: its elements, space-separated. */
	OUT_LINE   = 1 << 6,
	/* An array of two numbers as an interval: "lo–hi", in a table too. */
	OUT_RANGE  = 1 << 7,
};

void out_init(bool json);
bool out_is_json(void);

/* key is ignored inside arrays and may be NULL there. */
void out_begin_object(const char *key, unsigned flags);
/* label heads the first column of a table (OUT_ROWS or OUT_COLS). */
void out_begin_table(const char *key, unsigned flags, const char *label);
void out_begin_array(const char *key);
void out_end(void);
/*
 * Text hints (enum out_flags) for the node emitted or ended last: a
 * scalar, a copy (out_jansson()), an array or an object.  Not for null or
 * a boolean, which jansson shares: those are ignored.
 */
void out_hint(unsigned flags);

void out_string(const char *key, const char *val);	/* NULL: null */
void out_u64(const char *key, uint64_t val);
void out_double(const char *key, double val);		/* 3 decimals */
/* Seconds since the epoch: a number in JSON, the local time in text. */
void out_time(const char *key, double val);
void out_bool(const char *key, bool val);
void out_null(const char *key);
/*
 * A measurement: JSON keeps every digit, text shows sig significant
 * digits (never an exponent).  Non-finite values are null.
 */
void out_real(const char *key, double val, int sig);
/* An out_real() that only JSON shows (OUT_HIDDEN): a number for a program. */
void out_real_hidden(const char *key, double val, int sig);
/* An interval [lo, hi] of out_real()s, drawn in text as "lo–hi". */
void out_range(const char *key, double lo, double hi, int sig);
/* A copy of a jansson value (e.g. a workload's "results"), any depth. */
struct json_t;
void out_jansson(const char *key, struct json_t *val);
/* The text out_real() shows, for callers composing their own strings. */
const char *out_fmt_sig(char *buf, size_t len, double val, int sig);

/*
 * Render everything emitted since out_init() or the last flush to f and
 * start over; returns 0, or -1 on a write error.
 */
int out_flush(FILE *f);
/*
 * The tree emitted since out_init() or the last flush, handed over to the
 * caller (who owns the reference), and start over: for a caller that keeps
 * a result to embed in a larger document (abpath bench --suite).
 */
struct json_t *out_take(void);

/* "abpath: error: ..." and "abpath: warning: ..." on stderr. */
void abpath_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void abpath_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
