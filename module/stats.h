/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counting and timing a call: per-CPU counters and latency histograms, per
 * path and per mode (stats.c).  The hook callbacks count every call and
 * time one in 2^sample_shift; what a timed legacy call's time then means
 * is the watchdog's to judge (watchdog.h), not this file's.
 */
#ifndef _ABPATH_STATS_H
#define _ABPATH_STATS_H

#include <linux/percpu.h>
#include <linux/sched/clock.h>

#include "abpath.h"

/* Counters every path has; a path's own counters follow them. */
enum {
	ABPATH_CALLS,
	ABPATH_TIMED,
	ABPATH_NS_TOTAL,
	ABPATH_NS_MAX,
	ABPATH_MISMATCHES,
	ABPATH_WATCHDOG_REVERTS,
	ABPATH_NR_COMMON,
};

#define ABPATH_MAX_COUNTERS	16
/* Bucket k holds calls of [2^(k-1), 2^k) ns; the last one is open-ended. */
#define ABPATH_HIST_BUCKETS	40

struct abpath_pcpu {
	u64 counter[ABPATH_NR_MODES][ABPATH_MAX_COUNTERS];
	u64 hist[ABPATH_NR_MODES][ABPATH_HIST_BUCKETS];
};

int abpath_stats_alloc(void);
void abpath_stats_free(void);
void abpath_stats_reset(void);
u64 abpath_stat_read(const struct abpath_path *p, enum abpath_mode mode,
		     unsigned int counter);
u64 abpath_hist_read(const struct abpath_path *p, enum abpath_mode mode,
		     unsigned int bucket);
const char *abpath_counter_name(const struct abpath_path *p,
				unsigned int counter);

/*
 * Per-CPU updates.  this_cpu_add() is safe against preemption and
 * interrupts, so one path may count from the tick's hardirq and from
 * process context (timer_fastpath does both); remote readers sum without
 * locks and may see a value a few events old.
 */
static __always_inline void abpath_add(struct abpath_path *p,
				       enum abpath_mode mode,
				       unsigned int counter, u64 n)
{
	this_cpu_add(p->stats->counter[mode][counter], n);
}

/*
 * local_clock() is cheap in every context the hooks run in; a process
 * context caller may migrate between the two reads, so a negative delta
 * is clamped to 0 by abpath_record().
 */
static __always_inline u64 abpath_now(void)
{
	return local_clock();
}

/*
 * 1 << abpath_sample_shift[id] calls per timed call, and the mask of a
 * call count's low bits that the hooks test.  A path's default is its
 * ABPATH_SAMPLE_SHIFT() line in paths.h, every call without one.
 */
extern unsigned int abpath_sample_shift[ABPATH_NR_PATHS];
extern unsigned long abpath_sample_mask[ABPATH_NR_PATHS];

/* Records a timed call; returns how long it took. */
u64 abpath_record(struct abpath_path *p, enum abpath_mode mode, u64 t0);

/*
 * Every call is counted; only one in 2^sample_shift (per CPU and mode) is
 * timed, because two clock reads can cost as much as a cheap path itself.
 * Returns whether this call is one to time.  @id is p->id, passed as a
 * constant by a caller that counts instructions.
 */
static __always_inline bool abpath_count(struct abpath_path *p,
					 enum abpath_mode mode,
					 enum abpath_id id)
{
	u64 n = this_cpu_add_return(p->stats->counter[mode][ABPATH_CALLS], 1);

	return !((n - 1) & READ_ONCE(abpath_sample_mask[id]));
}

/* Counts the call; the start time of a timed call, 0 for an untimed one. */
static __always_inline u64 abpath_start(struct abpath_path *p,
					enum abpath_mode mode)
{
	return abpath_count(p, mode, p->id) ? abpath_now() : 0;
}

#endif /* _ABPATH_STATS_H */
