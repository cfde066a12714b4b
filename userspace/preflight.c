// SPDX-License-Identifier: GPL-2.0
/*
 * abpath check: the preflight.  For each backend and each path, yes, no
 * with the option or symbol that decides it, or unknown where what was
 * read cannot say; then one verdict that names the way.  The running
 * kernel's facts come through the door (kernel.c); a config file given
 * with --config is judged alone, with what a config cannot tell said.
 * The options are module/requires.h's, as Kbuild and dkms.conf read
 * them, and the sites module/paths.h's, as the module takes them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "output.h"
#include "preflight.h"

/* The paths, and each one's stock site: the function ftrace takes. */
static const char *const paths[] = {
#define ABPATH_PATH(name) #name,
#include "../module/paths.h"
};
#define NPATHS ((int)(sizeof(paths) / sizeof(paths[0])))

static const struct {
	const char *path, *func;
} stock_sites[] = {
#define ABPATH_STOCK(name, func, ...) { #name, #func },
#define ABPATH_STOCK_DIVERT(name, func, ...) { #name, #func },
#include "../module/paths.h"
};
#define NSITES ((int)(sizeof(stock_sites) / sizeof(stock_sites[0])))

static const struct {
	const char *backend, *path, *option, *why;
} unavailable[] = {
#define ABPATH_UNAVAILABLE(backend, path, option, why) \
	{ #backend, #path, #option, why },
#include "../module/requires.h"
};
#define NUNAVAIL ((int)(sizeof(unavailable) / sizeof(unavailable[0])))

const char preflight_synopsis[] = "[-j] [--config FILE]";
const char preflight_summary[] =
	"Tell whether abpath will work on this kernel, or on a config's.";
const char preflight_help[] =
	"  -j, --json          JSON output\n"
	"  -c, --config FILE   judge this kernel config (a /boot config, a\n"
	"                      procfs's config.gz, a distribution's published\n"
	"                      config) instead of the running kernel\n"
	"\nFor each backend and each path: yes, no with the config option or\n"
	"symbol that decides it, or unknown.  The options are those DKMS and\n"
	"Kbuild check (module/requires.h).\n"
	"\nExits 0 if a backend works as far as can be seen, 3 if one works\n"
	"only if what check cannot see allows (a signing key, an option the\n"
	"config does not state, the headers), 1 if neither can, 2 on a usage\n"
	"error or a FILE that is not a readable kernel config.\n";

void out_tri(const char *key, enum tri t)
{
	if (t == TRI_UNKNOWN)
		out_null(key);
	else
		out_bool(key, t == TRI_YES);
}

/* What the verdict rests on, for one kernel. */
struct judged {
	bool running;		/* the running kernel, not a config file */
	struct ctl_config cfg;
	struct ctl_kernel k;	/* running only */
	enum tri need[CTL_MAX_REQUIRES], refuse[CTL_MAX_REQUIRES];
	enum tri backend[2];	/* patched, stock */
	char why[2][1024];	/* what decides each that is not yes */
	enum tri sym[NSITES > 0 ? NSITES : 1], trace[NSITES > 0 ? NSITES : 1];
	int sym_err, trace_err;
	enum tri path[2][NPATHS];
	char path_why[2][NPATHS][256];
	int usable[2];		/* paths yes or unknown, per backend */
};

static const char *const backends[2] = { "patched", "stock" };

static const char *tri_word(enum tri t)
{
	return t == TRI_YES ? "yes" : t == TRI_NO ? "no" : "unknown";
}

static void append(char *buf, size_t len, const char *sep, const char *fmt,
		   const char *a, const char *b)
{
	size_t used = strlen(buf);

	if (used + 1 >= len)
		return;
	snprintf(buf + used, len - used, "%s", used ? sep : "");
	used = strlen(buf);
	snprintf(buf + used, len - used, fmt, a, b);
}

/*
 * A backend's options: the ones not set, as dkms.conf words them, else
 * the ones the config does not state.
 */
static enum tri judge_options(struct judged *j, int b)
{
	enum tri met = ctl_requires_met(j->need, backends[b]);
	enum tri want = met == TRI_NO ? TRI_NO : TRI_UNKNOWN;

	for (int i = 0; met != TRI_YES && i < ctl_n_requires; i++)
		if (!strcmp(ctl_requires[i].backend, backends[b]) &&
		    ctl_require_counts(j->need, i) && j->need[i] == want)
			append(j->why[b], sizeof(j->why[b]), "; ",
			       want == TRI_NO ? "%s is not set: %s"
					      : "%s is not stated in this config: %s",
			       ctl_requires[i].option, ctl_requires[i].why);
	return met;
}

static int site_of(const char *path)
{
	for (int s = 0; s < NSITES; s++)
		if (!strcmp(stock_sites[s].path, path))
			return s;
	return -1;
}

/* One path on the stock backend: its config, then its site. */
static enum tri judge_stock_path(struct judged *j, int p, char *why,
				 size_t len)
{
	int s = site_of(paths[p]);
	enum tri t;

	if (s < 0) {
		snprintf(why, len, "the stock backend has no site for it");
		return TRI_NO;
	}
	for (int u = 0; u < NUNAVAIL; u++) {
		if (strcmp(unavailable[u].backend, "stock") ||
		    strcmp(unavailable[u].path, paths[p]))
			continue;
		t = ctl_config_get(&j->cfg, unavailable[u].option);
		if (t == TRI_YES) {
			snprintf(why, len, "%s is set: %s", unavailable[u].option,
				 unavailable[u].why);
			return TRI_NO;
		}
	}
	if (!j->running) {
		snprintf(why, len, "a config cannot tell whether %s() is "
			 "present and traceable", stock_sites[s].func);
		return TRI_UNKNOWN;
	}
	if (!j->sym_err && j->sym[s] == TRI_NO) {
		snprintf(why, len, "%s is not in kallsyms", stock_sites[s].func);
		return TRI_NO;
	}
	if (!j->trace_err && j->trace[s] == TRI_NO) {
		snprintf(why, len, "%s is not in available_filter_functions: "
			 "inlined or notrace", stock_sites[s].func);
		return TRI_NO;
	}
	if (j->sym_err || j->trace_err) {
		snprintf(why, len, "cannot read %s: %s",
			 j->sym_err ? "kallsyms" : "available_filter_functions",
			 strerror(-(j->sym_err ? j->sym_err : j->trace_err)));
		return TRI_UNKNOWN;
	}
	snprintf(why, len, "%s() is traceable", stock_sites[s].func);
	return TRI_YES;
}

static void judge(struct judged *j)
{
	const char *funcs[NSITES > 0 ? NSITES : 1];
	struct ctl_hooks hooks;
	bool have_hooks;
	int b, p, i;

	for (i = 0; i < ctl_n_requires; i++)
		j->need[i] = ctl_config_get(&j->cfg, ctl_requires[i].option);
	for (i = 0; i < ctl_n_refuses; i++)
		j->refuse[i] = ctl_config_get(&j->cfg, ctl_refuses[i].option);
	for (b = 0; b < 2; b++)
		j->backend[b] = judge_options(j, b);
	if (j->running) {
		/* The hook patch shows itself in kallsyms and debugfs too. */
		if (j->k.hooks == TRI_YES)
			j->why[0][0] = '\0';
		j->backend[0] = j->k.hooks;
		for (i = 0; i < NSITES; i++)
			funcs[i] = stock_sites[i].func;
		j->sym_err = ctl_kallsyms_find(funcs, NSITES, j->sym);
		j->trace_err = ctl_traceable(funcs, NSITES, j->trace);
	}
	/* The paths the hook patch has a site for, where debugfs says. */
	have_hooks = j->running && j->backend[0] == TRI_YES &&
		     !ctl_read_hooks(&hooks);
	for (p = 0; p < NPATHS; p++) {
		j->path[0][p] = j->backend[0];
		snprintf(j->path_why[0][p], sizeof(j->path_why[0][p]), "%s",
			 j->backend[0] == TRI_YES ? "the hook patch's site" :
			 j->backend[0] == TRI_NO ? "no hook patch" :
			 "the hook patch is unknown");
		for (i = 0; have_hooks && i < hooks.n; i++)
			if (!strcmp(hooks.name[i], paths[p]))
				break;
		if (have_hooks && i == hooks.n) {
			j->path[0][p] = TRI_NO;
			snprintf(j->path_why[0][p], sizeof(j->path_why[0][p]),
				 "the hook patch has no site for it");
		}
		j->path[1][p] = judge_stock_path(j, p, j->path_why[1][p],
						 sizeof(j->path_why[1][p]));
		if (j->backend[1] == TRI_NO) {
			j->path[1][p] = TRI_NO;
			snprintf(j->path_why[1][p], sizeof(j->path_why[1][p]),
				 "the stock backend cannot work here");
		}
		for (b = 0; b < 2; b++)
			j->usable[b] += j->path[b][p] != TRI_NO;
	}
	/* A stock module with no site left attaches nothing. */
	if (j->backend[1] != TRI_NO && !j->usable[1]) {
		j->backend[1] = TRI_NO;
		snprintf(j->why[1], sizeof(j->why[1]), "none of its sites is "
			 "present and traceable");
	}
	if (j->backend[0] == TRI_NO && !j->why[0][0])
		snprintf(j->why[0], sizeof(j->why[0]), "no hook patch: neither "
			 "CONFIG_ABPATH_HOOKS nor its abpath_register");
}

/* Where DKMS's key is, for the line that says to enroll it. */
#define ENROLL "unless the key DKMS signs with is enrolled " \
	"(mokutil --import /var/lib/dkms/mok.pub), which check cannot see"

/* What stops a module built by DKMS from loading: each a reason line. */
static int load_refusals(const struct judged *j, char lines[][256], int max)
{
	int n = 0;

	for (int i = 0; i < ctl_n_refuses && n < max; i++)
		if (j->refuse[i] == TRI_YES)
			snprintf(lines[n++], 256, "%s is set: %s",
				 ctl_refuses[i].option, ctl_refuses[i].why);
	if (!j->running)
		return n;
	if (j->k.sig_enforce == TRI_YES && n < max)
		snprintf(lines[n++], 256, "module.sig_enforce is on: only "
			 "modules signed by a trusted key load");
	if (*j->k.lockdown && strcmp(j->k.lockdown, "none") && n < max)
		snprintf(lines[n++], 256, "lockdown is %s: only modules signed "
			 "by a trusted key load", j->k.lockdown);
	if (j->k.secure_boot == TRI_YES && n < max)
		snprintf(lines[n++], 256, "Secure Boot is on: the kernel may "
			 "lock itself down and trust only its keys");
	return n;
}

/* Older than upstream's register_ftrace_direct_multi(): 5.16. */
static bool before_direct_multi(const char *version)
{
	int major, minor;

	return sscanf(version, "%d.%d", &major, &minor) == 2 &&
	       (major < 5 || (major == 5 && minor < 16));
}

static void out_cannot_tell(const struct judged *j)
{
	out_begin_array("cannot_tell");
	if (!j->cfg.complete)
		out_string(NULL, "this config does not state every option (an "
			   "input config or an excerpt): an option it leaves out "
			   "is unknown, not off");
	if (!j->running) {
		out_string(NULL, "whether each stock site is present and "
			   "traceable: inlining, the distribution's patches and "
			   "LTO decide it, not the config");
		out_string(NULL, before_direct_multi(j->cfg.version) ?
			   "which ftrace direct-call API the headers declare: "
			   "upstream has register_ftrace_direct_multi() from "
			   "5.16, and a distribution may backport it (RHEL 9.2's "
			   "5.14 does); only the headers tell" :
			   "which ftrace direct-call API the headers declare "
			   "(module/compat.kbuild reads it from them at build "
			   "time)");
		out_string(NULL, "which keys the kernel trusts, and whether "
			   "Secure Boot, lockdown= or module.sig_enforce=1 "
			   "refuse an unsigned module at boot");
	} else if (j->sym_err == -EACCES || j->trace_err == -EACCES) {
		out_string(NULL, "whether the stock sites are traceable: "
			   "tracing's available_filter_functions is root's; "
			   "run check as root");
	} else if (j->trace_err == -ENOENT) {
		out_string(NULL, "whether the stock sites are traceable: "
			   "tracing's available_filter_functions is not "
			   "there: tracefs is not mounted, or it is root's "
			   "and check was not run as root");
	} else if (j->sym_err || j->trace_err) {
		out_string(NULL, "whether the stock sites are traceable: "
			   "reading kallsyms or available_filter_functions "
			   "failed");
	}
	out_end();
}

/*
 * The verdict: yes (0), maybe (3: only if what check cannot see allows)
 * or no (1), the way, and why, in one line.
 */
static int verdict(const struct judged *j, const char refusals[][256],
		   int nref, bool headers_missing)
{
	char text[3072] = "", tmp[128];
	const char *way = NULL;
	int b = 0, ret, i, n;

	for (i = 0; i < 2 && !way; i++)
		if (j->backend[i] == TRI_YES)
			way = backends[b = i];
	/* Unknown: stock first, as no distribution carries the hook patch. */
	for (i = 1; i >= 0 && !way; i--)
		if (j->backend[i] == TRI_UNKNOWN)
			way = backends[b = i];
	if (!way) {
		ret = PREFLIGHT_NO;
		snprintf(text, sizeof(text), "abpath cannot work on this kernel: "
			 "the stock backend cannot work because %s; the way is "
			 "the patched backend: build the kernel with the hook "
			 "patch (" CTL_HOOK_PATCHES ")", j->why[1]);
	} else if (j->backend[b] == TRI_UNKNOWN) {
		ret = PREFLIGHT_IF;
		snprintf(text, sizeof(text), "the %s backend works if the kernel "
			 "sets what this config does not state: ", way);
		for (i = 0, n = 0; i < ctl_n_requires; i++)
			if (!strcmp(ctl_requires[i].backend, way) &&
			    ctl_require_counts(j->need, i) &&
			    j->need[i] == TRI_UNKNOWN)
				snprintf(text + strlen(text), sizeof(text) -
					 strlen(text), "%s%s", n++ ? ", " : "",
					 ctl_requires[i].option);
		snprintf(tmp, sizeof(tmp), "(%d of %d paths as far as a config "
			 "can tell)", j->usable[b], NPATHS);
		append(text, sizeof(text), " ", "%s%s", tmp, "");
	} else {
		ret = 0;
		snprintf(text, sizeof(text), "the %s backend works (%d of %d "
			 "paths%s)", way, j->usable[b], NPATHS,
			 j->running ? "" : " as far as a config can tell");
	}
	for (i = 0; i < nref; i++)
		append(text, sizeof(text), "; ", "%s%s", i ? "" :
		       way ? "it loads only if signed: " : "and even then ",
		       refusals[i]);
	if (nref)
		append(text, sizeof(text), ", ", "%s%s", ENROLL, "");
	if (way && headers_missing)
		append(text, sizeof(text), "; ", "%s%s", "DKMS needs the "
		       "kernel's headers (/lib/modules/RELEASE/build), which "
		       "are not installed", "");
	if (!ret && (nref || (way && headers_missing)))
		ret = PREFLIGHT_IF;
	out_begin_object("verdict", OUT_PLAIN);
	out_string("result", ret == 0 ? "yes" : ret == PREFLIGHT_NO ? "no"
						     : "maybe");
	out_string("backend", way);
	out_string("reason", text);
	out_end();
	return ret;
}

static void out_kernel(const struct judged *j)
{
	out_begin_object("kernel", OUT_PLAIN);
	out_string("judged", j->running ? "the running kernel" :
		   "a config file alone");
	out_string("release", j->running ? j->k.release : NULL);
	out_string("config_file", *j->cfg.source ? j->cfg.source : NULL);
	out_string("config_version", *j->cfg.version ? j->cfg.version : NULL);
	out_bool("config_complete", j->cfg.complete);
	out_end();
}

static void out_backends(const struct judged *j)
{
	out_begin_object("backends", OUT_PLAIN);
	for (int b = 0; b < 2; b++) {
		out_begin_object(backends[b], OUT_PLAIN);
		out_string("works", tri_word(j->backend[b]));
		out_string("reason", j->why[b][0] ? j->why[b] : NULL);
		/* How the stock backend would reach unexported symbols. */
		if (b == 1)
			out_string("resolution", ctl_resolution(j->need));
		for (int i = 0; i < ctl_n_requires; i++)
			if (!strcmp(ctl_requires[i].backend, backends[b]))
				out_tri(ctl_requires[i].option, j->need[i]);
		out_end();
	}
	out_end();
}

static void out_paths(const struct judged *j)
{
	int s;

	out_begin_table("paths", OUT_ROWS, "path");
	for (int p = 0; p < NPATHS; p++) {
		out_begin_object(paths[p], OUT_PLAIN);
		out_string("patched", tri_word(j->path[0][p]));
		out_string("stock", tri_word(j->path[1][p]));
		s = site_of(paths[p]);
		out_string("stock_site", s < 0 ? NULL : stock_sites[s].func);
		if (j->running && s >= 0) {
			out_tri("in_kallsyms", j->sym_err ? TRI_UNKNOWN : j->sym[s]);
			out_tri("traceable", j->trace_err ? TRI_UNKNOWN
							  : j->trace[s]);
		}
		/* Last: the one wide column. */
		out_string("stock_reason", j->path_why[1][p]);
		out_end();
	}
	out_end();
}

/* Returns the number of refusals, in lines[]. */
static int out_load(const struct judged *j, char lines[][256], int max,
		    enum tri headers)
{
	int n = load_refusals(j, lines, max);

	out_begin_object("load", OUT_PLAIN);
	for (int i = 0; i < ctl_n_refuses; i++)
		out_tri(ctl_refuses[i].option, j->refuse[i]);
	if (j->running) {
		out_tri("sig_enforce", j->k.sig_enforce);
		out_string("lockdown", *j->k.lockdown ? j->k.lockdown : NULL);
		out_tri("secure_boot", j->k.secure_boot);
		out_tri("headers", headers);
	}
	out_begin_array("refused_unless_signed");
	for (int i = 0; i < n; i++)
		out_string(NULL, lines[i]);
	out_end();
	out_end();
	return n;
}

static int check_opt(const struct cmd *c, int opt, char *arg, void *ctx)
{
	(void)c;
	(void)opt;	/* only -c */
	*(const char **)ctx = arg;
	return -1;
}

int preflight_cmd(const struct cmd *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char refusals[8][256];
	const char *file = NULL;
	enum tri headers = TRI_UNKNOWN;
	struct judged *j;
	int ret, rest, err, n;

	ret = cli_options(c, argc, argv, ":hjc:", opts, check_opt, &file, &rest);
	if (ret >= 0)
		return ret;
	if (rest < argc)
		return cli_usage_error(c, "unexpected argument '%s'", argv[rest]);
	j = calloc(1, sizeof(*j));
	if (!j) {
		abpath_error("out of memory");
		return 1;
	}
	j->running = !file;
	err = ctl_config_read(&j->cfg, file);
	if (err && file) {
		if (err == -EINVAL)
			abpath_error("%s is not a kernel config: it has no "
				     "CONFIG_ line", file);
		else
			abpath_error("cannot read %s: %s", file, strerror(-err));
		free(j);
		return 2;
	}
	if (j->running) {
		ctl_kernel_probe(&j->k);
		headers = ctl_kernel_headers(j->k.release);
		if (err)
			abpath_warn("no config of the running kernel (%s/config.gz "
				    "or /boot/config-%s): its options are unknown",
				    "procfs", j->k.release);
	}
	judge(j);
	out_init(cli_json);
	out_kernel(j);
	out_backends(j);
	out_paths(j);
	n = out_load(j, refusals, 8, headers);
	out_cannot_tell(j);
	ret = verdict(j, refusals, n, headers == TRI_NO);
	ctl_config_free(&j->cfg);
	free(j);
	if (out_flush(stdout)) {
		abpath_error("writing to standard output: %s", strerror(errno));
		return 1;
	}
	return ret;
}
