/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels abpath builds for, told apart by what
 * their headers declare, never by version: Kbuild greps the headers for
 * the ones a macro cannot see (ABPATH_FTRACE_DIRECT_MULTI,
 * ABPATH_MODULE_MEMORY), and the rest is tested here.
 */
#ifndef _ABPATH_COMPAT_H
#define _ABPATH_COMPAT_H

#include <linux/lockdep.h>

/*
 * A wait-type override (6.4) tells lockdep that code which exists only on
 * !PREEMPT_RT may take spinlock_t and rwlock_t where raw spinlocks alone
 * would be valid on RT.  Without one, PROVE_RAW_LOCK_NESTING would report
 * timer_fastpath's slow path in the tick, so such a kernel is refused.
 */
#ifdef DEFINE_WAIT_OVERRIDE_MAP
#define ABPATH_DEFINE_NONRT_MAP(name) \
	DEFINE_WAIT_OVERRIDE_MAP(name, LD_WAIT_CONFIG)
#define abpath_nonrt_begin(map)	lock_map_acquire_try(map)
#define abpath_nonrt_end(map)	lock_map_release(map)
#else
#ifdef CONFIG_PROVE_RAW_LOCK_NESTING
#error "PROVE_RAW_LOCK_NESTING without DEFINE_WAIT_OVERRIDE_MAP (before 6.4)"
#endif
#define ABPATH_DEFINE_NONRT_MAP(name) \
	struct lockdep_map name __maybe_unused
#define abpath_nonrt_begin(map)	((void)(map))
#define abpath_nonrt_end(map)	((void)(map))
#endif

#endif /* _ABPATH_COMPAT_H */
