/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line's shared parts (cli.c): the command table's entry,
 * the help, the usage errors and the one option loop every command
 * parses with.  A command in another file (bench/cli.c) uses these, so
 * that help and errors read the same everywhere.
 */
#ifndef ABPATH_CLI_H
#define ABPATH_CLI_H

#include <getopt.h>
#include <stdbool.h>

struct cmd {
	const char *name;
	int (*fn)(const struct cmd *c, int argc, char **argv);
	const char *args;	/* synopsis after the command name */
	const char *summary;
	const char *help;	/* options and details, may be NULL */
	bool json;		/* accepts -j */
	/* The rest of the help, from what this machine has; may be NULL. */
	void (*help_here)(void);
};

/* -j, given before or after the command. */
extern bool cli_json;

int cli_help(const struct cmd *c);
/* "abpath: MESSAGE" and the command's usage on stderr; returns 2. */
int cli_usage_error(const struct cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A command's own option, from cli_options(): -1 to go on, or the exit
 * code (a usage error, say).
 */
typedef int cli_opt_fn(const struct cmd *c, int opt, char *arg, void *ctx);

/*
 * Parses argv[0..argc) with getopt_long: -h prints the command's help,
 * -j sets cli_json, a missing value or an unknown option is a usage
 * error, and every other option goes to @fn (NULL: the command has
 * none).  @shortopts starts with ':' and has "h" (and "j" for a command
 * that takes it).  Returns -1 with *rest at the first operand, or the
 * exit code.
 */
int cli_options(const struct cmd *c, int argc, char **argv,
		const char *shortopts, const struct option *longopts,
		cli_opt_fn *fn, void *ctx, int *rest);

/* -1 if @path is one the module (or this tool) knows, else 2. */
int cli_check_path(const struct cmd *c, const char *path);

/* The help command: abpath's help, or one command's. */
int cli_help_cmd(const struct cmd *c, int argc, char **argv);
/*
 * Parses the global options and runs the command of @cmds (ended by a
 * NULL name) that argv names; returns the exit code.
 */
int cli_main(const struct cmd *cmds, int argc, char **argv);

#endif
