/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the stock backend reaches what it uses of vmlinux and the kernel
 * does not export: its sites' functions, and the helpers and data the
 * paths' code takes (module/klp.symvers).  That code names them as any
 * kernel code does; only this interface, and the build, know how
 * (docs/design.md, "The stock backend"):
 *
 * livepatch
 *	Livepatch relocations, which module/klp-convert writes after the
 *	link and the kernel's module loader resolves at load time, refusing
 *	a name that is missing or ambiguous.  The references stay direct.
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
#define abpath_ksym_addr(fn)	((unsigned long)(fn))

#endif /* _ABPATH_KSYM_H */
