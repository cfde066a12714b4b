/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kallsyms resolution (module/ksym.c) finds at load: the stock
 * sites' functions, and what the paths' code calls or takes of vmlinux
 * that the kernel does not export.  Read as module/paths.h is: a file
 * defines the macros it uses and includes this one.  Kbuild reads the
 * lines too, so each stays on one line, spelled as below.
 *
 * ABPATH_KSYM_TEXT(name)
 *	A function: Kbuild links the module with --wrap=name, so that
 *	every call goes to ksym.c's veneer __wrap_name, which branches to
 *	the address found.
 * ABPATH_KSYM_DATA(name)
 *	A datum: Kbuild defines name as (*abpath_ksym_name), the pointer
 *	ksym.c fills, so that the kernel's own declaration of it declares
 *	that pointer and every use goes through it.
 * ABPATH_KSYM_ADDR(name)
 *	An address that only module/compat.h reads (a static key or a
 *	per-CPU variable, which a plain pointer cannot stand for).
 *
 * Every name listed where the preprocessor keeps it must be found, or
 * the load is refused; so a name the kernel lacks is listed only where
 * the headers that declare it make the module use it.  A name used but
 * not listed fails the build (modpost: undefined).
 */
#ifndef ABPATH_KSYM_TEXT
#define ABPATH_KSYM_TEXT(...)
#endif
#ifndef ABPATH_KSYM_DATA
#define ABPATH_KSYM_DATA(...)
#endif
#ifndef ABPATH_KSYM_ADDR
#define ABPATH_KSYM_ADDR(...)
#endif

/* The sites (module/paths.h), and the check of timer_softirq's. */
ABPATH_KSYM_TEXT(thread_group_cputime)
ABPATH_KSYM_TEXT(run_posix_cpu_timers)
ABPATH_KSYM_TEXT(do_exit)
ABPATH_KSYM_TEXT(rcu_sched_clock_irq)
ABPATH_KSYM_TEXT(update_process_times)

/* group_cputime's legacy sampler; task_cputime() is inline without GEN. */
ABPATH_KSYM_TEXT(task_sched_runtime)
#ifdef CONFIG_VIRT_CPU_ACCOUNTING_GEN
ABPATH_KSYM_TEXT(task_cputime)
#endif

/* The legacy scans' lock, and the flag stock.c checks at load. */
ABPATH_KSYM_DATA(tasklist_lock)
ABPATH_KSYM_DATA(ftrace_enabled)

/* timer_softirq's raise, and its pending mask (module/compat.h). */
#ifdef ABPATH_TIMERS_PENDING
ABPATH_KSYM_TEXT(__raise_softirq_irqoff)
ABPATH_KSYM_TEXT(raise_ktimers_thread)
ABPATH_KSYM_ADDR(pending_timer_softirq)
#if defined(CONFIG_IRQ_FORCED_THREADING) && !defined(CONFIG_PREEMPT_RT)
ABPATH_KSYM_ADDR(force_irqthreads_key)
#endif
#else
ABPATH_KSYM_TEXT(raise_softirq)
#endif

/*
 * A name no kernel has, in a build that asks for it (KCFLAGS=
 * -DABPATH_KSYM_UNREACHABLE): the suite's proof that a name the
 * resolution cannot find refuses the load (017-stock-sites.bats).
 */
#ifdef ABPATH_KSYM_UNREACHABLE
ABPATH_KSYM_ADDR(abpath_no_such_symbol)
#endif

#undef ABPATH_KSYM_TEXT
#undef ABPATH_KSYM_DATA
#undef ABPATH_KSYM_ADDR
