/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For stock.c alone: what its assembly and the kernel's own code give it
 * that no header declares.  Nothing else includes this file.
 */
#ifndef _ABPATH_STOCK_H
#define _ABPATH_STOCK_H

/*
 * In no header; stock_check_rcu_tick() checks a site against it, through
 * a livepatch relocation.
 */
void update_process_times(int user_tick);

/* The sites' trampolines, and what they read and call. */
void stock_tramp(void);
void stock_nop_tramp(void);
extern unsigned long abpath_stock_divert_ret;
unsigned long abpath_stock_gc_entry(unsigned long parent_ip);
void abpath_stock_on_entry(unsigned long ret);

#endif /* _ABPATH_STOCK_H */
