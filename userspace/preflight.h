/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abpath check (preflight.c): whether abpath will work on a kernel, the
 * running one or one a config file describes, and why not, before
 * anything is built or loaded; from module/requires.h, the table the
 * build reads too.
 */
#ifndef ABPATH_PREFLIGHT_H
#define ABPATH_PREFLIGHT_H

#include "cli.h"
#include "kernel.h"

/* check's exit codes beyond 0 (a backend works) and 2 (usage, input). */
#define PREFLIGHT_NO	1	/* neither backend can work */
#define PREFLIGHT_IF	3	/* one can, if what check cannot see allows */

int preflight_cmd(const struct cmd *c, int argc, char **argv);
extern const char preflight_synopsis[], preflight_summary[], preflight_help[];

/* A yes, no or unknown: true, false or null in JSON. */
void out_tri(const char *key, enum tri t);

#endif
