// SPDX-License-Identifier: GPL-2.0
/*
 * The error rates of 'abpath bench --runs auto' by simulation, through
 * the real rule (sequential.c) at the real looks: tests/tools/seq-sim
 * runs this, and docs/benchmarks.md keeps its table.
 *
 * Each replicate is one adaptive bench: runs of each mode drawn from a
 * lognormal with the cell's coefficient of variation, legacy's median the
 * cell's ratio times optimized's, made two per mode per ABBA block up to
 * the cap, with seq_look() after every block where the rule looks, as
 * run.c calls it.  Per cell: how often each boundary stopped the bench,
 * the coverage of the interval reported at the stop, the mean runs per
 * mode; and beside it the naive rule on the same runs, at the same looks:
 * stop at the first unadjusted 95% Welch interval that excludes 1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sequential.h"
#include "simopts.h"
#include "statistics.h"

#define MAX_CELLS	16

static const double dflt_cvs[] = { 0.002, 0.02, 0.10, 0.30 };
static const double dflt_ratios[] = { 1, 1.02, 1.03, 1.05, 1.2, 10 };

struct cell {
	size_t stops[SEQ_STOPS], covered, naive_diff;
	double runs, naive_runs;
};

/* One adaptive bench of the rule and the naive one on the same runs. */
static int one_bench(struct st_rng *rng, const struct seq_rule *r,
		     double ratio, double sigma, double *x, double *y,
		     struct cell *c)
{
	struct seq_look l = { 0 };
	struct st_ratio q;
	bool naive_done = false, done = false;
	int runs;

	for (int i = 0; i < r->cap; i++) {
		x[i] = ratio * exp(sigma * st_rng_normal(rng));
		y[i] = exp(sigma * st_rng_normal(rng));
	}
	for (runs = 2; runs <= r->cap && !(done && naive_done); runs += 2) {
		if (!seq_is_look(r, runs))
			continue;
		if (!done) {
			if (seq_look(r, runs, x, (size_t)runs, y, (size_t)runs,
				     &l))
				return -1;
			if (l.stop != SEQ_GO_ON) {
				done = true;
				c->stops[l.stop]++;
				c->covered += l.lo <= ratio && ratio <= l.hi;
				c->runs += runs;
			}
		}
		if (!naive_done) {
			st_ratio_welch(x, (size_t)runs, y, (size_t)runs, 0.95,
				       &q);
			if (q.lo > 1 || q.hi < 1 || runs == r->cap) {
				naive_done = true;
				c->naive_diff += q.lo > 1 || q.hi < 1;
				c->naive_runs += runs;
			}
		}
	}
	return done && naive_done ? 0 : -1;
}

static int parse_list(const char *arg, double *v, int max)
{
	char *end;
	int n = 0;

	for (const char *p = arg; *p && n < max; p = end + (*end == ',')) {
		v[n] = strtod(p, &end);
		if (end == p || !(v[n] > 0) || (*end && *end != ','))
			return -1;
		n++;
	}
	return n;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: seq-sim [--reps N] [--seed S] [--cap N] [--margin M]\n"
		   "               [--precision P] [--gamma G] [--cv LIST]\n"
		   "               [--ratio LIST] [--max-fp F] [--min-naive F]\n"
		   "Simulates adaptive benches (lognormal runs) through sequential.c per\n"
		   "coefficient of variation and true ratio: the share stopped by each\n"
		   "boundary, the coverage of the reported interval, the mean runs per\n"
		   "mode, and the naive rule (first p < 0.05) beside it.  Exit 1 when a\n"
		   "criterion fails: A/A 'different' above --max-fp (default 0.05 + 2\n"
		   "SE), coverage below 0.94, 'equivalent' above 0.05 at a true ratio\n"
		   "beyond the margin, more than 3 blocks (6 runs per mode) on average\n"
		   "at 10x, or the naive A/A rate below --min-naive (default: none).\n"
		   "Defaults: 20000 benches a cell, seed 44, cap %d, margin %g, no\n"
		   "precision, gamma %g, CVs 0.002,0.02,0.1,0.3, ratios\n"
		   "1,1.02,1.03,1.05,1.2,10.\n", SEQ_DEFAULT_CAP,
		SEQ_DEFAULT_MARGIN, SEQ_GAMMA);
}

/* A list of --cv or --ratio: a bad one, the usage on stderr. */
struct cells {
	double v[MAX_CELLS];
	int n;
};

static bool parse_cells(const char *arg, void *val)
{
	struct cells *l = val;

	l->n = parse_list(arg, l->v, MAX_CELLS);
	if (l->n < 1) {
		usage(stderr);
		return false;
	}
	return true;
}

/* --cap N: made even as run.c makes it. */
static bool parse_cap(const char *arg, void *val)
{
	*(int *)val = seq_cap(atoi(arg));
	return true;
}

int main(int argc, char **argv)
{
	struct cells cvs = { .n = 4 }, ratios = { .n = 6 };
	double max_fp = -1, min_naive = 0;
	int bad = 0, rc;
	unsigned long long seed = 44;
	size_t reps = 20000;
	struct seq_rule r;
	const struct sim_opt opts[] = {
		{ "reps", SIM_SIZE, &reps, NULL },
		{ "seed", SIM_SEED, &seed, NULL },
		{ "cap", SIM_PARSE, &r.cap, parse_cap },
		{ "margin", SIM_DOUBLE, &r.margin, NULL },
		{ "precision", SIM_DOUBLE, &r.precision, NULL },
		{ "gamma", SIM_DOUBLE, &r.gamma, NULL },
		{ "cv", SIM_PARSE, &cvs, parse_cells },
		{ "ratio", SIM_PARSE, &ratios, parse_cells },
		{ "max-fp", SIM_DOUBLE, &max_fp, NULL },
		{ "min-naive", SIM_DOUBLE, &min_naive, NULL },
	};
	struct st_rng rng;
	double *x, *y;
	const char *why;

	memcpy(cvs.v, dflt_cvs, sizeof(dflt_cvs));
	memcpy(ratios.v, dflt_ratios, sizeof(dflt_ratios));
	seq_rule_default(&r, SEQ_DEFAULT_CAP);
	rc = sim_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage);
	if (rc >= 0)
		return rc;
	why = seq_rule_check(&r);
	if (optind != argc || reps < 100 || why) {
		if (why)
			fprintf(stderr, "seq-sim: %s\n", why);
		usage(stderr);
		return 2;
	}
	if (max_fp < 0)
		max_fp = r.alpha + 2 * sqrt(r.alpha * (1 - r.alpha) / (double)reps);
	x = malloc((size_t)r.cap * sizeof(*x));
	y = malloc((size_t)r.cap * sizeof(*y));
	if (!x || !y) {
		fprintf(stderr, "seq-sim: out of memory\n");
		return 2;
	}
	printf("# %zu benches a cell, seed %llu; rule: alpha %g, HSD gamma %g, "
	       "first look at %d runs per mode, cap %d, margin %g, precision %g\n",
	       reps, seed, r.alpha, r.gamma, r.first, r.cap, r.margin,
	       r.precision);
	printf("# stop shares: different, equivalent, precise, cap; coverage of "
	       "the reported interval; mean runs per mode; naive: 'different' "
	       "share and mean runs\n");
	printf("%-6s %-6s %-7s %-7s %-7s %-7s %-8s %-6s %-7s %-6s\n", "cv",
	       "ratio", "diff", "equiv", "precise", "cap", "cover", "runs",
	       "naive", "nruns");
	for (int a = 0; a < cvs.n; a++) {
		double sigma = sqrt(log1p(cvs.v[a] * cvs.v[a]));

		for (int b = 0; b < ratios.n; b++) {
			struct cell c = { 0 };
			double n = (double)reps, diff, equiv, cover, runs;
			const char *flag = "";

			/* A stream per cell: one cell reruns alone the same. */
			st_rng_seed(&rng, seed * 1000 + (uint64_t)(a * 100 + b));
			for (size_t i = 0; i < reps; i++)
				if (one_bench(&rng, &r, ratios.v[b], sigma, x, y,
					      &c)) {
					fprintf(stderr, "seq-sim: the rule "
						"refused a bench\n");
					return 2;
				}
			diff = c.stops[SEQ_DIFFERENT] / n;
			equiv = c.stops[SEQ_EQUIVALENT] / n;
			cover = c.covered / n;
			runs = c.runs / n;
			if (ratios.v[b] == 1 && diff > max_fp)
				flag = "  <- A/A 'different' too often";
			else if (cover < 0.94)
				flag = "  <- coverage below 0.94";
			else if (fabs(log(ratios.v[b])) > log1p(r.margin) &&
				 equiv > 0.05)
				flag = "  <- 'equivalent' beyond the margin";
			else if (ratios.v[b] >= 10 && runs > 6)
				flag = "  <- more than 3 blocks at 10x";
			else if (ratios.v[b] == 1 && c.naive_diff / n < min_naive)
				flag = "  <- the naive rule's A/A rate too low";
			bad += *flag != '\0';
			printf("%-6g %-6g %-7.4f %-7.4f %-7.4f %-7.4f %-8.4f "
			       "%-6.2f %-7.4f %-6.2f%s\n", cvs.v[a], ratios.v[b],
			       diff, equiv, c.stops[SEQ_PRECISE] / n,
			       c.stops[SEQ_CAP] / n, cover, runs,
			       c.naive_diff / n, c.naive_runs / n, flag);
			fflush(stdout);
		}
	}
	printf("%s: %d of %d cells fail (A/A 'different' at most %.4f)\n",
	       bad ? "FAIL" : "PASS", bad, cvs.n * ratios.n, max_fp);
	free(x);
	free(y);
	return bad ? 1 : 0;
}
