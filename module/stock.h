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

/* thread_group_cputime()'s trampoline, and the C it calls. */
void stock_gc_tramp(void);
unsigned long abpath_stock_gc_entry(unsigned long parent_ip);

#endif /* _ABPATH_STOCK_H */
