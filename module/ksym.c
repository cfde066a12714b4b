// SPDX-License-Identifier: GPL-2.0
/*
 * The kallsyms resolution of the stock backend (module/ksym.h), for a
 * kernel without livepatch, whose loader cannot resolve a livepatch
 * relocation: Debian's arm64 kernels (docs/design.md, "arm64: what
 * Debian's kernels offer the stock backend").  Every name in ksyms.h is
 * looked up once, at load, before anything uses it, with
 * kallsyms_on_each_match_symbol(), the function livepatch resolves its
 * own names with: vmlinux's symbols only, a module's never, and every
 * symbol of the name, so that two static symbols of one name refuse the
 * load instead of one being guessed.  That function is not exported; a
 * kprobe on it, registered and unregistered at once, tells its address.
 *
 * The kprobe is registered disabled: its address is all it is for, and
 * no breakpoint is ever written.  The addresses are written before the
 * module's init returns, and are read-only after it: no lock.
 *
 * With livepatch relocations the kernel's loader has done all of it
 * before the module runs, and the module is marked for it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/sched/task.h>

#include "abpath.h"
#include "ksym.h"

#ifndef ABPATH_KSYM_KALLSYMS

/* The kernel's loader applies the livepatch relocations of such a module. */
MODULE_INFO(livepatch, "Y");

const char *const abpath_backend_resolution = "livepatch";

int abpath_ksym_init(void)
{
	return 0;
}

#else /* ABPATH_KSYM_KALLSYMS */

const char *const abpath_backend_resolution = "kallsyms";

/*
 * The slots, one per name of ksyms.h and one for the lookup, in
 * .data..ro_after_init: the module loader makes them read-only once
 * init has returned.  A datum's is the pointer that its kernel
 * declaration declares once Kbuild has defined its name, which is why
 * every name is made a string here before anything could expand it.
 *
 * The veneers: each stands for its function in every call the module
 * makes, and branches to it with its arguments and return address as
 * they were.  x16, the intra-procedure-call register, is the one a
 * veneer may clobber (AAPCS64), as the module loader's PLTs do, and the
 * one a kernel with BTI lets land on a function's BTI C.
 */
#define KSYM_POP	"	.popsection\n"

asm("	.macro	abpath_ksym_slot name\n"
"	.globl	abpath_ksym_\\name\n"
"	.type	abpath_ksym_\\name, %object\n"
"	.size	abpath_ksym_\\name, 8\n"
"abpath_ksym_\\name:\n"
"	.quad	0\n"
"	.endm\n"
"	.macro	abpath_ksym_veneer name\n"
"	.globl	__wrap_\\name\n"
"	.type	__wrap_\\name, %function\n"
"__wrap_\\name:\n"
"	adrp	x16, abpath_ksym_\\name\n"
"	ldr	x16, [x16, #:lo12:abpath_ksym_\\name]\n"
"	br	x16\n"
"	.size	__wrap_\\name, .-__wrap_\\name\n"
"	.endm\n"
"	.pushsection	.data..ro_after_init, \"aw\"\n"
"	.balign	8\n"
"	abpath_ksym_slot kallsyms_on_each_match_symbol\n"
#define ABPATH_KSYM_TEXT(name)	"	abpath_ksym_slot " #name "\n"
#define ABPATH_KSYM_DATA(name)	"	abpath_ksym_slot " #name "\n"
#define ABPATH_KSYM_ADDR(name)	"	abpath_ksym_slot " #name "\n"
#include "ksyms.h"
KSYM_POP
"	.pushsection	.text, \"ax\", @progbits\n"
"	.balign	4\n"
#define ABPATH_KSYM_TEXT(name)	"	abpath_ksym_veneer " #name "\n"
#include "ksyms.h"
KSYM_POP);

struct ksym {
	const char *name;
	unsigned long *slot;
};

static const struct ksym ksyms[] = {
#define ABPATH_KSYM_TEXT(name)	{ #name, &abpath_ksym_##name },
#define ABPATH_KSYM_DATA(name)	{ #name, (unsigned long *)&abpath_ksym_##name },
#define ABPATH_KSYM_ADDR(name)	{ #name, &abpath_ksym_##name },
#include "ksyms.h"
};

struct ksym_match {
	unsigned long addr;
	unsigned int n;
};

static int ksym_match(void *data, unsigned long addr)
{
	struct ksym_match *m = data;

	m->addr = addr;
	m->n++;
	return 0;
}

int abpath_ksym_init(void)
{
	int (*each_match)(int (*fn)(void *, unsigned long), const char *name,
			  void *data);
	struct kprobe kp = {
		.symbol_name	= "kallsyms_on_each_match_symbol",
		.flags		= KPROBE_FLAG_DISABLED,
	};
	struct ksym_match m;
	const struct ksym *k;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("the kallsyms resolution cannot find %s() through a kprobe (%d)\n",
		       kp.symbol_name, ret);
		return ret;
	}
	abpath_ksym_kallsyms_on_each_match_symbol = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	each_match = (void *)abpath_ksym_kallsyms_on_each_match_symbol;
	for (k = ksyms; k < ksyms + ARRAY_SIZE(ksyms); k++) {
		m = (struct ksym_match) {};
		each_match(ksym_match, k->name, &m);
		if (m.n != 1) {
			pr_err("the kallsyms resolution finds %s %s in vmlinux\n",
			       k->name, m.n ? "more than once" : "nowhere");
			return m.n ? -ENOTUNIQ : -ENOENT;
		}
		*k->slot = m.addr;
	}
	return 0;
}

#endif /* ABPATH_KSYM_KALLSYMS */
