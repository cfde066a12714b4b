/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A point of a suite result (its bench's runs, as 'abpath bench -j' kept
 * them) as numbers: what each cell of a table (tables.c) and each point of
 * a plot shows, computed from the runs, never taken from a summary.
 */
#ifndef ABPATH_BENCH_POINTS_H
#define ABPATH_BENCH_POINTS_H

#include <stddef.h>

#include "experiments.h"

struct json_t;

/* One mode's measured runs of one point, as numbers. */
struct pt_runs {
	double *v[2];
	size_t n[2];
};

/* A number, or NaN. */
double pt_num(struct json_t *j);
/* The point's parameter as the table shows it. */
const char *pt_param_text(struct json_t *param, char *buf, size_t len);
/*
 * The valid measured runs of a point that have metric m, per mode, into
 * r (free with pt_free_runs()); 0 or -ENOMEM.
 */
int pt_get_runs(struct json_t *point, const struct suite_metric *m,
		struct pt_runs *r);
void pt_free_runs(struct pt_runs *r);
/* NaN without runs, or with a run of 0 or less. */
double pt_gmean(const double *v, size_t n);
/*
 * One cell of a table: its text into buf, "–" where the runs give no
 * number, and with @cell (else NULL) the numbers the text shows into
 * that object, each by its name: "value" (and "ci95" [lo, hi] for a
 * ratio), "p", or the counts ("flagged", "stalls", "runs_with", "runs");
 * null where the text is "–".  0 or -errno.
 */
int pt_cell(struct json_t *point, const struct suite_col *c, char *buf,
	    size_t len, struct json_t *cell);
/* j's string member key, or dflt. */
const char *pt_str(struct json_t *j, const char *key, const char *dflt);

#endif
