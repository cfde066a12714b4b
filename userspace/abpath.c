// SPDX-License-Identifier: GPL-2.0
/*
 * abpath: switch kernel paths between their legacy and optimized
 * algorithms at run time and watch the counters.  The commands and their
 * table, which cli.c dispatches.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli.h"
#include "control.h"
#include "kmod.h"
#include "output.h"
#include "counters.h"
#include "preflight.h"

static const struct option opts_help[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const struct option opts_json[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options every command shares: -h, and -j where it applies. */
static int parse_simple(const struct cmd *c, int argc, char **argv, int *rest)
{
	return cli_options(c, argc, argv, c->json ? ":hj" : ":h",
			   c->json ? opts_json : opts_help, NULL, NULL, rest);
}

static int no_operands(const struct cmd *c, int argc, char **argv)
{
	int ret, rest;

	ret = parse_simple(c, argc, argv, &rest);
	if (ret >= 0)
		return ret;
	if (rest < argc)
		return cli_usage_error(c, "unexpected argument '%s'", argv[rest]);
	return -1;
}

/* ---- status ------------------------------------------------------------ */

static int do_status(const struct cmd *c, int argc, char **argv)
{
	static const char *const debugfs_names[] = {
		[DEBUGFS_MOUNTED] = "mounted",
		[DEBUGFS_NOT_MOUNTED] = "not mounted",
		[DEBUGFS_NO_ACCESS] = "no access",
	};
	char buf[256], backend[CTL_NAME_MAX];
	struct ctl_hooks hooks;
	struct ctl_kernel k;
	struct ctl_paths p;
	struct counter_set stats = { 0 };
	bool loaded, have_hooks, have_stats;
	struct km_info ki;
	size_t e = 0;
	int ret, i, j;

	ret = no_operands(c, argc, argv);
	if (ret >= 0)
		return ret;
	out_init(cli_json);
	km_info(&ki);
	/* sysfs is what every other command uses, so it counts too. */
	loaded = ki.loaded || ctl_module_present();
	ctl_kernel_probe(&k);
	have_hooks = ctl_read_hooks(&hooks) == 0;

	out_begin_object("module", OUT_PLAIN);
	out_string("name", ABPATH_MODULE);
	out_bool("loaded", loaded);
	out_string("state", ki.state);
	out_string("version", ctl_module_version(buf, sizeof(buf)) ? NULL : buf);
	if (ctl_backend(backend, sizeof(backend)))
		backend[0] = '\0';
	out_string("backend", *backend ? backend : NULL);
	out_string("resolution", ctl_resolution_loaded(buf, sizeof(buf)) ?
				 NULL : buf);
	if (ki.refcnt >= 0)
		out_u64("refcnt", (uint64_t)ki.refcnt);
	else
		out_null("refcnt");
	out_end();

	/*
	 * The backend in use, or the one abpath.ko would take here: only
	 * its own fields say anything (a stock kernel has no hook patch,
	 * and that is no failure).  A kernel that takes neither shows both,
	 * so that what it lacks is in view.
	 */
	if (!*backend)
		ctl_copy(backend, sizeof(backend),
			 k.hooks == TRI_YES ? "patched" :
			 k.stock == TRI_YES ? "stock" : "");
	out_begin_object("kernel", OUT_PLAIN);
	out_string("release", k.release);
	out_string("version", k.version);
	out_string("backend_support", k.hooks == TRI_YES ? "patched" :
		   k.stock == TRI_YES ? "stock" :
		   k.hooks == TRI_NO && k.stock == TRI_NO ? "neither" : NULL);
	out_string("config_file", *k.config_source ? k.config_source : NULL);
	out_string("debugfs", debugfs_names[k.debugfs]);
	if (strcmp(backend, "stock")) {
		out_begin_object("hook_patch", OUT_PLAIN);
		out_tri("CONFIG_ABPATH_HOOKS", k.config);
		/* Its API in kallsyms, or its debugfs file. */
		out_tri("api_in_kernel", k.hooks_file ? TRI_YES : k.kallsyms);
		if (have_hooks)
			out_bool("module_registered", hooks.registered);
		else
			out_null("module_registered");
		out_end();
	}
	if (strcmp(backend, "patched")) {
		out_begin_object("stock_backend", OUT_PLAIN);
		/* The one this kernel's config gives it, if any. */
		out_string("resolution", ctl_resolution(k.need));
		/* module/requires.h's, as abpath check judges them. */
		for (i = 0; i < ctl_n_requires; i++)
			if (!strcmp(ctl_requires[i].backend, "stock"))
				out_tri(ctl_requires[i].option, k.need[i]);
		/* 0 detaches every ftrace user, abpath's legacy arms too. */
		out_tri("ftrace_enabled", k.ftrace_enabled);
		out_end();
	}
	/* What lets a module built by DKMS load, on either backend. */
	out_begin_object("module_signatures", OUT_PLAIN);
	out_tri("sig_enforce", k.sig_enforce);
	out_string("lockdown", *k.lockdown ? k.lockdown : NULL);
	out_tri("secure_boot", k.secure_boot);
	out_end();
	out_end();

	out_string("mode", ctl_module_mode(buf, sizeof(buf)) ? NULL : buf);

	ctl_path_names(&p);
	/* A path the kernel knows but this module does not is shown too. */
	for (i = 0; have_hooks && i < hooks.n; i++)
		if (!ctl_valid_path(&p, hooks.name[i]) && p.n < CTL_MAX_PATHS)
			snprintf(p.name[p.n++], CTL_NAME_MAX, "%s",
				 hooks.name[i]);
	/* The watchdog's reverts live in debugfs, readable by root only. */
	have_stats = loaded && k.debugfs == DEBUGFS_MOUNTED &&
		     counters_read(&stats) == 0;
	out_begin_table("paths", OUT_ROWS, "path");
	for (i = 0; i < p.n; i++) {
		out_begin_object(p.name[i], OUT_PLAIN);
		out_string("mode", ctl_path_mode(p.name[i], buf, sizeof(buf)) ?
				   NULL : buf);
		for (j = 0; have_hooks && j < hooks.n; j++)
			if (!strcmp(hooks.name[j], p.name[i]))
				break;
		/* Only the hook patch has static keys: ftrace is stock's. */
		if (have_hooks && j < hooks.n)
			out_bool("static_key", hooks.key[j]);
		else if (strcmp(backend, "stock"))
			out_null("static_key");
		for (e = 0; have_stats && e < stats.n; e++)
			if (!strcmp(stats.e[e].path, p.name[i]) &&
			    !strcmp(stats.e[e].mode, "legacy") &&
			    !strcmp(stats.e[e].counter, "watchdog_reverts"))
				break;
		if (have_stats && e < stats.n)
			out_u64("watchdog_reverts", stats.e[e].value);
		else
			out_null("watchdog_reverts");
		/* Last: the one wide column of the table. */
		out_string("site", ctl_path_site(p.name[i], buf, sizeof(buf)) ?
				   NULL : buf);
		out_end();
	}
	out_end();
	if (have_stats)
		counters_free(&stats);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		return 1;
	}
	if (k.debugfs == DEBUGFS_NO_ACCESS)
		ctl_warn_hooks_unknown();
	if (!loaded)
		return ctl_explain_not_loaded();
	return 0;
}

/* ---- paths ------------------------------------------------------------- */

static int do_paths(const struct cmd *c, int argc, char **argv)
{
	struct ctl_paths p;
	bool loaded;
	int ret;

	ret = no_operands(c, argc, argv);
	if (ret >= 0)
		return ret;
	loaded = ctl_path_names(&p);
	out_init(cli_json);
	out_string("source", loaded ? "module" : "built-in");
	out_begin_array("paths");
	for (int i = 0; i < p.n; i++)
		out_string(NULL, p.name[i]);
	out_end();
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* ---- load, unload ------------------------------------------------------ */

static int load_opt(const struct cmd *c, int opt, char *arg, void *ctx)
{
	(void)c;
	(void)opt;	/* only -m */
	*(const char **)ctx = arg;
	return -1;
}

static int do_load(const struct cmd *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode = NULL;
	int ret, rest;

	ret = cli_options(c, argc, argv, ":hm:", opts, load_opt, &mode, &rest);
	if (ret >= 0)
		return ret;
	if (rest < argc)
		return cli_usage_error(c, "unexpected argument '%s'", argv[rest]);
	if (mode && !ctl_valid_mode(mode))
		return cli_usage_error(c, "unknown mode '%s'; valid modes: legacy, "
				       "optimized", mode);
	return km_load(mode);
}

static int do_unload(const struct cmd *c, int argc, char **argv)
{
	int ret = no_operands(c, argc, argv);

	return ret >= 0 ? ret : km_unload();
}

/* ---- set --------------------------------------------------------------- */

/* set's help: the paths, wrapped, as 'abpath paths' lists them here. */
static void set_help_here(void)
{
	struct ctl_paths p;
	int col = 2;

	ctl_path_names(&p);
	printf("\nPATH is one of the paths 'abpath paths' lists, here:\n ");
	for (int i = 0; i < p.n; i++) {
		if (col > 2 && col + (int)strlen(p.name[i]) + 2 > 72) {
			printf("\n ");
			col = 2;
		}
		col += printf(" %s%s", p.name[i], i + 1 < p.n ? "," : "\n");
	}
}

static int do_set(const struct cmd *c, int argc, char **argv)
{
	const char *path, *mode;
	int ret, rest, err;

	ret = parse_simple(c, argc, argv, &rest);
	if (ret >= 0)
		return ret;
	if (argc - rest != 2)
		return cli_usage_error(c, "expected PATH|all and MODE, got %d "
				       "argument%s", argc - rest,
				       argc - rest == 1 ? "" : "s");
	path = argv[rest];
	mode = argv[rest + 1];
	if (strcmp(path, "all") && (ret = cli_check_path(c, path)) >= 0)
		return ret;
	if (!ctl_valid_mode(mode))
		return cli_usage_error(c, "unknown mode '%s'; valid modes: legacy, "
				       "optimized", mode);
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	err = ctl_set_mode(path, mode);
	return err ? ctl_explain_set(path, mode, err) : 0;
}

/* ---- stats, reset ------------------------------------------------------ */

static int stats_opt(const struct cmd *c, int opt, char *arg, void *ctx)
{
	double *interval = ctx;
	char *end;

	(void)opt;	/* only -w */
	errno = 0;
	*interval = strtod(arg, &end);
	/* Faster than 10 ms would mostly measure ourselves. */
	if (errno || end == arg || *end || !isfinite(*interval) ||
	    *interval < 0.01 || *interval > 86400)
		return cli_usage_error(c, "invalid interval '%s'; expected seconds "
				       "between 0.01 and 86400", arg);
	return -1;
}

static int do_stats(const struct cmd *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double interval = 0;
	int ret, rest;

	ret = cli_options(c, argc, argv, ":hjw:", opts, stats_opt, &interval,
			  &rest);
	if (ret >= 0)
		return ret;
	if (rest < argc)
		return cli_usage_error(c, "unexpected argument '%s'", argv[rest]);
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	out_init(cli_json);
	return interval > 0 ? counters_watch(interval) : counters_show();
}

static int do_reset(const struct cmd *c, int argc, char **argv)
{
	int ret, err;

	ret = no_operands(c, argc, argv);
	if (ret >= 0)
		return ret;
	if (!ctl_module_present())
		return ctl_explain_not_loaded();
	err = ctl_reset();
	return err ? ctl_explain_reset(err) : 0;
}

/* ---- workloads --------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int do_workloads(const struct cmd *c, int argc, char **argv)
{
	const char *dir = bench_workload_dir();
	char **names = NULL, file[4096];
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	int ret;
	DIR *d;

	ret = no_operands(c, argc, argv);
	if (ret >= 0)
		return ret;
	d = opendir(dir);
	if (!d && errno == ENOENT)
		return bench_no_workload_dir();
	if (!d) {
		abpath_error("%s: %s", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		if (de->d_name[0] == '.' || stat(file, &st) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
			continue;
		if (n == cap) {
			char **grown;

			cap = cap ? 2 * cap : 16;
			grown = realloc(names, cap * sizeof(*names));
			if (!grown)
				goto oom;
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (!names[n++])
			goto oom;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);

	out_init(cli_json);
	out_string("directory", dir);
	out_begin_array("workloads");
	for (size_t i = 0; i < n; i++) {
		out_string(NULL, names[i]);
		free(names[i]);
	}
	out_end();
	free(names);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		return 1;
	}
	return 0;
oom:
	/* Exiting frees the rest; this only has to be said. */
	abpath_error("out of memory");
	exit(1);
}

/* ---- the table ---------------------------------------------------------- */

static const struct cmd cmds[] = {
	{ "status", do_status, "[-j]",
	  "Show the module, the kernel hooks and each path's mode.",
	  "  -j, --json   JSON output\n"
	  "\nExits 1 if the module is not loaded, after printing what is "
	  "known.\n", true, NULL },
	{ "paths", do_paths, "[-j]",
	  "List the paths: the loaded module's, else those abpath was built "
	  "with.",
	  "  -j, --json   JSON output\n", true, NULL },
	{ "load", do_load, "[--mode legacy|optimized]",
	  "Load the abpath module through libkmod.",
	  "  -m, --mode M   initial mode of every path (module default: "
	  "optimized)\n", false, NULL },
	{ "unload", do_unload, "",
	  "Unload the abpath module; fails if it is in use.", NULL, false, NULL },
	{ "set", do_set, "PATH|all legacy|optimized",
	  "Switch one path, or all, to the legacy or the optimized algorithm.",
	  NULL, false, set_help_here },
	{ "stats", do_stats, "[-j] [--watch SEC]",
	  "Show the counters per path and mode.",
	  "  -j, --json        JSON output, one object per line and sample\n"
	  "  -w, --watch SEC   redraw every SEC seconds (fractions allowed) "
	  "with\n"
	  "                    per-second rates, until Ctrl-C\n", true, NULL },
	{ "reset", do_reset, "",
	  "Zero every counter.", NULL, false, NULL },
	{ "workloads", do_workloads, "[-j]",
	  "List the installed workloads.",
	  "  -j, --json   JSON output\n"
	  "\nThe directory is " ABPATH_WORKLOAD_DIR ", or $ABPATH_WORKLOAD_DIR.\n",
	  true, NULL },
	{ "check", preflight_cmd, preflight_synopsis, preflight_summary,
	  preflight_help, true, NULL },
	{ "bench", bench_cmd, bench_synopsis, bench_summary, bench_help, true,
	  NULL },
	{ "help", cli_help_cmd, "[COMMAND]",
	  "Show the help for abpath or for one command.", NULL, false, NULL },
	{ NULL, NULL, NULL, NULL, NULL, false, NULL },
};

int main(int argc, char **argv)
{
	return cli_main(cmds, argc, argv);
}
