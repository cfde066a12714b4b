/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pooling one A/B bench run per host into one answer (issue #41): a
 * random-effects meta-analysis of the per-host log ratios of geometric
 * means, legacy/optimized.  Hosts differ (CPUs, kernels, noise), so the
 * ratio is taken to vary between hosts by tau on the log scale, and what
 * is estimated is its mean over hosts, with a prediction of where a new
 * host's ratio falls.  Pure functions (no I/O, no global state), so that
 * test-pool.c and tests/tools/pool-check.py (statsmodels) can check them.
 *
 *  - per host: y = mean log legacy - mean log optimized, the log of the
 *    bench's own ratio; v = s_L^2/n_L + s_O^2/n_O of the logs, the
 *    squared standard error of the bench's Welch interval, and that
 *    interval's Welch-Satterthwaite degrees of freedom;
 *  - tau^2 by DerSimonian-Laird's method of moments, truncated at 0;
 *  - the interval of the mean by Hartung-Knapp-Sidik-Jonkman: t with
 *    k - 1 df, on the variance q / sum(w) with
 *    q = sum w_i (y_i - mu)^2 / (k - 1), w_i = 1 / (v_i + tau^2),
 *    q floored as enum pool_scale says.
 */
#ifndef ABPATH_POOL_H
#define ABPATH_POOL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The HKSJ interval mu +- t(k-1) * sqrt(q / sum(w)) narrows below the
 * usual random-effects interval whenever q < 1, which it always is when
 * tau^2 is estimated as 0; with hosts of unequal noise that is where it
 * undercovers (tests/tools/pool-coverage).  So q is floored:
 *  - POOL_HKSJ: q as is (statsmodels' "random effect wls" row with
 *    use_t=True);
 *  - POOL_HKSJ_TRUNCATED: max(1, q), Knapp-Hartung's own modification:
 *    never narrower than the t(k-1) interval on 1 / sum(w);
 *  - POOL_HKSJ_DL_FLOOR: max((z/t)^2, q), z and t the normal and t(k-1)
 *    quantiles: never narrower than the DerSimonian-Laird normal
 *    interval mu +- z / sqrt(sum(w)): the wider of the two, a remedy
 *    Jackson, Law, Rücker and Schwarzer discuss (Stat Med 2017);
 *  - POOL_HKSJ_WELCH_FLOOR: the same floor, but the normal interval's
 *    weights are 1 / (v_i' + tau^2) with v_i' = v_i * (t(df_i) / z)^2,
 *    the variance host i's own Welch interval claims: its v_i is
 *    estimated from a few runs, and the interval of a mean of hosts is
 *    not to be narrower than their own intervals, combined as if known,
 *    make it.  Only the floor takes v_i': tau^2, the weights and q keep
 *    v_i, because a v_i' in DerSimonian-Laird's Q shrinks tau^2 and the
 *    interval undercovers where hosts differ (the simulation shows it).
 * The floored q is the one behind se, the prediction interval and the
 * leave-one-out flags too.
 */
enum pool_scale {
	POOL_HKSJ,
	POOL_HKSJ_TRUNCATED,
	POOL_HKSJ_DL_FLOOR,
	POOL_HKSJ_WELCH_FLOOR,
	POOL_SCALES
};

/*
 * The one the coverage simulation (tests/tools/pool-coverage) accepts:
 * 93% to 99% in every cell, 3 to 10 hosts, tau 0 to 2 hosts' standard
 * errors.  POOL_HKSJ and POOL_HKSJ_DL_FLOOR cover less than 93% at 5
 * hosts with tau near one host's standard error: a v_i from a few runs is
 * often too small, and their floor takes it at its word.
 * POOL_HKSJ_TRUNCATED covers nearly always when 3 hosts agree: its floor
 * takes t with 2 df, an interval too wide to say anything.
 */
#define POOL_SCALE_DEFAULT	POOL_HKSJ_WELCH_FLOOR

/* A log-scale estimate and interval and the same on the ratio scale. */
struct pool_interval {
	double est, lo, hi;		/* log scale */
	double ratio, ratio_lo, ratio_hi;	/* exp() of the above */
};

/*
 * The fewest hosts whose prediction interval is reported: below, t(k-2)
 * makes it too wide to say anything (t(1) at 3 hosts spans 0.008-269 on
 * real benches), and DerSimonian-Laird's tau^2 from 3 or 4 hosts is 0 so
 * often that the interval covers a new host's ratio far less than its
 * level.  tests/tools/verdict-table measures both (docs/benchmarks.md).
 */
#define POOL_PREDICT_MIN_K	5

/*
 * The simulated coverage of the 95% prediction interval at k hosts: the
 * smallest over tau 0 to 2 typical host SEs, in tests/tools/verdict-table's
 * fleets (which checks this table against its own simulation).  What the
 * report states beside the interval; NaN below POOL_PREDICT_MIN_K.
 */
double pool_predict_coverage(size_t k);

/*
 * The simulated coverage of the 95% interval of the mean at k hosts, the
 * smallest over tau 0 to 2 SE, as pool_predict_coverage() (and checked
 * by the same simulation): from 3 to 10 hosts it falls to 0.92-0.94
 * where tau is one or two host SEs, since each host's v comes from a few
 * runs; 2 hosts (t with 1 df) cover more than 95%.  The report states it
 * beside the interval; NaN below 2 hosts.
 */
double pool_mean_coverage(size_t k);

/*
 * One host.  The caller fills y and v (pool_host_from_samples() does);
 * pool_combine() fills the rest.
 */
struct pool_host {
	double y;	/* log(legacy / optimized), ratio of geometric means */
	double v;	/* its variance, > 0 */
	/*
	 * The degrees of freedom v was estimated with (Welch-Satterthwaite);
	 * 0 for a v taken as known (POOL_HKSJ_WELCH_FLOOR then uses v).
	 */
	double df;
	/* Out: v * (t(df) / z)^2, the variance its own interval claims. */
	double v_t;
	/* Out: the host's share of the random-effects weights. */
	double weight;
	/*
	 * Out: the two-sided p of the host's own Welch t test of y = 0 (its
	 * interval excludes 1 at level exactly when p < 1 - level), and that
	 * p adjusted by Holm's step-down over the k hosts: a host "differs"
	 * when p_holm < 1 - level, so that the chance of any false "differs"
	 * among the k is at most 1 - level, not k times it.
	 */
	double p, p_holm;
	bool differs;
	/*
	 * Out, from 4 hosts on: where the other k - 1 hosts predict this
	 * host's y (log scale) at level 1 - (1 - level) / k (Bonferroni: the
	 * chance that any of the k hosts is flagged when none stands out is
	 * at most 1 - level), and whether y falls outside, leave one out.
	 * NaN and false below 4 hosts.
	 */
	double loo_lo, loo_hi;
	bool outlier;
	/*
	 * Out, from 3 hosts on: the pool of the other k - 1 hosts, its mean
	 * and interval at level: what the pool says without this host.
	 */
	struct pool_interval without;
};


struct pool_result {
	size_t k;		/* hosts */
	enum pool_scale scale;
	/* The mean log ratio over hosts and its HKSJ interval; NaN if k < 2. */
	struct pool_interval mean;
	double se;		/* sqrt(floored q / sum(w)): mean's standard error */
	double df;		/* k - 1 */
	double hksj_q;		/* q above, before the floor */
	/*
	 * A new host's log ratio: mean.est and
	 * mu +- t(k-2) * sqrt(tau^2 + se^2); NaN below 3 hosts.  The
	 * report shows it from POOL_PREDICT_MIN_K hosts on.
	 */
	struct pool_interval predict;
	/* Heterogeneity: DerSimonian-Laird tau^2 (log scale) and Cochran's Q. */
	double tau2, tau;
	double tau_factor;	/* exp(tau): the hosts' geometric sd of ratios */
	double q;		/* Cochran's Q, fixed-effect weights 1 / v_i */
	double i2;		/* Higgins: max(0, (Q - (k-1)) / Q); 0 if Q = 0 */
	/*
	 * Sign test over hosts: ratio > 1 (above) against < 1 (below).  A
	 * host whose ratio is exactly 1 (y == 0) is a tie and left out, as in
	 * the classic sign test; p is exact binomial, two-sided
	 * (min(1, 2 * P(X <= min(above, below))), X ~ Bin(above + below, 1/2)),
	 * and 1 when every host ties.
	 */
	size_t above, below, ties;
	double sign_p;
	size_t outliers;	/* hosts flagged by leave-one-out */
	/* Hosts that differ by Holm (pool_host.differs), by direction. */
	size_t differ_above, differ_below;
	/* The level of each leave-one-out interval: 1 - (1 - level) / k. */
	double loo_level;
};

/*
 * y, v and df of one host from its valid, measured (not warm-up) runs per
 * mode.  Each mode's logs are summed in sorted order, so that y depends on
 * the runs and not on their order: a host whose legacy runs are its
 * optimized runs in another order has y = 0 exactly, a tie, not a
 * rounding error of either sign.  0, -EINVAL (fewer than 2 runs in a mode), -EDOM (a value <= 0, or
 * every run of both modes equal: v = 0 gives a host infinite weight), or
 * -ENOMEM.
 */
int pool_host_from_samples(const double *legacy, size_t nl,
			   const double *optimized, size_t no,
			   struct pool_host *h);

/*
 * Pool k hosts at confidence level (e.g. 0.95) for the interval of the
 * mean, the prediction interval and the leave-one-out flags.  One host
 * gives its own y as the mean and NaN for all the rest.  0, -EINVAL (no
 * host, level not in (0, 1)) or -EDOM (a y not finite, a v not > 0, a df
 * not >= 0).
 */
int pool_combine(struct pool_host *h, size_t k, double level,
		 enum pool_scale scale, struct pool_result *r);

/* The exact two-sided sign test p of above against below (see above). */
double pool_sign_p(size_t above, size_t below);

/*
 * Whether two hosts' runs are the same: each mode's runs equal as
 * multisets (the same values, in any order).  One run twice, whatever
 * its files are called.
 */
bool pool_same_runs(const double *l1, size_t nl1, const double *o1,
		    size_t no1, const double *l2, size_t nl2,
		    const double *o2, size_t no2);

#endif
