// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/abpath/ (root only):
 *
 *   stats         "<path> <mode> <counter> <value>", one counter per line
 *   hist/<path>   "<mode> <lo_ns> <hi_ns> <calls>", non-empty log2 buckets
 *   reset         write 1 to zero every counter and histogram
 *   inject        "<path> <pending>" for each path whose legacy answers
 *                 are cross-checked; write "<path>" or "<path> <n>" to
 *                 make its next n (default 1, 0 cancels) judged legacy
 *                 calls deliberately wrong, which `mismatches` must show
 *
 * debugfs failures are not fatal and are not checked: the module works
 * without these files.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/seq_file.h>

#include "abpath.h"
#include "debugfs.h"
#include "mode.h"
#include "stats.h"

static struct dentry *abpath_dir;

static int stats_show(struct seq_file *m, void *v)
{
	struct abpath_path *p;
	unsigned int c, n;
	int mode;

	abpath_for_each_path(p) {
		n = ABPATH_NR_COMMON + p->nr_counters;
		for (mode = 0; mode < ABPATH_NR_MODES; mode++)
			for (c = 0; c < n; c++)
				seq_printf(m, "%s %s %s %llu\n", p->name,
					   abpath_mode_names[mode],
					   abpath_counter_name(p, c),
					   abpath_stat_read(p, mode, c));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int hist_show(struct seq_file *m, void *v)
{
	struct abpath_path *p = m->private;
	unsigned int b;
	u64 calls, lo, hi;
	int mode;

	for (mode = 0; mode < ABPATH_NR_MODES; mode++) {
		for (b = 0; b < ABPATH_HIST_BUCKETS; b++) {
			calls = abpath_hist_read(p, mode, b);
			if (!calls)
				continue;
			lo = b ? 1ULL << (b - 1) : 0;
			hi = b == ABPATH_HIST_BUCKETS - 1 ? U64_MAX :
							    (1ULL << b) - 1;
			seq_printf(m, "%s %llu %llu %llu\n",
				   abpath_mode_names[mode], lo, hi, calls);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

static ssize_t reset_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	char buf[3] = {};

	/* Exactly "1", with at most one trailing newline, at offset 0. */
	if (*ppos || !count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	if (strnlen(buf, count) != count || !sysfs_streq(buf, "1"))
		return -EINVAL;
	abpath_stats_reset();
	return count;
}

static const struct file_operations reset_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= reset_write,
};

static int inject_show(struct seq_file *m, void *v)
{
	struct abpath_path *p;

	abpath_for_each_path(p)
		if (p->checked)
			seq_printf(m, "%s %d\n", p->name, atomic_read(&p->inject));
	return 0;
}

#define ABPATH_INJECT_MAX	1000000

/* "<path>" or "<path> <n>", at most one trailing newline; else -EINVAL. */
static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct abpath_path *p, *found = NULL;
	unsigned int n = 1;
	char buf[48] = {};
	char *name, *arg;

	if (*ppos || !count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	if (strnlen(buf, count) != count)
		return -EINVAL;
	if (buf[count - 1] == '\n')
		buf[count - 1] = '\0';
	arg = buf;
	name = strsep(&arg, " ");
	/*
	 * Digits only: kstrtouint() would also take a '+' and a newline
	 * after them, so "<path> 5\n\n" would pass.
	 */
	if (arg && (!*arg || arg[strspn(arg, "0123456789")] ||
		    kstrtouint(arg, 10, &n) || n > ABPATH_INJECT_MAX))
		return -EINVAL;
	abpath_for_each_path(p)
		if (p->checked && !strcmp(p->name, name))
			found = p;
	if (!found)
		return -EINVAL;
	atomic_set(&found->inject, n);
	return count;
}

static int inject_open(struct inode *inode, struct file *file)
{
	return single_open(file, inject_show, NULL);
}

static const struct file_operations inject_fops = {
	.owner		= THIS_MODULE,
	.open		= inject_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= inject_write,
};

void abpath_debugfs_init(void)
{
	struct abpath_path *p;
	struct dentry *hist;

	abpath_dir = debugfs_create_dir("abpath", NULL);
	debugfs_create_file("stats", 0400, abpath_dir, NULL, &stats_fops);
	debugfs_create_file("reset", 0200, abpath_dir, NULL, &reset_fops);
	debugfs_create_file("inject", 0600, abpath_dir, NULL, &inject_fops);
	hist = debugfs_create_dir("hist", abpath_dir);
	abpath_for_each_path(p)
		debugfs_create_file(p->name, 0400, hist, p, &hist_fops);
}

void abpath_debugfs_exit(void)
{
	debugfs_remove(abpath_dir);
}
