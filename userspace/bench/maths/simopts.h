/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of the wing's simulations (factorial-sim.c, pool-coverage.c,
 * seq-sim.c, verdict-sim.c): each program lists its long options, what
 * each holds and where, and sim_opts() parses argv by that table, with
 * --help (usage on stdout, exit 0) and getopt's errors (usage on stderr,
 * exit 2) as every one of them had them.  What comes after the options
 * (operands, range checks) stays each program's own.
 */
#ifndef ABPATH_BENCH_SIMOPTS_H
#define ABPATH_BENCH_SIMOPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define SIM_MAX_OPTS	16

enum sim_kind {
	SIM_LONG,	/* long, strtol() base 10 */
	SIM_SIZE,	/* size_t, strtoul() base 10 */
	SIM_SEED,	/* unsigned long long, strtoull() base 0 */
	SIM_DOUBLE,	/* double, strtod() */
	SIM_FLAG,	/* bool set true; takes no argument */
	SIM_PARSE,	/* the option's own parse() */
};

struct sim_opt {
	const char *name;	/* without "--" */
	enum sim_kind kind;
	void *val;
	/* SIM_PARSE: false refuses the argument, having said why on stderr. */
	bool (*parse)(const char *arg, void *val);
};

/*
 * Returns -1 when the options are all read (optind at the first operand),
 * else the exit status main() returns: 0 after --help, 2 after a usage
 * error.  The numbers are read as the programs always read them, without
 * a check of their own: each program checks its ranges after.
 */
static inline int sim_opts(int argc, char **argv, const struct sim_opt *o,
			   int n, void (*usage)(FILE *))
{
	struct option lo[SIM_MAX_OPTS + 2] = { 0 };
	int opt, i;

	if (n > SIM_MAX_OPTS) {
		fprintf(stderr, "sim_opts: %d options, %d at most\n", n,
			SIM_MAX_OPTS);
		return 2;
	}
	/* val is the table's index past any character: one getopt return an option. */
	for (i = 0; i < n; i++)
		lo[i] = (struct option){ o[i].name,
					 o[i].kind == SIM_FLAG ? no_argument :
								 required_argument,
					 NULL, 256 + i };
	lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		const struct sim_opt *p;

		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		if (opt < 256 || opt >= 256 + n) {
			usage(stderr);
			return 2;
		}
		p = &o[opt - 256];
		switch (p->kind) {
		case SIM_LONG:
			*(long *)p->val = strtol(optarg, NULL, 10);
			break;
		case SIM_SIZE:
			*(size_t *)p->val = strtoul(optarg, NULL, 10);
			break;
		case SIM_SEED:
			*(unsigned long long *)p->val = strtoull(optarg, NULL, 0);
			break;
		case SIM_DOUBLE:
			*(double *)p->val = strtod(optarg, NULL);
			break;
		case SIM_FLAG:
			*(bool *)p->val = true;
			break;
		case SIM_PARSE:
			if (!p->parse(optarg, p->val))
				return 2;
			break;
		}
	}
	return -1;
}

#endif
