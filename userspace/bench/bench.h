/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abpath bench, as the rest of the CLI sees it: the command's entry and
 * help for abpath.c's table, and the workload directory, which 'abpath
 * workloads' lists too.  Everything else of the bench stays inside this
 * directory (internal.h).
 */
#ifndef ABPATH_BENCH_H
#define ABPATH_BENCH_H

struct cmd;

/* abpath bench ARGS: parses them through cli.h and returns the exit code. */
int bench_cmd(const struct cmd *c, int argc, char **argv);
/* The synopsis (after "abpath bench "), the summary and the help. */
extern const char bench_synopsis[], bench_summary[], bench_help[];

/* $ABPATH_WORKLOAD_DIR, or the directory fixed at build time. */
const char *bench_workload_dir(void);
/* Says that it does not exist and how to fix that; returns 1. */
int bench_no_workload_dir(void);

#endif
