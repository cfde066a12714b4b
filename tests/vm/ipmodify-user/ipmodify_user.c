// SPDX-License-Identifier: GPL-2.0
/*
 * An ftrace_ops with FTRACE_OPS_FL_IPMODIFY on one function (func=,
 * thread_group_cputime by default) whose handler changes nothing: what a
 * distribution livepatch of that function holds.  ftrace allows one such
 * user, or one direct trampoline, per function, so this and abpath's stock
 * backend exclude each other there: whichever comes second is refused.
 * The flags are livepatch's (kernel/livepatch/patch.c) on a kernel with
 * ftrace args.
 */
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/string.h>

static char func[KSYM_NAME_LEN] = "thread_group_cputime";
module_param_string(func, func, sizeof(func), 0444);
MODULE_PARM_DESC(func, "the function to hold (default thread_group_cputime)");

static void notrace ipmodify_user_handler(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
}

static struct ftrace_ops ipmodify_user_ops = {
	.func	= ipmodify_user_handler,
	.flags	= FTRACE_OPS_FL_IPMODIFY,
};

static int __init ipmodify_user_init(void)
{
	char name[KSYM_NAME_LEN];
	int ret;

	/* ftrace_set_filter() parses its buffer in place. */
	strscpy(name, func, sizeof(name));
	ret = ftrace_set_filter(&ipmodify_user_ops, name, strlen(name), 1);
	if (ret)
		return ret;
	ret = register_ftrace_function(&ipmodify_user_ops);
	if (ret)
		ftrace_free_filter(&ipmodify_user_ops);
	return ret;
}

static void __exit ipmodify_user_exit(void)
{
	unregister_ftrace_function(&ipmodify_user_ops);
	ftrace_free_filter(&ipmodify_user_ops);
}

module_init(ipmodify_user_init);
module_exit(ipmodify_user_exit);
MODULE_DESCRIPTION("abpath tests: another IPMODIFY ftrace user of a function");
MODULE_LICENSE("GPL");
