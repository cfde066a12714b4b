/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every file of the module shares: the path, its id and its modes,
 * the list of the paths, and what a backend provides.
 *
 * One struct abpath_path per switchable kernel path, listed in paths.h and
 * defined in its own file, module/<name>.c.  The files that serve every
 * path build on this one and not on each other's insides: stats.h counts
 * and times a call, mode.h reads the mode word that mode.c alone writes,
 * watchdog.h judges a timed legacy call, params.h parses the per-path
 * parameters.  A path's header, module/<name>.h, is what the backends
 * call of it.
 *
 * Each path's legacy algorithm and its cross-check are plain functions of
 * the task they are given; the hook callbacks that pick them are the only
 * code that knows how the module is attached to the kernel.
 */
#ifndef _ABPATH_H
#define _ABPATH_H

#include <linux/atomic.h>
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

struct abpath_pcpu;
struct kobject;

/*
 * A path, defined in its own file: ABPATH_PATH_OF(name) gives its name and
 * id, the rest is its own.
 */
struct abpath_path {
	const char *name;
	enum abpath_id id;
	/* The path's own counters, indexed from ABPATH_NR_COMMON (stats.h). */
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
	 * Mode and epoch in one word, so that a call reads both at once
	 * (mode.h); mode.c alone writes it.
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

/*
 * The backend: hooks.c through the kernel's hook patch, or stock.c through
 * ftrace on an unpatched kernel, each from its own lines of paths.h and
 * each path's header.  Its site of a path says where it attaches it, NULL
 * for nowhere.  Init attaches every path that it can (setting
 * ->unavailable where it cannot) and fails only when none could be; exit
 * detaches them and waits until no call is left in this module's text.
 * Its resolution says how it reaches the kernel's symbols: "exports"
 * for the hook patch's, else module/ksym.h's.
 */
extern const char *const abpath_backend_name;
extern const char *const abpath_backend_resolution;
const char *abpath_backend_site(const struct abpath_path *p);
int abpath_backend_init(void);
void abpath_backend_exit(void);

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

#endif /* _ABPATH_H */
