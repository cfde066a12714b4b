/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abpath internals shared by the module's files.
 *
 * One struct abpath_path per switchable kernel path, listed in paths.h.
 * Its mode is a plain word (mode.c), read once per call by the hook
 * callbacks (hardirq, IRQs off, or process context that must not sleep);
 * it costs a call one load, in both modes alike.
 *
 * Each path's legacy algorithm and its cross-check are plain functions of
 * the task they are given; the hook callbacks that pick them are the only
 * code that knows how the module is attached to the kernel.
 */
#ifndef _ABPATH_H
#define _ABPATH_H

#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "compat.h"

/* A path's place in module/paths.h. */
#define ABPATH_ID(name)		ABPATH_ID_##name

enum abpath_id {
#define ABPATH_PATH(name)	ABPATH_ID_##name,
#include "paths.h"
	ABPATH_NR_PATHS,
};

enum abpath_mode {
	ABPATH_OPTIMIZED,
	ABPATH_LEGACY,
	ABPATH_NR_MODES,
};

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

/* Bit 0 of a path's state word is its mode; the bits above, its epoch. */
#define ABPATH_STATE_MODE	1UL
#define ABPATH_STATE_EPOCH	2UL

/*
 * A path, defined in its own file: ABPATH_PATH_OF(name) gives its name and
 * id, the rest is its own.
 */
struct abpath_path {
	const char *name;
	enum abpath_id id;
	/* The path's own counters, indexed from ABPATH_NR_COMMON. */
	const char *const *counters;
	unsigned int nr_counters;
	/* Whether legacy answers are cross-checked (and can be injected). */
	bool checked;
	/*
	 * Why legacy cannot run (the backend's site for it is missing or not
	 * what it expects), NULL when it can.  Set before sysfs exists and
	 * never changed after.
	 */
	const char *unavailable;
	/*
	 * Mode and epoch in one word, so that a call reads both at once: the
	 * watchdog reverts the setting a slow call ran under, and a change of
	 * mode bumps the epoch.  Written under abpath_mode_lock.
	 */
	unsigned long state;
	/* Judged legacy calls still to get wrong on purpose (debugfs inject). */
	atomic_t inject;
	struct abpath_pcpu __percpu *stats;
	struct kobject *kobj;
	/* Watchdog state, see watchdog.c. */
	unsigned long watchdog_pending;
	unsigned long watchdog_state;
	u64 watchdog_ns;
	struct work_struct watchdog_work;
	/*
	 * What the path sets up for itself, at load before the backend
	 * attaches it, and tears down at unload after the backend has
	 * detached it: no callback of the path runs during either.
	 */
	int (*init)(void);
	void (*exit)(void);
};

#define ABPATH_PATH_OF(_name)	.name = #_name, .id = ABPATH_ID(_name)

/* Each path, and (paths.c) all of them in their order. */
extern struct abpath_path
#define ABPATH_PATH(name)	abpath_##name##_path,
#include "paths.h"
	*const abpath_paths[ABPATH_NR_PATHS];

#define abpath_for_each_path(p)					\
	for (struct abpath_path *const *__pp = abpath_paths;		\
	     __pp < abpath_paths + ABPATH_NR_PATHS && ((p) = *__pp); __pp++)

/* paths.c */
int abpath_paths_init(void);
void abpath_paths_exit(void);
void abpath_path_unavailable(struct abpath_path *p, const char *why);

/* Hook callbacks, one per path file. */
bool abpath_group_cputime_hook(struct task_struct *tsk,
			       struct task_cputime *times,
			       abpath_group_cputime_fn stock);
bool abpath_timer_fastpath_hook(struct task_struct *tsk,
				abpath_timer_check_fn stock);
void abpath_timer_slowpath_hook(struct task_struct *tsk);
void abpath_exit_reparent_hook(struct task_struct *father);
bool abpath_timer_softirq_hook(void);

/* params.c: a per-path module parameter, one value of at most @max a path. */
struct abpath_param_paths {
	unsigned int *val;
	unsigned int max;
	unsigned long *mask;	/* if set, (1 << val) - 1 too, for the hooks */
};

extern const struct kernel_param_ops abpath_param_paths_ops;

/*
 * How a per-path parameter's description orders its values: Kbuild
 * passes the paths' names, comma-separated, as ABPATH_PATH_ORDER.
 */
#ifndef ABPATH_PATH_ORDER
#error "Kbuild defines ABPATH_PATH_ORDER from module/paths.h"
#endif
#define ABPATH_PARAM_ORDER \
	"in the order " ABPATH_PATH_ORDER ", or one value for all"

/* mode.c */
extern const char *const abpath_mode_names[ABPATH_NR_MODES];

int abpath_set_mode(struct abpath_path *p, enum abpath_mode mode);
int abpath_set_all_modes(enum abpath_mode mode);
bool abpath_revert_mode(struct abpath_path *p, unsigned long state);

/*
 * The backend: hooks.c through the kernel's hook patch, or stock.c through
 * ftrace on an unpatched kernel, each from its own lines of paths.h.  Its
 * site of a path says where it attaches it, NULL for nowhere.  Init
 * attaches every path that it can (setting ->unavailable where it cannot)
 * and fails only when none could be; exit detaches them and waits until no
 * call is left in this module's text.
 */
extern const char *const abpath_backend_name;
const char *abpath_backend_site(const struct abpath_path *p);
int abpath_backend_init(void);
void abpath_backend_exit(void);

/*
 * group_cputime.c: a call a backend has already counted and chosen with
 * abpath_group_cputime_claim().
 */
void abpath_group_cputime_claimed(enum abpath_mode mode, bool timed,
				  struct task_struct *tsk,
				  struct task_cputime *times,
				  abpath_group_cputime_fn stock);

/*
 * timer_fastpath.c: the per-thread shares of the 2.6.27 tick.  Its slow
 * path runs in the tick, as 2.6.27's did, except on PREEMPT_RT, where the
 * locks it takes sleep and it runs in the CPU timer task work: a variant,
 * named so in the path's site wherever a result is reported.
 */
#ifdef CONFIG_PREEMPT_RT
#define ABPATH_TF_SLOW_IN_TICK	false
#define ABPATH_TF_SLOW_SITE \
	"slow path in CPU timer task work (PREEMPT_RT variant; 2.6.27 ran it in the tick)"
#else
#define ABPATH_TF_SLOW_IN_TICK	true
#define ABPATH_TF_SLOW_SITE	"slow path in the tick, hardirq (2.6.27)"
#endif

/* stats.c */
int abpath_stats_alloc(void);
void abpath_stats_free(void);
void abpath_stats_reset(void);
u64 abpath_stat_read(const struct abpath_path *p, enum abpath_mode mode,
		     unsigned int counter);
u64 abpath_hist_read(const struct abpath_path *p, enum abpath_mode mode,
		     unsigned int bucket);
const char *abpath_counter_name(const struct abpath_path *p,
				unsigned int counter);

static __always_inline unsigned long
abpath_state_now(const struct abpath_path *p)
{
	return READ_ONCE(p->state);
}

static __always_inline enum abpath_mode abpath_state_mode(unsigned long state)
{
	return state & ABPATH_STATE_MODE;
}

static __always_inline enum abpath_mode
abpath_mode_now(const struct abpath_path *p)
{
	return abpath_state_mode(abpath_state_now(p));
}

/*
 * Takes one injected fault for a judged legacy call; a call that ends up
 * not judged gives it back with abpath_inject_untake().
 */
static inline bool abpath_inject_take(struct abpath_path *p)
{
	return atomic_read(&p->inject) > 0 &&
	       atomic_dec_if_positive(&p->inject) >= 0;
}

static inline void abpath_inject_untake(struct abpath_path *p)
{
	atomic_inc(&p->inject);
}

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
 * stats.c: 1 << abpath_sample_shift[id] calls per timed call, and the
 * mask of a call count's low bits that the hooks test.  A path's default
 * is its ABPATH_SAMPLE_SHIFT() line in paths.h, every call without one.
 */
extern unsigned int abpath_sample_shift[ABPATH_NR_PATHS];
extern unsigned long abpath_sample_mask[ABPATH_NR_PATHS];

u64 abpath_record(struct abpath_path *p, enum abpath_mode mode, u64 t0);
void abpath_account(struct abpath_path *p, unsigned long state, u64 t0);

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

/*
 * group_cputime: counts the call and chooses what runs.  false leaves it
 * to the stock pass, untimed; true gives the mode and whether the call is
 * timed (every legacy call runs in the module, an optimized one only when
 * timed).  Inline: the stock backend runs it from a trampoline on every
 * times(), and a call here would cost a stack frame there.
 */
static __always_inline bool abpath_group_cputime_claim(unsigned long state,
						       enum abpath_mode *mode,
						       bool *timed)
{
	struct abpath_path *p = &abpath_group_cputime_path;

	/* The mode first: each arm's count then has a constant address. */
	*mode = abpath_state_mode(state);
	if (*mode == ABPATH_LEGACY) {
		*timed = abpath_count(p, ABPATH_LEGACY, ABPATH_ID(group_cputime));
		return true;
	}
	*timed = abpath_count(p, ABPATH_OPTIMIZED, ABPATH_ID(group_cputime));
	return *timed;
}

/*
 * Context switches of current so far.  A process-context call that was
 * switched out part way is recorded, since that is the latency its caller
 * saw, but not judged by the watchdog: time spent off the CPU is not the
 * legacy algorithm's cost, and on a busy machine it alone would revert it.
 */
static __always_inline unsigned long abpath_switches(void)
{
	return READ_ONCE(current->nvcsw) + READ_ONCE(current->nivcsw);
}

static __always_inline void abpath_finish(struct abpath_path *p,
					  unsigned long state, u64 t0)
{
	if (t0)
		abpath_account(p, state, t0);
}

/* watchdog.c */
void abpath_watchdog_init(void);
void abpath_watchdog_exit(void);
void abpath_watchdog_check(struct abpath_path *p, unsigned long state, u64 ns);

/* sysfs.c, debugfs.c */
int abpath_sysfs_init(void);
void abpath_sysfs_exit(void);
void abpath_debugfs_init(void);
void abpath_debugfs_exit(void);

#endif /* _ABPATH_H */
