/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the stock backend reaches what it uses of vmlinux and the kernel
 * does not export: its sites' functions, and the helpers and data the
 * paths' code takes (module/klp.symvers).  That code names them as any
 * kernel code does; only this interface, and the build, know which of two
 * resolutions a kernel takes (docs/design.md, "The stock backend"):
 *
 * livepatch (x86-64)
 *	Livepatch relocations, which module/klp-convert writes after the
 *	link and the kernel's module loader resolves at load time, refusing
 *	a name that is missing or ambiguous.  The references stay direct.
 *
 * kallsyms (arm64)
 *	The kernel's own symbol table, searched at load by the function
 *	that livepatch uses, found once through a kprobe (ksym.c); a name
 *	that is missing or ambiguous refuses the load.  A call goes
 *	through a veneer (the linker's --wrap), a datum through a pointer
 *	(Kbuild defines its name so): module/ksyms.h lists both.
 *
 * The backend's resolution (abpath.h) names the one built.
 */
#ifndef _ABPATH_KSYM_H
#define _ABPATH_KSYM_H

/*
 * At load, before anything of vmlinux's is used: 0, or a negative errno
 * with its reason in the kernel log.
 */
int abpath_ksym_init(void);

/* The address of vmlinux function @fn itself, never of a veneer. */
#ifdef ABPATH_KSYM_KALLSYMS
#define abpath_ksym_addr(fn)	(abpath_ksym_##fn)

/*
 * Where each function and address of ksyms.h is (a datum's pointer is
 * declared by the kernel's own declaration of it), and the lookup
 * itself: ksym.c's.
 */
extern unsigned long
#define ABPATH_KSYM_TEXT(name)	abpath_ksym_##name,
#define ABPATH_KSYM_ADDR(name)	abpath_ksym_##name,
#include "ksyms.h"
	abpath_ksym_kallsyms_on_each_match_symbol;
#else
#define abpath_ksym_addr(fn)	((unsigned long)(fn))
#endif

#endif /* _ABPATH_KSYM_H */
