/* SPDX-License-Identifier: GPL-2.0 */
/* The module's counters: parsing, the tables, and the --watch loop. */
#ifndef ABPATH_COUNTERS_H
#define ABPATH_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "control.h"

/* One line of the stats file: "<path> <mode> <counter> <value>". */
struct counter_entry {
	char path[CTL_NAME_MAX];
	char mode[16];
	char counter[CTL_NAME_MAX];
	uint64_t value;
};

struct counter_set {
	struct counter_entry *e;
	size_t n, cap;
};

/*
 * Read and parse the stats file.  Returns 0, or the exit code after
 * printing why (missing debugfs, module, permission, malformed line).
 */
int counters_read(struct counter_set *s);
void counters_free(struct counter_set *s);
/*
 * The entry of @s with e's path, mode and counter, or NULL; @hint, where
 * it is likely to stand (the same index in an earlier reading), is
 * tried first.
 */
const struct counter_entry *counters_find(const struct counter_set *s,
					  const struct counter_entry *e,
					  size_t hint);

/*
 * Print one sample, or loop until SIGINT/SIGTERM every interval seconds
 * with per-second rates.  Return the exit code.
 */
int counters_show(void);
int counters_watch(double interval);

#endif
