// SPDX-License-Identifier: GPL-2.0
/*
 * The stock backend: the same paths on a distribution's own, unpatched
 * kernel, attached through ftrace at the nearest traceable site to the hook
 * patch's: the ABPATH_STOCK() lines of paths.h, and the handlers below
 * (docs/design.md, "The stock backend", has why each site is where it is).
 *
 * The vmlinux functions and data the paths need and the kernel does not
 * export (module/klp.symvers) are reached through livepatch relocations:
 * module/klp-convert rewrites them after the link, and the kernel's module
 * loader resolves them by name at load time, refusing the load if one is
 * missing.  The calls come out direct; the price is the K taint.
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
#include <asm/ibt.h>
#include <asm/linkage.h>

#include "abpath.h"
#include "stock.h"

#ifndef CONFIG_X86_64
#error "the stock backend's trampoline is x86-64 assembly"
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

/* The kernel's loader applies the livepatch relocations of such a module. */
MODULE_INFO(livepatch, "Y");

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

/*
 * thread_group_cputime()'s direct trampoline, called from its fentry site
 * (or, when another ftrace user shares the function, jumped to from
 * ftrace's, hence the ENDBR) with the return into the function's body on
 * top of the stack and its caller's return above it.  Only the two
 * argument registers are live.  A diverted call is entered as ftrace's own
 * IPMODIFY enters one: by returning into it in the body's place, so calls
 * and returns stay paired, and it returns straight to the caller.  An
 * ftrace_ops with IPMODIFY saves and restores the registers around a
 * handler; this costs a few instructions of its own (docs/benchmarks.md).
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
"	.type	stock_gc_tramp, @function\n"
"stock_gc_tramp:\n"
	ASM_ENDBR
"	pushq	%rbp\n"
"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
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
"	.size	stock_gc_tramp, .-stock_gc_tramp\n"
"	.popsection\n"
);

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
 * do_exit() entry: process context, interrupts on, no lock held.  When
 * another ftrace user shares do_exit(), ftrace calls every handler with
 * preemption off, where PREEMPT_RT's tasklist_lock, which the legacy scan
 * takes, sleeps: the call is then left to the stock code, and said once.
 */
static void stock_on_exit(void)
{
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && !preemptible()) {
		pr_warn_once("exit_reparent: do_exit() is shared with another ftrace user, so its calls run with preemption off, where PREEMPT_RT's tasklist_lock sleeps: left to the stock code\n");
		return;
	}
	abpath_exit_reparent_hook(current);
}

/* rcu_sched_clock_irq() entry, the tick's hardirq. */
static void stock_on_rcu_tick(void)
{
	if (abpath_timer_softirq_hook())
		abpath_raise_timer_softirq();
}

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
	if (!stock_calls((unsigned long)update_process_times,
			 (unsigned long)rcu_sched_clock_irq, 256))
		return "update_process_times() does not call rcu_sched_clock_irq()";
	return NULL;
}

struct stock_site {
	struct abpath_path *path;
	const char *func;
	unsigned long entry;	/* func's address */
	void (*handler)(void);	/* on the shared ops, or */
	void (*direct)(void);	/* a direct trampoline there */
	const char *(*check)(void);
	const char *site;	/* what <path>/site says */
	struct ftrace_ops *ops;	/* stock_entry_ops, or direct_ops */
	struct ftrace_ops direct_ops;
};

/* By path id; a path without a site has no ->path here. */
static struct stock_site stock_sites[ABPATH_NR_PATHS] = {
#define ABPATH_STOCK(name, fn, on_entry, chk, text)			\
	[ABPATH_ID(name)] = {						\
		.path	 = &abpath_##name##_path,			\
		.func	 = #fn,						\
		.entry	 = (unsigned long)(fn),				\
		.handler = on_entry,					\
		.check	 = chk,						\
		.site	 = text,					\
	},
#define ABPATH_STOCK_DIRECT(name, fn, trampoline, chk, text)		\
	[ABPATH_ID(name)] = {						\
		.path	 = &abpath_##name##_path,			\
		.func	 = #fn,						\
		.direct	 = trampoline,					\
		.check	 = chk,						\
		.site	 = text,					\
	},
#include "paths.h"
};

/*
 * Every site but the direct one shares one ftrace_ops, which dispatches
 * by the function it was called from: unregistering an ops waits for RCU
 * Tasks, so one ops for them all makes an unload one wait shorter per
 * site.  ftrace hands the handler its site's address, the function's
 * entry or the instruction after its ENDBR.  It runs on a tick or an
 * exit, never on a times(), so the walk and the indirect call cost
 * nothing measurable.
 */
static void notrace stock_on_entry(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op,
				   struct ftrace_regs *fregs)
{
	struct stock_site *s;

	for (s = stock_sites; s < stock_sites + ABPATH_NR_PATHS; s++) {
		if (s->handler && ip - s->entry <= ENDBR_INSN_SIZE) {
			s->handler();
			return;
		}
	}
}

/*
 * Handlers take their own locks, so FTRACE_OPS_FL_RECURSION stays clear
 * (it would add ftrace's assist function); PERMANENT keeps sysctl
 * kernel.ftrace_enabled=0 from turning every legacy path back into
 * optimized behind the user's back.  register_ftrace_direct() sets a
 * direct ops' flags itself, PERMANENT not among them; the shared ops
 * still refuses ftrace_enabled=0.  A direct call excludes an IPMODIFY
 * user of the function, as IPMODIFY did.
 */
static struct ftrace_ops stock_entry_ops = {
	.func	= stock_on_entry,
	.flags	= FTRACE_OPS_FL_PERMANENT,
};

const char *abpath_backend_site(const struct abpath_path *p)
{
	return stock_sites[p->id].site;
}

/* Why a path is unavailable, one per path; see abpath_path::unavailable. */
static char stock_why[ABPATH_NR_PATHS][128];

/* Takes @s's function into its ops' filter; 0, or why not in @why. */
static int stock_filter(struct stock_site *s, char *why, size_t len)
{
	char func[KSYM_NAME_LEN];
	const char *bad;
	int ret;

	bad = s->check ? s->check() : NULL;
	if (bad) {
		scnprintf(why, len, "%s", bad);
		return -ENOENT;
	}
	/* ftrace_set_filter() parses its buffer in place. */
	strscpy(func, s->func, sizeof(func));
	ret = ftrace_set_filter(s->ops, func, strlen(func), 0);
	if (ret)
		scnprintf(why, len, "%s() is not traceable (%d)", s->func, ret);
	return ret;
}

/* A direct site's own ops; 0, or why not in @why. */
static int stock_register_direct(struct stock_site *s, char *why, size_t len)
{
	int ret;

	ret = abpath_register_ftrace_direct(s->ops, (unsigned long)s->direct);
	if (ret == -EBUSY)
		scnprintf(why, len,
			  "%s() is already modified by another ftrace user, a livepatch perhaps (%d)",
			  s->func, ret);
	else if (ret)
		scnprintf(why, len, "cannot attach to %s() (%d)", s->func, ret);
	if (ret)
		ftrace_free_filter(s->ops);
	return ret;
}

static bool stock_entry_registered;

/*
 * Every site's function goes into its ops' filter, then the direct ops
 * and the shared one are registered.  A path whose site fails either step
 * is unavailable, and the others are not; the shared ops failing fails
 * every site it filtered.
 */
int abpath_backend_init(void)
{
	unsigned int attached = 0, shared = 0;
	struct abpath_path *p;
	struct stock_site *s;
	char *why;
	int ret;

	abpath_module_text(THIS_MODULE, &stock_text, &stock_text_size);
	abpath_for_each_path(p) {
		s = &stock_sites[p->id];
		s->ops = s->direct ? &s->direct_ops : &stock_entry_ops;
		why = stock_why[p->id];
		if (!s->path)
			abpath_path_unavailable(p, "the stock backend has no site for it");
		else if (stock_filter(s, why, sizeof(stock_why[0])))
			abpath_path_unavailable(p, why);
		else if (s->direct &&
			 stock_register_direct(s, why, sizeof(stock_why[0])))
			abpath_path_unavailable(p, why);
		else if (!s->direct)
			shared++;
	}
	ret = shared ? register_ftrace_function(&stock_entry_ops) : 0;
	if (ret)
		ftrace_free_filter(&stock_entry_ops);
	stock_entry_registered = shared && !ret;
	abpath_for_each_path(p) {
		s = &stock_sites[p->id];
		why = stock_why[p->id];
		if (ret && !p->unavailable && !s->direct) {
			scnprintf(why, sizeof(stock_why[0]),
				  "cannot attach to %s() (%d)", s->func, ret);
			abpath_path_unavailable(p, why);
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
 * Unregistering an ops waits for its handlers in flight, and then, the
 * ops being a module's, for RCU Tasks Rude and, on a preemptible kernel,
 * RCU Tasks (ftrace_shutdown()), after its sites are gone.  That is also
 * what a call diverted to group_cputime's module function needs, which
 * runs after the trampoline returned and may be preempted there: once
 * the direct ops is unregistered, no task is left in this module's text.
 * A kernel that cannot preempt it there needs every CPU to schedule,
 * which RCU Tasks Rude is.  So no wait of its own: under load the grace
 * periods are most of an unload's time (docs/benchmarks.md), and it
 * waits for the two ops' already.
 */
void abpath_backend_exit(void)
{
	struct abpath_path *p;
	struct stock_site *s;

	if (stock_entry_registered) {
		WARN_ON_ONCE(unregister_ftrace_function(&stock_entry_ops));
		ftrace_free_filter(&stock_entry_ops);
	}
	abpath_for_each_path(p) {
		s = &stock_sites[p->id];
		if (s->direct && !p->unavailable) {
			WARN_ON_ONCE(abpath_unregister_ftrace_direct(s->ops,
								     (unsigned long)s->direct));
			ftrace_free_filter(s->ops);
		}
	}
}
