// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench's command line: its options, the "--" that hands the rest
 * to the workload, its help, where the workloads are, the checks of the
 * forms that run no workload given on the command line (--from, --suite),
 * and bench_run(), which ties the runs (run.c) to the report (report.c),
 * and the command itself, bench_cmd(), parsed through cli.h like every
 * other.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "../cli.h"
#include "../output.h"

/*
 * bench's options, once: getopt_long's table, its optstring and the
 * "--" split below are all derived from this.
 */
static const struct {
	const char *name;
	int val;
	bool arg;		/* takes a value */
	bool short_form;	/* also -<val> */
} opt_table[] = {
	{ "path", 'p', true, true },
	{ "runs", 'r', true, true },
	{ "max-runs", 'N', true, false },
	{ "precision", 'E', true, false },
	{ "margin", 'g', true, false },
	{ "warmup", 'W', true, false },
	{ "prepare", 'R', true, false },
	{ "plot", 'P', true, false },
	{ "json", 'j', false, true },
	{ "export-markdown", 'M', true, false },
	{ "export-csv", 'C', true, false },
	{ "export-json", 'X', true, false },
	{ "show-output", 'U', false, false },
	{ "ignore-failure", 'i', false, true },
	{ "help", 'h', false, true },
	{ "from", 'F', true, false },
	{ "pool", 'G', false, false },
	{ "suite", 'S', true, false },
	{ "quick", 'Q', false, false },
	{ "out", 'O', true, false },
	{ "factorial", 'K', true, false },
	{ "order", 'D', true, false },
};
#define NR_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static struct option long_opts[NR_OPTS + 1];
static char short_opts[2 * NR_OPTS + 2];

static void build_tables(void)
{
	size_t n = 0;

	if (long_opts[0].name)
		return;
	/* ':' first: a missing value is reported as such, not as '?'. */
	short_opts[n++] = ':';
	for (size_t i = 0; i < NR_OPTS; i++) {
		long_opts[i] = (struct option){ opt_table[i].name,
			opt_table[i].arg ? required_argument : no_argument,
			NULL, opt_table[i].val };
		if (!opt_table[i].short_form)
			continue;
		short_opts[n++] = (char)opt_table[i].val;
		if (opt_table[i].arg)
			short_opts[n++] = ':';
	}
}

const struct option *bench_long_options(void)
{
	build_tables();
	return long_opts;
}

const char *bench_short_options(void)
{
	build_tables();
	return short_opts;
}

/* Does argv element a (an option) take the next element as its value? */
static bool takes_next(const char *a)
{
	size_t len;

	if (a[0] != '-' || !a[1])
		return false;
	if (a[1] != '-') {
		/* In a cluster such as -jr, -p/-r take the rest, or the next. */
		for (a++; *a; a++)
			for (size_t i = 0; i < NR_OPTS; i++)
				if (opt_table[i].short_form && opt_table[i].arg &&
				    opt_table[i].val == *a)
					return a[1] == '\0';
		return false;
	}
	if (strchr(a, '='))
		return false;
	/* getopt_long takes unambiguous prefixes: --ru is --runs. */
	len = strlen(a + 2);
	for (size_t i = 0; i < NR_OPTS && len; i++)
		if (!strncmp(opt_table[i].name, a + 2, len))
			return opt_table[i].arg;
	return false;
}

/*
 * The first "--" that is not an option's value ends abpath's options:
 * what follows belongs to the workload, even words that look like ours.
 * getopt_long would permute them, so split before it runs.
 */
int bench_find_dashdash(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i;
		if (takes_next(argv[i]))
			i++;
	}
	return argc;
}

/* ---- workloads --------------------------------------------------------- */

/* Which path each built-in workload was written to exercise (docs/design.md). */
const char *bench_default_path(const char *workload)
{
	static const struct { const char *workload, *path; } map[] = {
		{ "pound-times", "group_cputime" },
		{ "pound-clock", "group_cputime" },
		{ "forkexit", "exit_reparent" },
		{ "thread-churn", "exit_reparent" },
		{ "itimer-threads", "timer_fastpath" },
		{ "sleep-loop", "timer_softirq" },
		{ "softirq-rate", "timer_softirq" },
	};
	const char *base = strrchr(workload, '/');

	base = base ? base + 1 : workload;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].workload, base))
			return map[i].path;
	return NULL;
}

/* ---- help -------------------------------------------------------------- */

const char bench_synopsis[] =
	"WORKLOAD [--path P] [OPTIONS] [-- ARGS]\n"
	"       abpath bench --path P [OPTIONS] -- COMMAND [ARGS]\n"
	"       abpath bench --from FILE [-j] [--plot FILE]\n"
	"       abpath bench --from [LABEL=]FILE --from [LABEL=]FILE ...\n"
	"       abpath bench --pool --from [LABEL=]FILE --from [LABEL=]FILE ... "
	"[-j]\n"
	"                    [--export-markdown FILE]\n"
	"       abpath bench WORKLOAD --factorial P,P[,...]|all [--runs R] "
	"[--order N]\n"
	"                    [--margin M] [OPTIONS] [-- ARGS]\n"
	"       abpath bench --suite history [--path P[,P...]] [--quick] "
	"[--runs N|auto]\n"
	"                    [--out DIR] [-j] [--plot FILE]";

const char bench_summary[] =
	"A/B-benchmark a workload or any command, legacy against optimized, "
	"interleaved.";

const char bench_help[] =
	"  -p, --path P     the path to switch, one 'abpath paths' lists, or\n"
	"                   all (default: the one the workload exercises)\n"
	"  -r, --runs N     measured runs per mode (default 6, at least 2;\n"
	"                   p < 0.05 needs at least 4; suite: 4, --quick 2)\n"
	"  -r, --runs auto  run ABBA blocks until a stopping rule decides:\n"
	"                   the ratio's 95% interval, valid over all the\n"
	"                   looks, excludes 1, lies within the margin, is as\n"
	"                   narrow as --precision, or the cap is reached\n"
	"      --max-runs N   the cap, runs per mode (default 20; suite 8,\n"
	"                   --quick 4; 2 to 1000, an odd N is N - 1)\n"
	"      --precision P  also stop when the interval's relative half-\n"
	"                   width is P% or less (default: not)\n"
	"      --margin M   'equivalent' within ±M% (default 2%)\n"
	"      --warmup N   discarded runs per mode, first (default 1)\n"
	"      --prepare CMD  run 'sh -c CMD' before every run, untimed\n"
	"  -j, --json       JSON output, with every run's value and counters\n"
	"      --plot FILE  also plot every run with gnuplot (.svg or .png);\n"
	"                   for a suite, one FILE-<experiment>.svg|png each\n"
	"      --export-markdown FILE  also write the summary as Markdown\n"
	"      --export-csv FILE       also write one CSV row per run\n"
	"      --export-json FILE      also write the JSON result (as -j)\n"
	"                   (FILE - is standard output, after the report)\n"
	"  -- ARGS          arguments for the workload (bench adds -j)\n"
	"  -- COMMAND       without WORKLOAD: time any command (needs --path);\n"
	"                   the metric is its wall time, with user and system\n"
	"                   time from wait4; its output is discarded, and a\n"
	"                   non-zero exit stops the bench (exit 1)\n"
	"      --show-output   a command's output on standard error instead\n"
	"  -i, --ignore-failure  a command's non-zero exit (or signal) is\n"
	"                   recorded with its run, and the bench goes on\n"
	"      --factorial P,Q[,...]|all  a 2^k factorial: every combination\n"
	"                   of these paths' modes (2 to 4 paths, at most 16\n"
	"                   cells), each once in each of R replicates\n"
	"                   (--runs R; default: the fewest, 2 or more, whose\n"
	"                   main-effect interval is no wider than a 4 + 4\n"
	"                   one-path bench's: 3 for 2 paths, 2 for 3 or 4),\n"
	"                   each replicate a block in a random order; the\n"
	"                   module's other paths are held where they are.\n"
	"                   Least squares on log(metric): block + main\n"
	"                   effects + interactions; each as legacy/optimized\n"
	"                   with a 95% t interval and a Holm-adjusted p\n"
	"      --order N    the highest interaction in the model (default\n"
	"                   2; higher ones go into the error)\n"
	"      --from FILE  report a saved result (bench -j, or a suite's\n"
	"                   JSON; - for stdin) again: run nothing, no module;\n"
	"                   again for more suite results: one table per\n"
	"                   experiment, a legacy/optimized column for each,\n"
	"                   headed by LABEL (--from LABEL=FILE) or by what\n"
	"                   the file records\n"
	"      --pool       pool one bench's results from 2 to 64 hosts, a\n"
	"                   --from each, named by the file's name without\n"
	"                   .json or by LABEL (--from LABEL=FILE): per host\n"
	"                   its ratio, CI, p and whether it differs (Holm);\n"
	"                   over the hosts the random-effects mean ratio with\n"
	"                   its 95% CI (HKSJ) and simulated coverage, tau,\n"
	"                   I^2, a sign test, a new host's 95% prediction\n"
	"                   interval (5+ hosts), and the hosts the others do\n"
	"                   not predict (4+ hosts, Bonferroni), each with the\n"
	"                   pool without it; -j and --export-markdown too\n"
	"      --suite history  the historical experiments, each a sweep of\n"
	"                   one workload over one parameter: Markdown tables\n"
	"                   on stdout; with --path, only the experiments\n"
	"                   of those paths (comma-separated)\n"
	"      --quick      smaller sweeps and 2 runs per mode (tests)\n"
	"      --out DIR    write DIR/<experiment>.json and DIR/history.json\n"
	"\nWORKLOAD is a name from 'abpath workloads', or a file with a '/'.\n"
	"Modes alternate legacy, optimized, optimized, legacy, ... (ABBA),\n"
	"warm-ups first.  Every path goes back to its original mode at the end,\n"
	"on a failed run, and on SIGINT/SIGTERM/SIGHUP, after which the runs\n"
	"done so far are reported (complete: false) and abpath dies of the\n"
	"same signal, so that a shell loop around it stops too.\n"
	"A run in which the watchdog sent a benched path back to optimized,\n"
	"a cross-check counted a mismatch, or the path's mode changed is\n"
	"invalid: reported with its reason, left out of every statistic.\n"
	"Reported per mode: the geometric mean with a 95% CI (t on the logs),\n"
	"median, min, max; legacy/optimized as the ratio of the geometric\n"
	"means with a 95% Welch t interval on the logs, and the same ratio\n"
	"from adjacent legacy/optimized runs (paired t); a two-sided\n"
	"Mann-Whitney U p, exact given the ties up to 60 runs in all.  The\n"
	"verdict claims a difference only when p < 0.05 and the interval\n"
	"excludes 1; it says 'inconclusive' when they disagree or when the\n"
	"run counts cannot reach p < 0.05 (3+3 runs: 0.10 at best).\n";

/* ---- the other forms ---------------------------------------------------- */

static bool bench_form_option(struct bench_opts *o, int opt, char *arg)
{
	switch (opt) {
	case 'F':
		if (o->nfrom < BENCH_MAX_FROM)
			o->from[o->nfrom] = arg;
		o->nfrom++;
		return true;
	case 'G':
		o->pool = true;
		return true;
	case 'S':
		o->suite = arg;
		return true;
	case 'Q':
		o->quick = true;
		return true;
	case 'O':
		o->out = arg;
		return true;
	case 'R':
		o->prepare = arg;
		return true;
	case 'M':
		o->export_md = arg;
		return true;
	case 'C':
		o->export_csv = arg;
		return true;
	case 'X':
		o->export_json = arg;
		return true;
	case 'U':
		o->show_output = true;
		return true;
	case 'i':
		o->ignore_failure = true;
		return true;
	}
	return false;
}

const char *bench_check_values(const struct bench_opts *o)
{
	if (o->prepare && !*o->prepare)
		return "--prepare needs a command";
	if (!o->adaptive && (o->max_runs_given || o->precision_given ||
			     (o->margin_given && !o->factorial)))
		return o->runs_given ? "--max-runs, --precision and --margin "
		       "go with --runs auto, not with a number of runs" :
		       "--max-runs, --precision and --margin go with --runs "
		       "auto";
	const char *ex[] = { o->export_md, o->export_csv, o->export_json };

	for (int i = 0; i < 3; i++) {
		if (ex[i] && !*ex[i])
			return "--export-markdown, --export-csv and "
			       "--export-json need a file name";
		for (int k = 0; k < i; k++)
			if (ex[i] && ex[k] && !strcmp(ex[i], ex[k]))
				return "two --export options name the same file";
	}
	return NULL;
}

const char *bench_check_forms(const struct bench_opts *o, int operands,
			      bool dashdash)
{
	static char msg[256];

	if (o->pool && !o->nfrom)
		return "--pool pools saved results: give each host's with "
		       "--from FILE";
	if (o->pool && o->suite)
		return "--pool pools saved results: not with --suite";
	if (o->nfrom && o->suite)
		return "--from and --suite do not go together";
	if ((o->quick || o->out) && !o->suite)
		return "--quick and --out go with --suite";
	if (operands)
		return o->nfrom ? "--from runs nothing: no WORKLOAD" :
			"--suite runs its own workloads: no WORKLOAD";
	if (dashdash)
		return "no workload arguments ('--') with --from or --suite";
	if (o->path && !o->suite)
		return "--path does not apply to --from";
	if (o->nfrom && (o->runs_given || o->warmup_given))
		return "--runs and --warmup do not apply to --from";
	if (o->nfrom > (o->pool ? BENCH_MAX_FROM : BENCH_MAX_ACROSS)) {
		snprintf(msg, sizeof(msg), "at most %d --from files%s",
			 o->pool ? BENCH_MAX_FROM : BENCH_MAX_ACROSS,
			 o->pool ? " (hosts) to pool" : " side by side");
		return msg;
	}
	if (o->pool && o->nfrom < 2)
		return "--pool needs results from two hosts or more: a --from "
		       "FILE for each";
	if (o->pool && (o->plot || o->export_csv || o->export_json))
		return "--pool writes text, JSON (-j) or Markdown "
		       "(--export-markdown): not --plot, --export-csv or "
		       "--export-json";
	if (o->show_output || o->ignore_failure)
		return "--show-output and --ignore-failure go with a command "
		       "(-- COMMAND)";
	if (o->nfrom > 1 && !o->pool && (o->json || o->plot || o->export_md ||
					 o->export_csv || o->export_json))
		return "-j, --plot and the exports take one --from file; "
		       "several make one Markdown table per experiment";
	for (int i = 0; i < o->nfrom && i < BENCH_MAX_FROM; i++)
		for (int k = 0; k < i; k++)
			if (!strcmp(o->from[i], "-") &&
			    !strcmp(o->from[k], "-"))
				return "standard input (--from -) can be read "
				       "once";
	if (o->prepare)
		return "--prepare does not apply to --from or --suite";
	if (o->suite && (o->export_md || o->export_csv || o->export_json))
		return "--export-markdown, --export-csv and --export-json do "
		       "not apply to --suite (it writes Markdown tables; --out "
		       "keeps JSON)";
	if (o->out && !*o->out)
		return "--out needs a directory";
	if (o->suite && bench_suite_check(o->suite)) {
		snprintf(msg, sizeof(msg), "unknown suite '%s'; %s", o->suite,
			 bench_suite_check(o->suite));
		return msg;
	}
	return NULL;
}

/* ---- the command ------------------------------------------------------ */

int bench_run(const struct bench_opts *o)
{
	struct bench b;
	int ret, sig;

	if (o->plot && !bench_find_gnuplot()) {
		abpath_error("--plot needs gnuplot (apt-get install gnuplot-nox)");
		return 1;
	}
	/*
	 * The stop signals stay ours until the report and its files are
	 * written: a Ctrl-C while they are costs neither the runs nor a
	 * file, and is acted on once they are out.
	 */
	bench_signals_begin();
	ret = bench_prepare(&b, o);
	if (!ret && o->factorial)
		ret = bench_factorial_plan(&b);
	if (!ret)
		ret = bench_collect(&b);
	/* Interrupted: what ran is still worth seeing, marked incomplete. */
	if (!ret || (b.stop_sig && b.done)) {
		int rep = o->factorial ? bench_factorial_report(&b) :
			  bench_report(&b);

		ret = ret ? ret : rep;
	}
	if (!ret)
		ret = b.restore_err;
	bench_signals_end();
	sig = b.stop_sig ? b.stop_sig : bench_stopping();
	bench_free(&b);
	return sig ? bench_reraise(sig) : ret;
}

static bool parse_count(const char *arg, int min, int max, int *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return false;
	*val = (int)v;
	return true;
}

/* "5%" or "5": a share in (0, 1), from a percentage above 0 and below 100. */
static bool parse_percent(const char *arg, double *val)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (errno || end == arg || *end || !(v > 0 && v < 100))
		return false;
	*val = v / 100;
	return true;
}

/*
 * A name is looked up like 'abpath workloads'; a path (with a '/') is
 * taken as is.  -1 with exe filled in, or the exit code after a message.
 */
static int find_workload(const struct cmd *c, const char *name, char *exe,
			 size_t len)
{
	struct stat st;

	if (strchr(name, '/')) {
		ctl_copy(exe, len, name);
	} else {
		if (stat(bench_workload_dir(), &st) || !S_ISDIR(st.st_mode))
			return bench_no_workload_dir();
		snprintf(exe, len, "%s/%s", bench_workload_dir(), name);
	}
	if (!stat(exe, &st) && S_ISREG(st.st_mode) && !access(exe, X_OK))
		return -1;
	if (strchr(name, '/')) {
		abpath_error("%s is not an executable file", exe);
		return 1;
	}
	return cli_usage_error(c, "unknown workload '%s'; see 'abpath "
			       "workloads'", name);
}

static int bench_opt(const struct cmd *c, int opt, char *arg, void *ctx)
{
	struct bench_opts *o = ctx;

	switch (opt) {
	case 'p':
		o->path = arg;
		break;
	case 'r':
		o->runs_given = true;
		if (!strcmp(arg, "auto")) {
			o->adaptive = true;
			break;
		}
		if (!parse_count(arg, 2, 100000, &o->runs))
			return cli_usage_error(c, "invalid --runs '%s'; expected "
					       "a number of runs per mode, at "
					       "least 2, or auto", arg);
		o->adaptive = false;
		break;
	case 'N':
		if (!parse_count(arg, 2, BENCH_MAX_AUTO_RUNS, &o->seq.cap))
			return cli_usage_error(c, "invalid --max-runs '%s'; "
					       "expected the most runs per mode "
					       "--runs auto may make, 2 to %d",
					       arg, BENCH_MAX_AUTO_RUNS);
		if (o->seq.cap % 2)
			fprintf(stderr, "abpath: bench: --max-runs %d: the rule "
				"looks after whole ABBA blocks (2 runs per "
				"mode), so the cap is %d\n", o->seq.cap,
				seq_cap(o->seq.cap));
		o->seq.cap = seq_cap(o->seq.cap);
		o->max_runs_given = true;
		break;
	case 'E':
		if (!parse_percent(arg, &o->seq.precision))
			return cli_usage_error(c, "invalid --precision '%s'; "
					       "expected the interval's relative "
					       "half-width as a percentage above "
					       "0 and below 100, e.g. 5%%", arg);
		o->precision_given = true;
		break;
	case 'g':
		if (!parse_percent(arg, &o->seq.margin))
			return cli_usage_error(c, "invalid --margin '%s'; "
					       "expected the equivalence margin "
					       "as a percentage above 0 and below "
					       "100, e.g. 2%%", arg);
		o->margin_given = true;
		break;
	case 'W':
		if (!parse_count(arg, 0, 100000, &o->warmup))
			return cli_usage_error(c, "invalid --warmup '%s'; "
					       "expected a number of runs per "
					       "mode, 0 or more", arg);
		o->warmup_given = true;
		break;
	case 'K':
		o->factorial = arg;
		break;
	case 'D':
		if (!parse_count(arg, 1, BENCH_FAC_MAX_K, &o->fac_order))
			return cli_usage_error(c, "invalid --order '%s'; expected "
					       "the highest interaction in the "
					       "model, 1 to %d", arg,
					       BENCH_FAC_MAX_K);
		o->order_given = true;
		break;
	case 'P':
		if (!bench_plot_format(arg))
			return cli_usage_error(c, "invalid --plot '%s'; expected "
					       "a file name ending in .svg or "
					       ".png", arg);
		o->plot = arg;
		break;
	default:
		if (!bench_form_option(o, opt, arg))
			return cli_usage_error(c, "unrecognized option");
	}
	return -1;
}

int bench_cmd(const struct cmd *c, int argc, char **argv)
{
	struct bench_opts o = {
		.runs = BENCH_DEFAULT_RUNS, .warmup = BENCH_DEFAULT_WARMUP,
	};
	int ret, rest, split = bench_find_dashdash(argc, argv);
	const char *msg, *bad;
	char exe[4096];

	seq_rule_default(&o.seq, SEQ_DEFAULT_CAP);

	/* Only the words before "--" are abpath's. */
	ret = cli_options(c, split, argv, bench_short_options(),
			  bench_long_options(), bench_opt, &o, &rest);
	if (ret >= 0)
		return ret;
	o.json = cli_json;
	if (o.factorial && (msg = bench_factorial_check(&o)))
		return cli_usage_error(c, "%s", msg);
	msg = bench_check_values(&o);
	if (msg)
		return cli_usage_error(c, "%s", msg);
	if (o.order_given && !o.factorial)
		return cli_usage_error(c, "--order goes with --factorial");
	if (o.adaptive)
		o.runs = o.seq.cap;
	if (o.nfrom || o.suite || o.quick || o.out || o.pool) {
		msg = bench_check_forms(&o, split - rest, split < argc);
		if (msg)
			return cli_usage_error(c, "%s", msg);
		if (o.suite && o.path &&
		    (msg = bench_suite_path_check(o.path, &bad))) {
			if (*bad && strcmp(bad, "all") &&
			    (ret = cli_check_path(c, bad)) >= 0)
				return ret;
			return cli_usage_error(c, "--path %s: '%s': %s", o.path,
					       bad, msg);
		}
		if (o.pool)
			return bench_pool(&o);
		return o.nfrom ? bench_from(&o) : bench_suite(&o);
	}
	if (split - rest > 1)
		return cli_usage_error(c, "unexpected argument '%s'; workload "
				       "arguments go after '--'",
				       argv[rest + 1]);
	o.args = argv + (split < argc ? split + 1 : argc);
	o.nargs = split < argc ? argc - split - 1 : 0;
	if (rest >= split) {
		/* No WORKLOAD: what follows "--" is a command to time. */
		if (split == argc)
			return cli_usage_error(c, "no workload given; see "
					       "'abpath workloads', or time a "
					       "command: abpath bench --path P "
					       "-- CMD");
		if (!o.nargs)
			return cli_usage_error(c, "no command after '--'");
		if (!o.path && !o.factorial)
			return cli_usage_error(c, "a command needs --path: "
					       "abpath cannot tell which path "
					       "it exercises");
		o.command = true;
		o.workload = o.args[0];
	} else {
		/* A workload's output is its report, and its failure a failed check. */
		if (o.show_output || o.ignore_failure)
			return cli_usage_error(c, "--show-output and "
					       "--ignore-failure go with a "
					       "command (-- COMMAND), not with "
					       "a workload");
		o.workload = argv[rest];
		ret = find_workload(c, o.workload, exe, sizeof(exe));
		if (ret >= 0)
			return ret;
		o.exe = exe;
	}
	if (o.factorial) {
		ret = bench_factorial_paths(c, &o);
		return ret >= 0 ? ret : bench_run(&o);
	}
	if (!o.path)
		o.path = bench_default_path(o.workload);
	if (!o.path)
		return cli_usage_error(c, "no default path for workload '%s'; "
				       "choose one with --path", o.workload);
	if (strcmp(o.path, "all") && (ret = cli_check_path(c, o.path)) >= 0)
		return ret;
	return bench_run(&o);
}
