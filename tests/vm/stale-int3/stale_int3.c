// SPDX-License-Identifier: GPL-2.0
/*
 * tcg_int3: resume after a stale INT3 on Debian's stock kernels in
 * abpath's test VM.  Test VM only: tests/vm/run builds it for the
 * stock-* flavours and the VM's init loads it before anything patches
 * text.  It is never installed, packaged or shipped with abpath.
 *
 * QEMU's multi-threaded TCG can run a stale translation of an INT3 that
 * text_poke_bp() on another vCPU has already replaced with the final
 * instruction and synced away: the vCPU traps after poke_int3_handler()
 * stopped claiming the address, and the kernel dies with "Oops: int3" at
 * an address whose bytes are already the new instruction.  No real CPU
 * can do this after the sync IPIs.  abpath's stock backend patches text
 * (ftrace) at every load and unload.  The test kernels resume from such
 * an INT3 with a patch (tests/vm/linux-6.12/0001-x86-traps-resume-*);
 * Debian's signed kernels cannot carry one, so they get this module.
 *
 * A die notifier is enough: exc_int3() tries poke_int3_handler() first,
 * and do_int3() calls notify_die(DIE_INT3) only after kgdb's low-level
 * trap and kprobes have declined the INT3, right where the patch checks.
 * When the byte before regs->ip is no longer an INT3, back up and run
 * what is there now, and log the patch's line, which tests/vm/run
 * counts.  An INT3 still in memory is declined and oopses as before.
 * oops=1 declines every INT3: the stock Oops, as stale_int3_oops=1 on a
 * test kernel.
 *
 * On Debian's 6.1 this module is a spare: its kprobe_int3_handler()
 * (CONFIG_KPROBES=y) still backs up over an INT3 that is gone from
 * memory, silently, before the die notifiers are asked.  6.12's does not.
 */

#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/printk.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

static bool stale_int3_oops;
module_param_named(oops, stale_int3_oops, bool, 0644);
MODULE_PARM_DESC(oops, "Decline stale INT3s too: the stock Oops");

/*
 * Runs in the INT3 exception, NMI-like (irqentry_nmi_enter()).  The byte
 * is read with copy_from_kernel_nofault(): a stale translation may be of
 * text that has since been freed (an unloaded module's), and a fault here
 * would be a worse death than the Oops it replaces.
 */
static notrace int stale_int3_notify(struct notifier_block *nb,
				     unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long addr;
	u8 insn;

	if (val != DIE_INT3 || !regs || user_mode(regs) ||
	    READ_ONCE(stale_int3_oops))
		return NOTIFY_DONE;
	addr = regs->ip - INT3_INSN_SIZE;
	if (copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)) ||
	    insn == INT3_INSN_OPCODE)
		return NOTIFY_DONE;
	regs->ip = addr;
	pr_info("tcg: stale int3 at %pS resumed\n", (void *)addr);
	return NOTIFY_STOP;
}

NOKPROBE_SYMBOL(stale_int3_notify);

/*
 * Last in the die chain (a higher priority runs earlier): a notifier
 * that owns an INT3 (kgdb's breakpoints) must see it first, and only what
 * they all declined is this one's, as with the patch, which checks after
 * notify_die() returns.  A notifier that handles an INT3 it has just
 * removed from memory would otherwise lose it to this one.
 */
static struct notifier_block stale_int3_nb = {
	.notifier_call = stale_int3_notify,
	.priority = INT_MIN,
};

static int __init stale_int3_init(void)
{
	return register_die_notifier(&stale_int3_nb);
}
module_init(stale_int3_init);

static void __exit stale_int3_exit(void)
{
	unregister_die_notifier(&stale_int3_nb);
}
module_exit(stale_int3_exit);

MODULE_DESCRIPTION("abpath test VM only: resume after a stale INT3 under QEMU TCG");
MODULE_LICENSE("GPL");
