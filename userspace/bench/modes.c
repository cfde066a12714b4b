// SPDX-License-Identifier: GPL-2.0
/*
 * The module around the runs: each benched path's mode saved before the
 * first run, set before every run and checked after it, restored at the
 * end whatever happens; and what the counters, read before and after a
 * run, say of it: its deltas, and whether it measured its mode.
 *
 * Whatever happens (a failed run, SIGINT, SIGTERM, a failed write), every
 * path goes back to the mode it had before the bench: an engineer who
 * interrupts a bench must not be left with a kernel in legacy mode.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../control.h"
#include "../counters.h"
#include "../output.h"

static struct {
	bool armed;
	int n;
	char path[CTL_MAX_PATHS][CTL_NAME_MAX];
	char mode[CTL_MAX_PATHS][CTL_NAME_MAX];
} orig;

/* Last resort for an exit() deep down (out of memory in the emitter). */
static void restore_at_exit(void)
{
	bench_modes_restore();
}

int bench_modes_save(const struct ctl_paths *p)
{
	static bool atexit_armed;
	int err;

	orig.n = 0;
	for (int i = 0; i < p->n; i++) {
		err = ctl_path_mode(p->name[i], orig.mode[i], CTL_NAME_MAX);
		if (err)
			return ctl_explain_set(p->name[i], NULL, err);
		ctl_copy(orig.path[i], CTL_NAME_MAX, p->name[i]);
		orig.n++;
	}
	orig.armed = true;
	if (!atexit_armed)
		atexit_armed = !atexit(restore_at_exit);
	return 0;
}

int bench_modes_restore(void)
{
	char now[CTL_NAME_MAX];
	int ret = 0, err;

	if (!orig.armed)
		return 0;
	orig.armed = false;
	for (int i = 0; i < orig.n; i++) {
		if (!ctl_path_mode(orig.path[i], now, sizeof(now)) &&
		    !strcmp(now, orig.mode[i]))
			continue;
		err = ctl_set_mode(orig.path[i], orig.mode[i]);
		if (err) {
			abpath_error("could not restore %s to %s: %s; run "
				     "'abpath set %s %s'", orig.path[i],
				     orig.mode[i], err == -EPROTO ?
				     "the module did not switch" :
				     strerror(-err), orig.path[i],
				     orig.mode[i]);
			ret = 1;
		}
	}
	return ret;
}

void bench_modes_say_restored(FILE *f)
{
	for (int k = 0; k < orig.n; k++)
		fprintf(f, "%s %s to %s", k ? "," : "; restored", orig.path[k],
			orig.mode[k]);
}

int bench_modes_set(const struct ctl_paths *p, const enum bench_mode *m)
{
	int err;

	/*
	 * One write per path rather than "all": the same code then serves
	 * one path, all of them and a factorial's cell, and every path's
	 * switch is checked.
	 */
	for (int i = 0; i < p->n; i++) {
		err = ctl_set_mode(p->name[i], bench_mode_name[m[i]]);
		if (err)
			return ctl_explain_set(p->name[i], bench_mode_name[m[i]],
					       err);
	}
	return 0;
}

int bench_mode_set(const struct ctl_paths *p, enum bench_mode m)
{
	enum bench_mode all[CTL_MAX_PATHS];

	for (int i = 0; i < p->n; i++)
		all[i] = m;
	return bench_modes_set(p, all);
}

/*
 * {path: {counter: delta}} for the benched paths in the mode that ran.
 * A maximum (ns_max, any "*_max") is its value after the run: a
 * difference of maxima means nothing.  A counter that went down was reset
 * during the run, and has no delta (null).
 */
json_t *bench_counter_deltas(const struct ctl_paths *p, const char *mode,
			     const struct counter_set *before,
			     const struct counter_set *after)
{
	enum bench_mode m[CTL_MAX_PATHS];

	for (int i = 0; i < p->n; i++)
		m[i] = strcmp(mode, bench_mode_name[BENCH_LEGACY]) ?
		       BENCH_OPTIMIZED : BENCH_LEGACY;
	return bench_counter_deltas_modes(p, m, before, after);
}

json_t *bench_counter_deltas_modes(const struct ctl_paths *p,
				   const enum bench_mode *m,
				   const struct counter_set *before,
				   const struct counter_set *after)
{
	json_t *all = json_object(), *per;
	const struct counter_entry *e, *prev;

	for (int i = 0; i < p->n; i++) {
		per = json_object();
		for (size_t j = 0; j < after->n; j++) {
			e = &after->e[j];
			if (strcmp(e->path, p->name[i]) ||
			    strcmp(e->mode, bench_mode_name[m[i]]))
				continue;
			prev = counters_find(before, e, j);
			if (bench_is_max_counter(e->counter) || !prev)
				json_object_set_new(per, e->counter,
						    json_integer((json_int_t)e->value));
			else if (e->value >= prev->value)
				json_object_set_new(per, e->counter,
						    json_integer((json_int_t)
							(e->value - prev->value)));
			else
				json_object_set_new(per, e->counter, json_null());
		}
		json_object_set_new(all, p->name[i], per);
	}
	return all;
}

/*
 * The benched path whose legacy arm the watchdog sent back to optimized
 * during a run, or NULL.  Such a run ran partly in the other mode, so it
 * measures neither.
 */
static const char *reverted_path(const struct ctl_paths *p,
				 const struct counter_set *before,
				 const struct counter_set *after)
{
	const struct counter_entry *e, *prev;

	for (size_t j = 0; j < after->n; j++) {
		e = &after->e[j];
		if (strcmp(e->counter, "watchdog_reverts") ||
		    strcmp(e->mode, "legacy") ||
		    !ctl_valid_path(p, e->path))
			continue;
		prev = counters_find(before, e, j);
		if (prev && e->value > prev->value)
			return e->path;
	}
	return NULL;
}

/*
 * Why a run did not measure mode @m, into @why (left "" for a good run):
 * the watchdog sent a benched path back to optimized during it (the run
 * then ran partly in the other mode), a cross-check disagreed (the
 * legacy arm did not do what it reproduces), or a path was not in @m at
 * the end (someone else switched it).  The counters, read before and
 * after every run, show a revert or a mismatch even when the mode is
 * back by the end; a switch and back by someone else is not seen.
 */
void bench_judge_run(const struct ctl_paths *p, enum bench_mode m,
		     const struct counter_set *before,
		     const struct counter_set *after, char *why, size_t len)
{
	enum bench_mode all[CTL_MAX_PATHS];

	for (int i = 0; i < p->n; i++)
		all[i] = m;
	bench_judge_modes(p, all, before, after, why, len);
}

void bench_judge_modes(const struct ctl_paths *p, const enum bench_mode *m,
		       const struct counter_set *before,
		       const struct counter_set *after, char *why, size_t len)
{
	const struct counter_entry *e, *prev;
	char now[CTL_NAME_MAX];
	const char *path;

	why[0] = '\0';
	path = reverted_path(p, before, after);
	if (path) {
		snprintf(why, len, "the watchdog sent %s back to optimized "
			 "during the run (a legacy call over its budget, "
			 "module parameter watchdog_us)", path);
		return;
	}
	for (size_t j = 0; j < after->n; j++) {
		e = &after->e[j];
		if (strcmp(e->counter, "mismatches") ||
		    !ctl_valid_path(p, e->path))
			continue;
		prev = counters_find(before, e, j);
		if (prev && e->value > prev->value) {
			snprintf(why, len, "%s counted %llu mismatch%s in %s "
				 "mode: its cross-check disagreed with the "
				 "stock code", e->path,
				 (unsigned long long)(e->value - prev->value),
				 e->value - prev->value == 1 ? "" : "es",
				 e->mode);
			return;
		}
	}
	for (int i = 0; i < p->n; i++) {
		if (ctl_path_mode(p->name[i], now, sizeof(now)))
			ctl_copy(now, sizeof(now), "unreadable");
		if (strcmp(now, bench_mode_name[m[i]])) {
			snprintf(why, len, "%s was %s at the end of the run, "
				 "not %s: something else switched it",
				 p->name[i], now, bench_mode_name[m[i]]);
			return;
		}
	}
}
