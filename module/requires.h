/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each backend needs of a kernel's config, and what in it stops a
 * module built by DKMS from loading: the one table of them, so that the
 * build and the preflight cannot disagree.  Its readers:
 *
 *	Kbuild		which backend to build, and its error otherwise;
 *	module/tables	the one shell reader, for dkms.conf
 *			(BUILD_EXCLUSIVE_CONFIG, and its line on what a
 *			skipped kernel lacks) and the tests;
 *	userspace	abpath check and abpath status (preflight.c,
 *			kernel.c), which include this file.
 *
 * The shell and make readers parse the lines with sed, so each entry
 * stays on one line, spelled as below, with no comma inside its text.
 *
 * ABPATH_REQUIRE(backend, option, why)
 *	The backend (patched or stock) is built only where option is y;
 *	why is what it is needed for, which every reader prints after
 *	the option's name.  stock.c's #errors repeat the stock ones, for
 *	a build that bypasses Kbuild's choice.
 *
 * ABPATH_RESOLVE(resolution, option, why)
 *	The stock backend also needs one resolution whose options are all
 *	y: how it reaches the vmlinux symbols the kernel does not export
 *	(module/ksym.h); Kbuild builds the first one a kernel has.  The
 *	first option of each is the architecture its trampoline is
 *	written for, so a kernel of another is not told what the rest
 *	of it lacks.
 *
 * ABPATH_UNAVAILABLE(backend, path, option, why)
 *	Where option is set, the backend leaves path optimized-only: the
 *	module says why in <path>/site (module/stock.c's check of it).
 *
 * ABPATH_REFUSE(option, why)
 *	Set, the kernel loads no module whose signature it cannot check
 *	against a key it trusts; DKMS signs with its own key, which loads
 *	only once enrolled (mokutil --import), and no config says whether
 *	it is.
 */
#ifndef ABPATH_REQUIRE
#define ABPATH_REQUIRE(...)
#endif
#ifndef ABPATH_RESOLVE
#define ABPATH_RESOLVE(...)
#endif
#ifndef ABPATH_UNAVAILABLE
#define ABPATH_UNAVAILABLE(...)
#endif
#ifndef ABPATH_REFUSE
#define ABPATH_REFUSE(...)
#endif

ABPATH_REQUIRE(patched, CONFIG_ABPATH_HOOKS, "the hook patch (patches/): its static calls")
ABPATH_RESOLVE(livepatch, CONFIG_X86_64, "its ftrace trampoline is x86-64 assembly")
ABPATH_RESOLVE(livepatch, CONFIG_LIVEPATCH, "its livepatch relocations reach unexported symbols")
ABPATH_RESOLVE(kallsyms, CONFIG_ARM64, "its ftrace trampoline is arm64 assembly")
ABPATH_RESOLVE(kallsyms, CONFIG_KALLSYMS_ALL, "kallsyms lists the unexported data it takes")
ABPATH_RESOLVE(kallsyms, CONFIG_KPROBES, "a kprobe finds the kernel's symbol lookup")
ABPATH_REQUIRE(stock, CONFIG_DYNAMIC_FTRACE_WITH_ARGS, "its handlers read the sites' arguments")
ABPATH_REQUIRE(stock, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, "its trampoline is a direct call")
ABPATH_REQUIRE(stock, CONFIG_POSIX_CPU_TIMERS_TASK_WORK, "the tick reads the timers' task work")

ABPATH_UNAVAILABLE(stock, timer_fastpath, CONFIG_PREEMPT_RT, "its slow path sleeps in the tick")

ABPATH_REFUSE(CONFIG_MODULE_SIG_FORCE, "only trusted signatures load")
ABPATH_REFUSE(CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY, "only trusted signatures load")
ABPATH_REFUSE(CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY, "only trusted signatures load")

#undef ABPATH_REQUIRE
#undef ABPATH_RESOLVE
#undef ABPATH_UNAVAILABLE
#undef ABPATH_REFUSE
