// SPDX-License-Identifier: GPL-2.0
/*
 * The command line's machinery: one table (abpath.c's) drives dispatch,
 * help and the usage errors, in the style of bpftool and ip(8), so that a
 * command cannot exist without its help; and the one option loop every
 * command parses with, bench/cli.c's too.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "control.h"
#include "output.h"

bool cli_json;
/* cli_main()'s table, for the global usage and the lookup of a command. */
static const struct cmd *table;

static const struct option opts_help[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void cmd_usage(const struct cmd *c, FILE *f)
{
	fprintf(f, "Usage: abpath %s%s%s\n", c->name, *c->args ? " " : "",
		c->args);
}

int cli_help(const struct cmd *c)
{
	cmd_usage(c, stdout);
	printf("\n%s\n", c->summary);
	if (c->help)
		printf("\n%s", c->help);
	if (c->help_here)
		c->help_here();
	return 0;
}

/* full: the whole help; otherwise the synopsis and commands only. */
static void global_usage(FILE *f, bool full)
{
	fputs("Usage: abpath [-j] COMMAND [ARGS]\n"
	      "       abpath COMMAND --help | abpath help [COMMAND]\n"
	      "       abpath --version\n"
	      "\n"
	      "Switch kernel paths between their legacy and optimized "
	      "algorithms at run time.\n"
	      "\n"
	      "Commands:\n", f);
	for (const struct cmd *c = table; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	if (!full) {
		fputs("Try 'abpath --help' for more information.\n", f);
		return;
	}
	fputs("\n"
	      "Options:\n"
	      "  -j, --json     JSON output (status, stats, workloads, check, bench)\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n"
	      "\n"
	      "Exit status: 0 success, 1 failure, 2 usage error (check: 3 maybe).\n"
	      "Environment: ABPATH_SYSFS, ABPATH_DEBUGFS, ABPATH_PROC, ABPATH_KMSG, "
	      "ABPATH_WORKLOAD_DIR (see abpath(1)).\n", f);
}

int cli_usage_error(const struct cmd *c, const char *fmt, ...)
{
	va_list ap;

	fputs("abpath: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (c) {
		cmd_usage(c, stderr);
		fprintf(stderr, "Try 'abpath %s --help' for more "
			"information.\n", c->name);
	} else {
		global_usage(stderr, false);
	}
	return 2;
}

static int bad_option(const struct cmd *c, int opt, char **argv)
{
	if (opt == ':')
		return cli_usage_error(c, "option '%s' requires an argument",
				       argv[optind - 1]);
	if (optopt)
		return cli_usage_error(c, "invalid option -- '%c'", optopt);
	return cli_usage_error(c, "unrecognized option '%s'", argv[optind - 1]);
}

int cli_options(const struct cmd *c, int argc, char **argv,
		const char *shortopts, const struct option *longopts,
		cli_opt_fn *fn, void *ctx, int *rest)
{
	int o, ret;

	optind = 0;
	while ((o = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (o) {
		case 'h':
			return cli_help(c);
		case 'j':
			cli_json = true;
			break;
		case ':':
		case '?':
			return bad_option(c, o, argv);
		default:
			ret = fn ? fn(c, o, optarg, ctx) : bad_option(c, o, argv);
			if (ret >= 0)
				return ret;
		}
	}
	*rest = optind;
	return -1;
}

int cli_check_path(const struct cmd *c, const char *path)
{
	char list[512];
	struct ctl_paths p;
	size_t used = 0;

	ctl_path_names(&p);
	if (ctl_valid_path(&p, path))
		return -1;
	for (int i = 0; i < p.n && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s, ", p.name[i]);
	return cli_usage_error(c, "unknown path '%s'; valid paths: %sall", path,
			       list);
}

/* An exact name wins; otherwise a unique prefix, as in ip(8) and bpftool. */
static const struct cmd *find_cmd(const char *name, int *status)
{
	const struct cmd *match = NULL;
	char list[256] = "";
	size_t used = 0;
	int n = 0;

	for (const struct cmd *c = table; c->name; c++) {
		if (!strcmp(c->name, name))
			return c;
		if (!strncmp(c->name, name, strlen(name)) && *name) {
			match = c;
			n++;
			used += (size_t)snprintf(list + used, sizeof(list) - used,
						 "%s%s", used ? ", " : "",
						 c->name);
		}
	}
	if (n == 1)
		return match;
	if (n > 1)
		*status = cli_usage_error(NULL, "ambiguous command '%s' (%s)", name,
					  list);
	else
		*status = cli_usage_error(NULL, "unknown command '%s'", name);
	return NULL;
}

int cli_help_cmd(const struct cmd *c, int argc, char **argv)
{
	const struct cmd *target;
	int ret, rest;

	ret = cli_options(c, argc, argv, ":h", opts_help, NULL, NULL, &rest);
	if (ret >= 0)
		return ret;
	if (rest == argc) {
		global_usage(stdout, true);
		return 0;
	}
	if (argc - rest > 1)
		return cli_usage_error(c, "unexpected argument '%s'", argv[rest + 1]);
	target = find_cmd(argv[rest], &ret);
	return target ? cli_help(target) : ret;
}

int cli_main(const struct cmd *cmds, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd *c;
	int o, ret;

	table = cmds;
	/* We report option errors ourselves, followed by the usage. */
	opterr = 0;
	while ((o = getopt_long(argc, argv, "+:jhV", opts, NULL)) != -1) {
		switch (o) {
		case 'j':
			cli_json = true;
			break;
		case 'h':
			global_usage(stdout, true);
			return 0;
		case 'V':
			printf("abpath %s\n", ABPATH_VERSION);
			return 0;
		default:
			return bad_option(NULL, o, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error(NULL, "no command given");
	c = find_cmd(argv[optind], &ret);
	if (!c)
		return ret;
	if (cli_json && !c->json)
		return cli_usage_error(c, "option -j does not apply to '%s'",
				       c->name);
	ret = c->fn(c, argc - optind, argv + optind);
	/* A full disk or closed pipe must not pass for success. */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (!ret)
			abpath_error("writing to standard output: %s",
				     strerror(errno));
		ret = ret ? ret : 1;
	}
	return ret;
}
