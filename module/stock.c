// SPDX-License-Identifier: GPL-2.0
/*
 * The stock backend: the same paths on a distribution's own, unpatched
 * kernel, attached through ftrace at the nearest traceable site to the hook
 * patch's: the ABPATH_STOCK() lines of paths.h, and the handlers below
 * (docs/design.md, "The stock backend", has why each site is where it is).
 *
 * The vmlinux functions and data the paths need and the kernel does not
 * export are reached as module/ksym.h says: through livepatch relocations
 * on x86-64 (the price is the K taint), through kallsyms on arm64.  The
 * trampolines are each architecture's own, and do the same.
 *
 * A site that is missing, untraceable or taken (one IPMODIFY user per
 * function: a distribution livepatch of thread_group_cputime() excludes
 * abpath there) leaves its path optimized-only, with one log line and the
 * reason in <path>/site; the other paths work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <asm/linkage.h>
#ifdef CONFIG_X86_64
#include <asm/ibt.h>
#else
#include <asm/insn.h>
#endif

#include "abpath.h"
#include "exit_reparent.h"
#include "group_cputime.h"
#include "ksym.h"
#include "mode.h"
#include "stock.h"
#include "timer_fastpath.h"
#include "timer_softirq.h"

#if !defined(CONFIG_X86_64) && !defined(CONFIG_ARM64)
#error "the stock backend's trampolines are x86-64 or arm64 assembly"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#error "the stock backend needs CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"
#endif
#ifndef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
#error "the stock backend needs CONFIG_DYNAMIC_FTRACE_WITH_ARGS"
#endif
#ifndef CONFIG_POSIX_CPU_TIMERS_TASK_WORK
/* The tick's handler reads whether the CPU timer task work is queued. */
#error "the stock backend needs CONFIG_POSIX_CPU_TIMERS_TASK_WORK"
#endif

const char *const abpath_backend_name = "stock";

/*
 * group_cputime.  The stock pass the cross-check brackets a sample with:
 * its calls come from this module, which the handler lets through.
 */
static void stock_group_cputime(struct task_struct *tsk,
				struct task_cputime *times)
{
	thread_group_cputime(tsk, times);
}

/* Where a claimed call goes: the choice travels in which function runs. */
static void stock_gc_legacy(struct task_struct *tsk,
			    struct task_cputime *times)
{
	abpath_group_cputime_claimed(ABPATH_LEGACY, false, tsk, times,
				     stock_group_cputime);
}

static void stock_gc_legacy_timed(struct task_struct *tsk,
				  struct task_cputime *times)
{
	abpath_group_cputime_claimed(ABPATH_LEGACY, true, tsk, times,
				     stock_group_cputime);
}

static void stock_gc_optimized_timed(struct task_struct *tsk,
				     struct task_cputime *times)
{
	abpath_group_cputime_claimed(ABPATH_OPTIMIZED, true, tsk, times,
				     stock_group_cputime);
}

/* This module's core text, where the cross-check's stock samples come from. */
static unsigned long stock_text, stock_text_size;

/*
 * thread_group_cputime() entry, process context, from the trampoline
 * below: where the call goes, 0 for the stock function's own body.  A
 * diverted call runs this module's text after the trampoline returned,
 * possibly preempted: abpath_backend_exit() waits for it with RCU Tasks.
 */
unsigned long notrace abpath_stock_gc_entry(unsigned long parent_ip)
{
	enum abpath_mode mode;
	bool timed;

	if (parent_ip - stock_text < stock_text_size)
		return 0;
	if (!abpath_group_cputime_claim(abpath_state_now(&abpath_group_cputime_path),
					&mode, &timed))
		return 0;
	if (mode == ABPATH_OPTIMIZED)
		return (unsigned long)stock_gc_optimized_timed;
	if (timed)
		return (unsigned long)stock_gc_legacy_timed;
	return (unsigned long)stock_gc_legacy;
}

#ifdef CONFIG_X86_64
/*
 * A site's direct call returns into its function at the entry plus the
 * call, or plus the call and an ENDBR: ftrace's site is the function's
 * entry or the instruction after its ENDBR.
 */
#define STOCK_SITE_RET		MCOUNT_INSN_SIZE
#define STOCK_SITE_SLACK	ENDBR_INSN_SIZE
/* How far into update_process_times() its call to the RCU tick is sought. */
#define STOCK_SCAN		256

/*
 * Where the direct call of every site lands, from the site's fentry (or,
 * when another ftrace user shares the function, jumped to from ftrace's
 * trampoline once its handlers returned, hence the ENDBR), with the return
 * into the function's body on top of the stack and its caller's return
 * above it, in the function's own context.
 *
 * thread_group_cputime() runs on every times(), so it is told first, by
 * that return, and only its two argument registers are saved.  A diverted
 * call is entered as ftrace's own IPMODIFY enters one: by returning into
 * it in the body's place, so calls and returns stay paired, and it
 * returns straight to the caller.  Every other site saves every argument
 * register and is dispatched in C.
 *
 * Aligned: with CONFIG_DYNAMIC_FTRACE_WITH_JMP (7.x) an odd direct
 * address asks ftrace for a jump to the address below it, not a call.
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
"	.balign	16\n"
"	.type	stock_tramp, @function\n"
"stock_tramp:\n"
	ASM_ENDBR
"	pushq	%rbp\n"
"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	movq	8(%rbp), %r11\n"
"	subq	abpath_stock_divert_ret(%rip), %r11\n"
"	cmpq	$" __stringify(ENDBR_INSN_SIZE) ", %r11\n"
"	ja	2f\n"
"	pushq	%rdi\n"
"	pushq	%rsi\n"
"	movq	16(%rbp), %rdi\n"
"	call	abpath_stock_gc_entry\n"
"	popq	%rsi\n"
"	popq	%rdi\n"
"	testq	%rax, %rax\n"
"	jz	1f\n"
"	movq	%rax, 8(%rbp)\n"
"1:	leave\n"
	ASM_RET
"2:	pushq	%rax\n"
"	pushq	%rdi\n"
"	pushq	%rsi\n"
"	pushq	%rdx\n"
"	pushq	%rcx\n"
"	pushq	%r8\n"
"	pushq	%r9\n"
"	movq	8(%rbp), %rdi\n"
"	call	abpath_stock_on_entry\n"
"	popq	%r9\n"
"	popq	%r8\n"
"	popq	%rcx\n"
"	popq	%rdx\n"
"	popq	%rsi\n"
"	popq	%rdi\n"
"	popq	%rax\n"
"	leave\n"
	ASM_RET
"	.size	stock_tramp, .-stock_tramp\n"
"	.popsection\n"
);

/*
 * A direct call that does nothing, to learn whether a function takes one
 * (abpath_backend_init()).
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
"	.balign	16\n"
"	.type	stock_nop_tramp, @function\n"
"stock_nop_tramp:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
	ASM_RET
"	.size	stock_nop_tramp, .-stock_nop_tramp\n"
"	.popsection\n"
);

/*
 * Whether @caller's first @len bytes hold a direct call to @callee.  A
 * byte scan, not a disassembly: a false match needs a 0xe8 whose next four
 * bytes happen to reach @callee.  A call may land up to a call-depth
 * thunk's length before @callee (call depth tracking patches it so).
 */
static bool stock_calls(unsigned long caller, unsigned long callee,
			size_t len)
{
	u8 text[256];
	unsigned long to;
	s32 rel;
	size_t i;

	len = min(len, sizeof(text));
	if (copy_from_kernel_nofault(text, (void *)caller, len))
		return false;
	for (i = 0; i + 5 <= len; i++) {
		if (text[i] != 0xe8)
			continue;
		memcpy(&rel, text + i + 1, sizeof(rel));
		to = caller + i + 5 + rel;
		if (to >= callee - 64 && to <= callee)
			return true;
	}
	return false;
}
#else /* CONFIG_ARM64 */
/*
 * A site's direct call returns into its function after the two
 * instructions ftrace patches at its entry (MOV X9, LR; BL), which follow
 * a BTI C where the kernel has BTI (ftrace_call_adjust()).
 */
#define STOCK_SITE_RET		(2 * AARCH64_INSN_SIZE)
#define STOCK_SITE_SLACK	AARCH64_INSN_SIZE
/* How far into update_process_times() its call to the RCU tick is sought. */
#define STOCK_SCAN		512

/*
 * Where the direct call of every site lands, by a BL from the site or,
 * when another ftrace user shares the function or the module is out of
 * a BL's reach, by a BR X17 from ftrace_caller (hence the BTI C), with
 * the caller's return in x9, the return into the function's body in
 * x30, and the function's arguments in x0-x8 (arch/arm64/kernel/
 * entry-ftrace.S).  x9-x17 are free; the function's body expects x30 to
 * hold its caller's return again.
 *
 * As on x86-64: thread_group_cputime() is told first, by that return,
 * and only its two argument registers are saved around
 * abpath_stock_gc_entry(); a diverted call is entered by returning into
 * it in the body's place, with x30 its caller's return, so it returns
 * straight to the caller.  Every other site saves every argument
 * register and is dispatched in C.  Each path makes a frame record for
 * the site and one for itself, as ftrace_caller does, so that a stack
 * trace taken in C sees the function and its caller.
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
"	.balign	16\n"
"	.type	stock_tramp, %function\n"
"stock_tramp:\n"
"	hint	34\n"				/* BTI C */
"	adrp	x10, abpath_stock_divert_ret\n"
"	ldr	x10, [x10, #:lo12:abpath_stock_divert_ret]\n"
"	sub	x10, x30, x10\n"
"	cmp	x10, #" __stringify(STOCK_SITE_SLACK) "\n"
"	b.hi	2f\n"
"	sub	sp, sp, #48\n"
"	stp	x29, x9, [sp, #32]\n"
"	add	x29, sp, #32\n"
"	stp	x29, x30, [sp, #16]\n"
"	add	x29, sp, #16\n"
"	stp	x0, x1, [sp]\n"
"	mov	x0, x9\n"
"	bl	abpath_stock_gc_entry\n"
"	mov	x10, x0\n"
"	ldp	x0, x1, [sp]\n"
"	ldr	x9, [sp, #24]\n"
"	ldp	x29, x30, [sp, #32]\n"
"	add	sp, sp, #48\n"
"	cbz	x10, 1f\n"
"	mov	x9, x10\n"
"1:	ret	x9\n"
"2:	sub	sp, sp, #112\n"
"	stp	x29, x9, [sp, #96]\n"
"	add	x29, sp, #96\n"
"	stp	x29, x30, [sp, #80]\n"
"	add	x29, sp, #80\n"
"	stp	x0, x1, [sp]\n"
"	stp	x2, x3, [sp, #16]\n"
"	stp	x4, x5, [sp, #32]\n"
"	stp	x6, x7, [sp, #48]\n"
"	str	x8, [sp, #64]\n"
"	mov	x0, x30\n"
"	bl	abpath_stock_on_entry\n"
"	ldp	x0, x1, [sp]\n"
"	ldp	x2, x3, [sp, #16]\n"
"	ldp	x4, x5, [sp, #32]\n"
"	ldp	x6, x7, [sp, #48]\n"
"	ldr	x8, [sp, #64]\n"
"	ldr	x9, [sp, #88]\n"
"	ldp	x29, x30, [sp, #96]\n"
"	add	sp, sp, #112\n"
"	ret	x9\n"
"	.size	stock_tramp, .-stock_tramp\n"
"	.popsection\n"
);

/*
 * A direct call that does nothing, to learn whether a function takes one
 * (abpath_backend_init()): ftrace_stub_direct_tramp's three instructions.
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
"	.balign	16\n"
"	.type	stock_nop_tramp, %function\n"
"stock_nop_tramp:\n"
"	hint	34\n"				/* BTI C */
"	mov	x10, x30\n"
"	mov	x30, x9\n"
"	ret	x10\n"
"	.size	stock_nop_tramp, .-stock_nop_tramp\n"
"	.popsection\n"
);

/*
 * Whether @caller's first @len bytes hold a BL to @callee: every
 * instruction is one word, so this is a disassembly of the one kind of
 * instruction sought.
 */
static bool stock_calls(unsigned long caller, unsigned long callee,
			size_t len)
{
	__le32 text[128];
	u32 insn;
	size_t i;
	s32 rel;

	len = min(len, sizeof(text)) / AARCH64_INSN_SIZE;
	if (copy_from_kernel_nofault(text, (void *)caller,
				     len * AARCH64_INSN_SIZE))
		return false;
	for (i = 0; i < len; i++) {
		insn = le32_to_cpu(text[i]);
		if (!aarch64_insn_is_bl(insn))
			continue;
		rel = sign_extend32((insn & 0x03ffffff) << 2, 27);
		if (caller + i * AARCH64_INSN_SIZE + rel == callee)
			return true;
	}
	return false;
}
#endif /* CONFIG_ARM64 */

/* The kernel's own check runs after the handler; here it is unknown. */
static bool stock_timer_check_after(struct task_struct *tsk)
{
	return false;
}

/*
 * run_posix_cpu_timers() entry, the tick's hardirq.  Its own first test
 * comes first, as it does before fastpath_timer_check(); the legacy slow
 * path runs in the handler (never on PREEMPT_RT: stock_check_tick()), so
 * the answer, which the kernel's check gives, is not needed.
 */
static void stock_on_timer_tick(void)
{
	struct task_struct *tsk = current;

	if (tsk->exit_state || tsk->posix_cputimers_work.scheduled)
		return;
	abpath_timer_fastpath_hook(tsk, stock_timer_check_after);
}

/*
 * do_exit() entry: process context, preemptible, interrupts on, no lock
 * held, even when another ftrace user shares do_exit(): ftrace's handlers
 * have returned before its trampoline jumps to the direct one.
 */
static void stock_on_exit(void)
{
	abpath_exit_reparent_hook(current);
}

/* rcu_sched_clock_irq() entry, the tick's hardirq. */
static void stock_on_rcu_tick(void)
{
	if (abpath_timer_softirq_hook())
		abpath_raise_timer_softirq();
}

/*
 * 2.6.27's slow path takes tasklist_lock and siglock in the tick's hard
 * interrupt, and on PREEMPT_RT both sleep.  The hook patch runs it in the
 * CPU timer task work there (the RT variant); this backend has no such
 * site.
 */
static const char *stock_check_tick(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return "PREEMPT_RT: the slow path's locks sleep in the tick; use the hook patch";
	return NULL;
}

/* timer_softirq's site is "right after run_local_timers()" only so. */
static const char *stock_check_rcu_tick(void)
{
	if (!stock_calls(abpath_ksym_addr(update_process_times),
			 abpath_ksym_addr(rcu_sched_clock_irq), STOCK_SCAN))
		return "update_process_times() does not call rcu_sched_clock_irq()";
	return NULL;
}

struct stock_site {
	struct abpath_path *path;
	const char *func;
	unsigned long entry;	/* func's address, set at load */
	void (*handler)(void);	/* NULL for the diverted site */
	const char *(*check)(void);
	const char *site;	/* what <path>/site says */
	struct ftrace_ops probe;	/* stock_probe()'s, used once */
};

/* By path id; a path without a site has no ->path here. */
static struct stock_site stock_sites[ABPATH_NR_PATHS] = {
#define ABPATH_STOCK(name, fn, on_entry, chk, text)			\
	[ABPATH_ID(name)] = {						\
		.path	 = &abpath_##name##_path,			\
		.func	 = #fn,						\
		.handler = on_entry,					\
		.check	 = chk,						\
		.site	 = text,					\
	},
#define ABPATH_STOCK_DIVERT(name, fn, chk, text)			\
	[ABPATH_ID(name)] = {						\
		.path	 = &abpath_##name##_path,			\
		.func	 = #fn,						\
		.check	 = chk,						\
		.site	 = text,					\
	},
#include "paths.h"
};

/* Each site's function, where the resolution (ksym.h) found it. */
static void stock_entries(void)
{
	const unsigned long entry[ABPATH_NR_PATHS] = {
#define ABPATH_STOCK(name, fn, ...)					\
		[ABPATH_ID(name)] = abpath_ksym_addr(fn),
#define ABPATH_STOCK_DIVERT(name, fn, ...)				\
		[ABPATH_ID(name)] = abpath_ksym_addr(fn),
#include "paths.h"
	};
	int i;

	for (i = 0; i < ABPATH_NR_PATHS; i++)
		stock_sites[i].entry = entry[i];
}

/*
 * The diverted site's return into its body, less the STOCK_SITE_SLACK the
 * trampoline allows for.
 */
unsigned long abpath_stock_divert_ret;

/*
 * Every site but the diverted one, from the trampoline: @ret is the return
 * into the function's body.  It runs on a tick or an exit, never on a
 * times(), so the walk costs nothing measurable.
 */
void notrace abpath_stock_on_entry(unsigned long ret)
{
	struct stock_site *s;

	for (s = stock_sites; s < stock_sites + ABPATH_NR_PATHS; s++) {
		if (s->handler &&
		    ret - s->entry - STOCK_SITE_RET <= STOCK_SITE_SLACK) {
			s->handler();
			return;
		}
	}
}

const char *abpath_backend_site(const struct abpath_path *p)
{
	return stock_sites[p->id].site;
}

/* Why a path is unavailable, one per path; see abpath_path::unavailable. */
static char stock_why[ABPATH_NR_PATHS][128];

/*
 * One direct ops holds every site: unregistering an ops waits for RCU
 * Tasks Rude and RCU Tasks, which under load are most of an unload's time
 * (docs/benchmarks.md), so an unload waits once.  A second ops for the
 * retry after a refusal: a refused registration can leave its ops
 * unusable (6.1 keeps ->func set).
 */
static struct ftrace_ops stock_ops[2];
static struct ftrace_ops *stock_live;

/*
 * Takes @s's function into @ops's filter, by address: a filter by name
 * looks up the name of every ftrace site in the kernel, for each site, on
 * every load (docs/benchmarks.md has what that cost).  0, or why not in
 * @why.
 */
static int stock_filter(struct ftrace_ops *ops, struct stock_site *s,
			char *why, size_t len)
{
	int ret;

	ret = ftrace_set_filter_ip(ops, s->entry, 0, 0);
	if (ret)
		scnprintf(why, len, "%s() is not traceable (%d)", s->func, ret);
	return ret;
}

/* Why @s was not attached when its registration returned @err. */
static void stock_refused(struct stock_site *s, int err, char *why,
			  size_t len)
{
	if (err == -EBUSY)
		scnprintf(why, len,
			  "%s() is already modified by another ftrace user, a livepatch perhaps (%d)",
			  s->func, err);
	else if (err == -EPERM)
		scnprintf(why, len,
			  "ftrace is off (sysctl kernel.ftrace_enabled=0)");
	else
		scnprintf(why, len, "cannot attach to %s() (%d)", s->func, err);
}

/*
 * register_ftrace_direct() sets its ops' flags itself, and PERMANENT,
 * which keeps sysctl kernel.ftrace_enabled=0 from turning every legacy
 * path back into optimized behind the user's back, is not among them.
 * It goes on after: only that sysctl reads it, under ftrace_lock, and
 * nothing else writes a registered direct ops' flags.  A write of the
 * sysctl racing the load can still win.  With ftrace already off the
 * sites are registered but left NOPs, so the load is refused.
 */
static int stock_permanent(struct ftrace_ops *ops)
{
	ops->flags |= FTRACE_OPS_FL_PERMANENT;
	if (READ_ONCE(ftrace_enabled))
		return 0;
	WARN_ON_ONCE(abpath_unregister_ftrace_direct(ops,
						     (unsigned long)stock_tramp));
	return -EPERM;
}

/*
 * @ops takes every site still available and is registered; 0 or the
 * registration's error.  A site ftrace cannot trace is unavailable, and
 * the others are not.
 */
static int stock_attach(struct ftrace_ops *ops)
{
	unsigned int sites = 0;
	struct abpath_path *p;
	int ret;

	abpath_for_each_path(p) {
		if (p->unavailable)
			continue;
		if (stock_filter(ops, &stock_sites[p->id], stock_why[p->id],
				 sizeof(stock_why[0])))
			abpath_path_unavailable(p, stock_why[p->id]);
		else
			sites++;
	}
	if (!sites)
		return 0;
	ret = abpath_register_ftrace_direct(ops, (unsigned long)stock_tramp);
	if (!ret)
		ret = stock_permanent(ops);
	if (ret)
		ftrace_free_filter(ops);
	else
		stock_live = ops;
	return ret;
}

/*
 * After the sites were refused together: each tried alone, with a direct
 * call that does nothing, to find the ones another ftrace user holds.
 * Only this load pays an unregistration's waits, one per free site.
 */
static void stock_probe(void)
{
	struct abpath_path *p;
	struct stock_site *s;
	char *why;
	int ret;

	abpath_for_each_path(p) {
		if (p->unavailable)
			continue;
		s = &stock_sites[p->id];
		why = stock_why[p->id];
		if (stock_filter(&s->probe, s, why, sizeof(stock_why[0]))) {
			abpath_path_unavailable(p, why);
			continue;
		}
		ret = abpath_register_ftrace_direct(&s->probe,
						    (unsigned long)stock_nop_tramp);
		if (ret) {
			stock_refused(s, ret, why, sizeof(stock_why[0]));
			abpath_path_unavailable(p, why);
		} else {
			ret = abpath_unregister_ftrace_direct(&s->probe,
							      (unsigned long)stock_nop_tramp);
			WARN_ON_ONCE(ret);
		}
		ftrace_free_filter(&s->probe);
	}
}

/*
 * A path whose site is missing, changed, untraceable or taken is
 * unavailable, and the others are not.  A refusal of them all is retried
 * once without the sites another ftrace user holds.
 */
int abpath_backend_init(void)
{
	unsigned int attached = 0;
	struct abpath_path *p;
	struct stock_site *s;
	const char *bad;
	int ret;

	/* Nothing of vmlinux's before: the resolution said why not. */
	ret = abpath_ksym_init();
	if (ret)
		return ret;
	stock_entries();
	abpath_module_text(THIS_MODULE, &stock_text, &stock_text_size);
	abpath_for_each_path(p) {
		s = &stock_sites[p->id];
		if (!s->path) {
			abpath_path_unavailable(p, "the stock backend has no site for it");
			continue;
		}
		if (!s->handler)
			abpath_stock_divert_ret = s->entry + STOCK_SITE_RET;
		bad = s->check ? s->check() : NULL;
		if (bad)
			abpath_path_unavailable(p, bad);
	}
	ret = stock_attach(&stock_ops[0]);
	if (ret == -EBUSY) {
		stock_probe();
		ret = stock_attach(&stock_ops[1]);
	}
	abpath_for_each_path(p) {
		s = &stock_sites[p->id];
		if (ret && !p->unavailable) {
			stock_refused(s, ret, stock_why[p->id],
				      sizeof(stock_why[0]));
			abpath_path_unavailable(p, stock_why[p->id]);
		}
		attached += !p->unavailable;
	}
	if (!attached) {
		pr_err("no path could be attached to this kernel\n");
		return -ENODEV;
	}
	return 0;
}

/*
 * Unregistering the ops waits for its calls in flight, and then, the ops
 * being a module's, for RCU Tasks Rude and, on a preemptible kernel, RCU
 * Tasks (ftrace_shutdown()), after its sites are gone.  That is also what
 * a call diverted to group_cputime's module function needs, which runs
 * after the trampoline returned and may be preempted there: once the ops
 * is unregistered, no task is left in this module's text.  A kernel that
 * cannot preempt it there needs every CPU to schedule, which RCU Tasks
 * Rude is.  So no wait of its own (docs/design.md, "Unload").
 */
void abpath_backend_exit(void)
{
	if (!stock_live)
		return;
	WARN_ON_ONCE(abpath_unregister_ftrace_direct(stock_live,
						     (unsigned long)stock_tramp));
	ftrace_free_filter(stock_live);
}
