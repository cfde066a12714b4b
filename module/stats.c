// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters and latency histograms, per path and per mode.
 *
 * They count in both modes while the module is loaded, so both sides of an
 * A/B run pay the same instrumentation.
 */
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "abpath.h"
#include "params.h"
#include "stats.h"

/* Indexed by path id, like watchdog_us; each path's default from paths.h. */
unsigned int abpath_sample_shift[ABPATH_NR_PATHS] = {
#define ABPATH_SAMPLE_SHIFT(name, shift)				\
	[ABPATH_ID(name)] = (shift),
#include "paths.h"
};

unsigned long abpath_sample_mask[ABPATH_NR_PATHS] = {
#define ABPATH_SAMPLE_SHIFT(name, shift)				\
	[ABPATH_ID(name)] = (1UL << (shift)) - 1,
#include "paths.h"
};

static struct abpath_param_paths sample_shift_param = {
	.val	= abpath_sample_shift,
	.max	= 20,
	.mask	= abpath_sample_mask,
};
module_param_cb(sample_shift, &abpath_param_paths_ops, &sample_shift_param,
		0644);
MODULE_PARM_DESC(sample_shift,
		 "per path, time one call in 2^N (0..20), " ABPATH_PARAM_ORDER);

static const char *const abpath_common_counters[ABPATH_NR_COMMON] = {
	[ABPATH_CALLS]		= "calls",
	[ABPATH_TIMED]		= "timed",
	[ABPATH_NS_TOTAL]	= "ns_total",
	[ABPATH_NS_MAX]		= "ns_max",
	[ABPATH_MISMATCHES]	= "mismatches",
	[ABPATH_WATCHDOG_REVERTS] = "watchdog_reverts",
};

const char *abpath_counter_name(const struct abpath_path *p,
				unsigned int counter)
{
	if (counter < ABPATH_NR_COMMON)
		return abpath_common_counters[counter];
	if (counter - ABPATH_NR_COMMON < p->nr_counters)
		return p->counters[counter - ABPATH_NR_COMMON];
	return NULL;
}

int abpath_stats_alloc(void)
{
	struct abpath_path *p;

	abpath_for_each_path(p) {
		if (WARN_ON(ABPATH_NR_COMMON + p->nr_counters >
			    ABPATH_MAX_COUNTERS))
			goto err_free;
		p->stats = alloc_percpu(struct abpath_pcpu);
		if (!p->stats)
			goto err_free;
	}
	return 0;

err_free:
	abpath_stats_free();
	return -ENOMEM;
}

void abpath_stats_free(void)
{
	struct abpath_path *p;

	abpath_for_each_path(p) {
		free_percpu(p->stats);
		p->stats = NULL;
	}
}

/*
 * Racing with updates on other CPUs is harmless: an event counted during
 * the reset may survive it, none is double counted.
 */
void abpath_stats_reset(void)
{
	struct abpath_path *p;
	int cpu;

	abpath_for_each_path(p)
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(p->stats, cpu), 0,
			       sizeof(struct abpath_pcpu));
}

u64 abpath_stat_read(const struct abpath_path *p, enum abpath_mode mode,
		     unsigned int counter)
{
	u64 v, sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		v = READ_ONCE(per_cpu_ptr(p->stats, cpu)->counter[mode][counter]);
		if (counter == ABPATH_NS_MAX)
			sum = max(sum, v);
		else
			sum += v;
	}
	return sum;
}

u64 abpath_hist_read(const struct abpath_path *p, enum abpath_mode mode,
		     unsigned int bucket)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(p->stats, cpu)->hist[mode][bucket]);
	return sum;
}

u64 abpath_record(struct abpath_path *p, enum abpath_mode mode, u64 t0)
{
	s64 delta = abpath_now() - t0;
	u64 ns = delta > 0 ? delta : 0;
	struct abpath_pcpu *s;
	unsigned int bucket;

	bucket = min_t(unsigned int, fls64(ns), ABPATH_HIST_BUCKETS - 1);
	s = get_cpu_ptr(p->stats);
	s->counter[mode][ABPATH_TIMED]++;
	s->counter[mode][ABPATH_NS_TOTAL] += ns;
	if (ns > s->counter[mode][ABPATH_NS_MAX])
		s->counter[mode][ABPATH_NS_MAX] = ns;
	s->hist[mode][bucket]++;
	put_cpu_ptr(p->stats);
	return ns;
}
