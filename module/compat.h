/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels abpath builds for, told apart by what
 * their headers declare, never by version: compat.kbuild, beside this
 * file, greps the headers for the ones a macro cannot see
 * (ABPATH_FTRACE_DIRECT_MULTI, ABPATH_MODULE_MEMORY, ABPATH_TIMERS_PENDING,
 * ABPATH_RAISE_TIMER_NR), and the rest is tested here.  Every file gets
 * it through abpath.h; nothing else in the module tests a kernel's
 * version or its headers.
 */
#ifndef _ABPATH_COMPAT_H
#define _ABPATH_COMPAT_H

#include <linux/lockdep.h>
#include <linux/types.h>

#ifdef CONFIG_ABPATH_HOOKS
#include <linux/abpath_hooks.h>
#else
/*
 * A kernel without the hook patch: the shapes of the stock code that a
 * path's callback is handed, as <linux/abpath_hooks.h> declares them.
 */
struct task_struct;
struct task_cputime;

typedef void (*abpath_group_cputime_fn)(struct task_struct *tsk,
					struct task_cputime *times);
typedef bool (*abpath_timer_check_fn)(struct task_struct *tsk);
#endif

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

/*
 * With interrupts threaded (threadirqs from 6.13, and always on
 * PREEMPT_RT, where Debian's 6.1 and 6.12 -rt kernels carry it as a
 * patch), the tick raises TIMER_SOFTIRQ for the ktimers thread, in a
 * pending mask of its own: local_timers_pending() (local_pending_timers()
 * in 6.1-rt) reads whichever mask this kernel uses, and the raise must go
 * through raise_timer_softirq(), which takes the softirq's number from
 * 6.13.  Before, every tick raised it in the softirq mask.  Hard
 * interrupt only.
 */
#include <linux/interrupt.h>
#if defined(ABPATH_TIMERS_PENDING) && defined(ABPATH_KSYM_KALLSYMS)
/*
 * The header's readers and raiser of that mask take a static key and a
 * per-CPU variable that the kernel does not export, which only a
 * relocation reaches: without livepatch relocations (module/ksym.h) the
 * same, through the addresses found at load.
 */
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include "ksym.h"

static inline bool abpath_force_irqthreads(void)
{
#if defined(CONFIG_PREEMPT_RT)
	return true;
#elif defined(CONFIG_IRQ_FORCED_THREADING)
	return static_key_enabled((struct static_key_false *)
				  abpath_ksym_force_irqthreads_key);
#else
	return false;
#endif
}

#define abpath_timer_softirq_pending()					\
	((abpath_force_irqthreads() ?					\
	  __this_cpu_read(*(unsigned long __percpu *)			\
			  abpath_ksym_pending_timer_softirq) :		\
	  local_softirq_pending()) & BIT(TIMER_SOFTIRQ))
#define abpath_raise_timer_softirq()					\
	(abpath_force_irqthreads() ?					\
	 raise_ktimers_thread(TIMER_SOFTIRQ) :				\
	 __raise_softirq_irqoff(TIMER_SOFTIRQ))
#elif defined(ABPATH_TIMERS_PENDING)
#define abpath_timer_softirq_pending() \
	(ABPATH_TIMERS_PENDING() & BIT(TIMER_SOFTIRQ))
#ifdef ABPATH_RAISE_TIMER_NR
#define abpath_raise_timer_softirq()	raise_timer_softirq(TIMER_SOFTIRQ)
#else
#define abpath_raise_timer_softirq()	raise_timer_softirq()
#endif
#else
#define abpath_timer_softirq_pending() \
	(local_softirq_pending() & BIT(TIMER_SOFTIRQ))
#define abpath_raise_timer_softirq()	raise_softirq(TIMER_SOFTIRQ)
#endif

/* What only the stock backend (stock.c) uses: ftrace and module layout. */
#ifndef CONFIG_ABPATH_HOOKS
#include <linux/ftrace.h>
#include <linux/module.h>
#ifdef CONFIG_X86_64
#include <asm/nospec-branch.h>
#endif

/* Call depth tracking (6.2) accounts each call a trampoline makes. */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

/* Before 6.4 the direct ftrace calls of an ftrace_ops were *_multi. */
static inline int abpath_register_ftrace_direct(struct ftrace_ops *ops,
						unsigned long addr)
{
#ifdef ABPATH_FTRACE_DIRECT_MULTI
	return register_ftrace_direct_multi(ops, addr);
#else
	return register_ftrace_direct(ops, addr);
#endif
}

static inline int abpath_unregister_ftrace_direct(struct ftrace_ops *ops,
						  unsigned long addr)
{
#ifdef ABPATH_FTRACE_DIRECT_MULTI
	return unregister_ftrace_direct_multi(ops, addr);
#else
	return unregister_ftrace_direct(ops, addr, false);
#endif
}

/* A module's core text: mem[MOD_TEXT] since 6.4, core_layout before. */
static inline void abpath_module_text(const struct module *mod,
				      unsigned long *base, unsigned long *size)
{
#ifdef ABPATH_MODULE_MEMORY
	*base = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
#else
	*base = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
#endif
}
#endif /* !CONFIG_ABPATH_HOOKS */

#endif /* _ABPATH_COMPAT_H */
