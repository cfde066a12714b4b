// SPDX-License-Identifier: GPL-2.0
/*
 * The per-path module parameters (watchdog_us, sample_shift): arrays
 * indexed by path id.  A write gives one value for every path, or one for
 * all of them, and is parsed whole before anything changes: a bad element
 * leaves every path as it was, where module_param_array() would already
 * have stored the elements before it.  The caller holds the module's
 * kernel_param_lock; the hooks read single elements with READ_ONCE().
 */
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "abpath.h"
#include "params.h"

static int abpath_param_paths_set(const char *val,
				  const struct kernel_param *kp)
{
	const struct abpath_param_paths *pp = kp->arg;
	unsigned int v[ABPATH_NR_PATHS];
	unsigned int n = 0, i;
	char *buf, *cur, *tok;
	int ret = 0;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	while ((tok = strsep(&cur, ","))) {
		if (n == ABPATH_NR_PATHS) {
			ret = -EINVAL;
			break;
		}
		/* EINVAL for a value past UINT_MAX too (kstrtouint's ERANGE) */
		if (kstrtouint(tok, 0, &v[n]) || v[n] > pp->max) {
			ret = -EINVAL;
			break;
		}
		n++;
	}
	kfree(buf);
	if (!ret && n != 1 && n != ABPATH_NR_PATHS)
		ret = -EINVAL;
	if (ret)
		return ret;

	for (i = 0; i < ABPATH_NR_PATHS; i++) {
		unsigned int val = v[n == 1 ? 0 : i];

		WRITE_ONCE(pp->val[i], val);
		if (pp->mask)
			WRITE_ONCE(pp->mask[i], (1UL << val) - 1);
	}
	return 0;
}

static int abpath_param_paths_get(char *buffer, const struct kernel_param *kp)
{
	const struct abpath_param_paths *pp = kp->arg;
	int len = 0, i;

	for (i = 0; i < ABPATH_NR_PATHS; i++)
		len += sysfs_emit_at(buffer, len, "%s%u", i ? "," : "",
				     READ_ONCE(pp->val[i]));
	len += sysfs_emit_at(buffer, len, "\n");
	return len;
}

const struct kernel_param_ops abpath_param_paths_ops = {
	.set	= abpath_param_paths_set,
	.get	= abpath_param_paths_get,
};
