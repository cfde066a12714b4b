// SPDX-License-Identifier: GPL-2.0
/*
 * The coverage of pool.c's interval of the mean, by simulation of whole
 * fleets of benches: tests/tools/pool-coverage runs this.
 *
 * Each set is k hosts.  Host i's true log ratio is mu + tau * z_i.  Its
 * noise, the sd of the log of a run, is drawn log-uniformly in --noise
 * (default 0.02 to 0.10: a quiet machine to a busy one) and shared by its
 * two modes; each mode gets its own 4 to 8 runs, drawn from a lognormal,
 * so v_i is estimated from a few runs, as on real machines.  The runs go
 * through pool_host_from_samples() and pool_combine() as a bench's would.
 * tau is given in units of a typical host's standard error: the sd of the
 * log ratio at the geometric middle of the noise range, 6 runs per mode.
 * Every HKSJ scale is run on the same sets; the verdict is on the one
 * --scale names (pool.h's default unless told).
 *
 * Also measured, without a verdict, for the verdict's scale: how often
 * the prediction interval covers a new host's true log ratio, and the
 * share of hosts flagged by leave-one-out: all false flags here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "simopts.h"
#include "statistics.h"

#define MAX_HOSTS	10
#define MAX_RUNS	8
#define REF_RUNS	6

static const size_t hosts[] = { 3, 5, 10 };
static const double taus[] = { 0, 0.5, 1, 2 };
static const char *const scale_name[POOL_SCALES] = {
	[POOL_HKSJ] = "hksj",
	[POOL_HKSJ_TRUNCATED] = "truncated",
	[POOL_HKSJ_DL_FLOOR] = "dl-floor",
	[POOL_HKSJ_WELCH_FLOOR] = "welch-floor",
};

struct cell {
	size_t hit[POOL_SCALES], pi_hit, flags;
	double *width[POOL_SCALES];
};

static double uniform(struct st_rng *r)
{
	return (double)(st_rng_next(r) >> 11) * 0x1p-53;
}

static void runs(struct st_rng *rng, double *x, size_t n, double mean,
		 double sd)
{
	for (size_t i = 0; i < n; i++)
		x[i] = exp(mean + sd * st_rng_normal(rng));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* One set of k hosts into cell c at index set; false if pool.c refused. */
static bool one_set(struct st_rng *rng, size_t k, double tau, double mu,
		    const double noise[2], enum pool_scale verdict,
		    struct cell *c, size_t set)
{
	double leg[MAX_RUNS], opt[MAX_RUNS], theta, sd, new_host;
	struct pool_host h[MAX_HOSTS];
	struct pool_result r;
	size_t nl, no;

	for (size_t i = 0; i < k; i++) {
		theta = mu + tau * st_rng_normal(rng);
		sd = noise[0] * pow(noise[1] / noise[0], uniform(rng));
		nl = 4 + st_rng_below(rng, MAX_RUNS - 3);
		no = 4 + st_rng_below(rng, MAX_RUNS - 3);
		runs(rng, leg, nl, theta, sd);
		runs(rng, opt, no, 0, sd);
		if (pool_host_from_samples(leg, nl, opt, no, &h[i]))
			return false;
	}
	new_host = mu + tau * st_rng_normal(rng);
	for (int s = 0; s < POOL_SCALES; s++) {
		if (pool_combine(h, k, 0.95, (enum pool_scale)s, &r))
			return false;
		c->hit[s] += r.mean.lo <= mu && mu <= r.mean.hi;
		c->width[s][set] = r.mean.hi - r.mean.lo;
		if ((enum pool_scale)s != verdict)
			continue;
		c->pi_hit += r.predict.lo <= new_host && new_host <= r.predict.hi;
		c->flags += r.outliers;
	}
	return true;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: pool-coverage [--sets N] [--seed S] [--min C] [--max C]\n"
		   "                     [--max-from K] [--noise LO,HI]\n"
		   "                     [--scale hksj|truncated|dl-floor|welch-floor]\n"
		   "The coverage and median width (log scale) of the pooled 95%% interval\n"
		   "per number of hosts k and tau (in typical host SEs), for each HKSJ\n"
		   "scale; exit 1 if the coverage of --scale is below --min in a cell,\n"
		   "or above --max in a cell of K hosts or more (default: every cell).\n"
		   "Defaults: 10000 sets per cell, 0.93, 0.99, noise (sd of a run's\n"
		   "log) 0.02,0.10, scale %s.\n",
		scale_name[POOL_SCALE_DEFAULT]);
}

static int parse_scale(const char *s)
{
	for (int i = 0; i < POOL_SCALES; i++)
		if (!strcmp(s, scale_name[i]))
			return i;
	return -1;
}

/* --noise LO,HI; --scale NAME.  A bad one: the usage on stderr. */
static bool parse_noise(const char *arg, void *val)
{
	double *noise = val;

	if (sscanf(arg, "%lf,%lf", &noise[0], &noise[1]) != 2 ||
	    !(noise[0] > 0 && noise[1] >= noise[0])) {
		usage(stderr);
		return false;
	}
	return true;
}

static bool parse_verdict(const char *arg, void *val)
{
	int *verdict = val;

	*verdict = parse_scale(arg);
	if (*verdict < 0) {
		usage(stderr);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	const size_t ncells = sizeof(hosts) / sizeof(hosts[0]) *
			      (sizeof(taus) / sizeof(taus[0]));
	double lo = 0.93, hi = 0.99, noise[2] = { 0.02, 0.10 }, ref_se;
	const double mu = log(1.5);
	int verdict = POOL_SCALE_DEFAULT, rc;
	unsigned long long seed = 41;
	size_t sets = 10000, bad = 0, max_from = 0;
	const struct sim_opt opts[] = {
		{ "sets", SIM_SIZE, &sets, NULL },
		{ "seed", SIM_SEED, &seed, NULL },
		{ "min", SIM_DOUBLE, &lo, NULL },
		{ "max", SIM_DOUBLE, &hi, NULL },
		{ "max-from", SIM_SIZE, &max_from, NULL },
		{ "noise", SIM_PARSE, noise, parse_noise },
		{ "scale", SIM_PARSE, &verdict, parse_verdict },
	};
	struct st_rng rng;
	struct cell c;

	rc = sim_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]), usage);
	if (rc >= 0)
		return rc;
	if (optind != argc || sets < 2) {
		usage(stderr);
		return 2;
	}
	for (int s = 0; s < POOL_SCALES; s++) {
		c.width[s] = malloc(sets * sizeof(double));
		if (!c.width[s]) {
			fprintf(stderr, "pool-coverage: out of memory\n");
			return 2;
		}
	}
	ref_se = sqrt(2 * noise[0] * noise[1] / REF_RUNS);
	printf("# %zu sets per cell, seed %llu, noise %g..%g, typical host SE %.4f (log)\n",
	       sets, seed, noise[0], noise[1], ref_se);
	printf("# verdict on %s: coverage in [%.3f, %.3f]", scale_name[verdict],
	       lo, hi);
	if (max_from)
		printf(", at most %.3f only from %zu hosts on", hi, max_from);
	printf("; pi_cover and flagged are %s's\n", scale_name[verdict]);
	printf("%-3s %-6s", "k", "tau");
	for (int s = 0; s < POOL_SCALES; s++)
		printf(" %-9s %-9s", scale_name[s], "width");
	printf(" %-9s %-9s\n", "pi_cover", "flagged");
	for (size_t a = 0; a < sizeof(hosts) / sizeof(hosts[0]); a++) {
		for (size_t b = 0; b < sizeof(taus) / sizeof(taus[0]); b++) {
			size_t k = hosts[a];
			double cov = 0;
			bool out;

			/* A stream per cell: one cell reruns alone the same. */
			st_rng_seed(&rng, seed * 1000 + a * 10 + b);
			memset(c.hit, 0, sizeof(c.hit));
			c.pi_hit = c.flags = 0;
			for (size_t s = 0; s < sets; s++) {
				if (!one_set(&rng, k, taus[b] * ref_se, mu, noise,
					     (enum pool_scale)verdict, &c, s)) {
					fprintf(stderr, "pool-coverage: pool.c refused a set\n");
					return 2;
				}
			}
			printf("%-3zu %-6.1f", k, taus[b]);
			for (int s = 0; s < POOL_SCALES; s++) {
				double cv = (double)c.hit[s] / (double)sets;

				printf(" %-9.4f %-9.4f", cv,
				       median(c.width[s], sets));
				if (s == verdict)
					cov = cv;
			}
			printf(" %-9.4f ", (double)c.pi_hit / (double)sets);
			if (k >= 4)
				printf("%-9.4f", (double)c.flags / (double)(sets * k));
			else
				printf("%-9s", "-");
			out = cov < lo || (cov > hi && k >= max_from);
			bad += out;
			printf("%s\n", out ? "  <- outside" :
			       cov > hi ? "  (above, fewer hosts than --max-from)" : "");
		}
	}
	printf("%s: %zu of %zu cells outside [%.3f, %.3f] (%s)\n",
	       bad ? "FAIL" : "PASS", bad, ncells, lo, hi, scale_name[verdict]);
	for (int s = 0; s < POOL_SCALES; s++)
		free(c.width[s]);
	return bad ? 1 : 0;
}
