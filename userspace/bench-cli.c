// SPDX-License-Identifier: GPL-2.0
/*
 * abpath bench's command line: its options, the "--" that hands the rest
 * to the workload, its help, and the checks of the forms that run no
 * workload given on the command line (--from, --suite).  abpath.c parses
 * with these and reports the usage errors.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

const struct option bench_options[] = {
	{ "path", required_argument, NULL, 'p' },
	{ "runs", required_argument, NULL, 'r' },
	{ "warmup", required_argument, NULL, 'W' },
	{ "plot", required_argument, NULL, 'P' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ "from", required_argument, NULL, 'F' },
	{ "suite", required_argument, NULL, 'S' },
	{ "quick", no_argument, NULL, 'Q' },
	{ "out", required_argument, NULL, 'O' },
	{ NULL, 0, NULL, 0 },
};

/* Does argv element a (an option) take the next element as its value? */
static bool takes_next(const char *a)
{
	size_t len;

	if (a[0] != '-' || !a[1])
		return false;
	if (a[1] != '-') {
		/* In a cluster such as -jr, -p/-r take the rest, or the next. */
		for (a++; *a; a++)
			if (*a == 'p' || *a == 'r')
				return a[1] == '\0';
		return false;
	}
	if (strchr(a, '='))
		return false;
	/* getopt_long takes unambiguous prefixes: --ru is --runs. */
	len = strlen(a + 2);
	for (const struct option *o = bench_options; o->name && len; o++)
		if (!strncmp(o->name, a + 2, len))
			return o->has_arg == required_argument;
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

/* ---- help -------------------------------------------------------------- */

const char bench_synopsis[] =
	"WORKLOAD [--path P] [--runs N] [--warmup N] [-j] [--plot FILE] "
	"[-- ARGS]\n"
	"       abpath bench --from FILE [-j] [--plot FILE]\n"
	"       abpath bench --suite history [--quick] [--runs N] [--out DIR] "
	"[-j] [--plot FILE]";

const char bench_summary[] =
	"A/B-benchmark a workload, legacy against optimized, interleaved.";

const char bench_help[] =
	"  -p, --path P     the path to switch: group_cputime, timer_fastpath,\n"
	"                   exit_reparent, timer_softirq or all (default: the\n"
	"                   one the workload exercises)\n"
	"  -r, --runs N     measured runs per mode (default 6, at least 2;\n"
	"                   p < 0.05 needs at least 4; suite: 4, --quick 2)\n"
	"      --warmup N   discarded runs per mode, first (default 1)\n"
	"  -j, --json       JSON output, with every run's value and counters\n"
	"      --plot FILE  also plot every run with gnuplot (.svg or .png);\n"
	"                   for a suite, one FILE-<experiment>.svg|png each\n"
	"  -- ARGS          arguments for the workload (bench adds -j)\n"
	"      --from FILE  report a saved result (bench -j, or a suite's\n"
	"                   JSON; - for stdin) again: run nothing, no module\n"
	"      --suite history  the historical experiments, one sweep per\n"
	"                   path plus sleep-loop: Markdown tables on stdout\n"
	"      --quick      smaller sweeps and 2 runs per mode (tests)\n"
	"      --out DIR    write DIR/<experiment>.json and DIR/history.json\n"
	"\nWORKLOAD is a name from 'abpath workloads', or a file with a '/'.\n"
	"Modes alternate legacy, optimized, optimized, legacy, ... (ABBA),\n"
	"warm-ups first.  Every path goes back to its original mode at the end,\n"
	"on a failed run, and on SIGINT/SIGTERM (exit 130/143).\n"
	"Reported per mode: the geometric mean with a 95% CI (t on the logs),\n"
	"median, min, max; legacy/optimized as the ratio of the geometric\n"
	"means with a 95% Welch t interval on the logs, and the same ratio\n"
	"from adjacent legacy/optimized runs (paired t); a two-sided\n"
	"Mann-Whitney U p, exact given the ties up to 60 runs in all.  The\n"
	"verdict claims a difference only when p < 0.05 and the interval\n"
	"excludes 1; it says 'inconclusive' when they disagree or when the\n"
	"run counts cannot reach p < 0.05 (3+3 runs: 0.10 at best).\n";

/* ---- the other forms ---------------------------------------------------- */

bool bench_form_option(struct bench_opts *o, int opt, char *arg)
{
	switch (opt) {
	case 'F':
		o->from = arg;
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
	}
	return false;
}

const char *bench_check_forms(const struct bench_opts *o, int operands,
			      bool dashdash)
{
	static char msg[256];

	if (o->from && o->suite)
		return "--from and --suite do not go together";
	if ((o->quick || o->out) && !o->suite)
		return "--quick and --out go with --suite";
	if (operands)
		return o->from ? "--from runs nothing: no WORKLOAD" :
			"--suite runs its own workloads: no WORKLOAD";
	if (dashdash)
		return "no workload arguments ('--') with --from or --suite";
	if (o->path)
		return "--path does not apply to --from or --suite";
	if (o->from && (o->runs_given || o->warmup_given))
		return "--runs and --warmup do not apply to --from";
	if (o->out && !*o->out)
		return "--out needs a directory";
	if (o->suite && bench_suite_check(o->suite)) {
		snprintf(msg, sizeof(msg), "unknown suite '%s'; %s", o->suite,
			 bench_suite_check(o->suite));
		return msg;
	}
	return NULL;
}
