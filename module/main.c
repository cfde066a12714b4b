// SPDX-License-Identifier: GPL-2.0
/*
 * abpath: switch four kernel paths at run time between today's algorithm
 * and a reproduction of the historical one, and count what each costs.
 *
 * A backend attaches the paths to the kernel: the kernel's hook patch
 * (hooks.c) or ftrace on an unpatched kernel (stock.c).  Everything else
 * only decides, per call, which algorithm runs and accounts for it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "abpath.h"

struct abpath_path *const abpath_paths[] = {
	&abpath_group_cputime_path,
	&abpath_timer_fastpath_path,
	&abpath_exit_reparent_path,
	&abpath_timer_softirq_path,
};

const unsigned int abpath_nr_paths = ARRAY_SIZE(abpath_paths);

const char *const abpath_mode_names[ABPATH_NR_MODES] = {
	[ABPATH_OPTIMIZED]	= "optimized",
	[ABPATH_LEGACY]		= "legacy",
};

static char *mode = "optimized";
module_param(mode, charp, 0);
MODULE_PARM_DESC(mode, "initial mode of every path: legacy or optimized (default)");

/*
 * Per-path parameters (watchdog_us, sample_shift) are arrays indexed by the
 * kernel's hook id.  A write gives one value for every path, or one for
 * all of them, and is parsed whole before anything changes: a bad element
 * leaves every path as it was, where module_param_array() would already
 * have stored the elements before it.  The caller holds the module's
 * kernel_param_lock; the hooks read single elements with READ_ONCE().
 */
static int abpath_param_hooks_set(const char *val,
				  const struct kernel_param *kp)
{
	const struct abpath_param_hooks *ph = kp->arg;
	unsigned int v[ABPATH_NR_HOOKS];
	unsigned int n = 0, i;
	char *buf, *cur, *tok;
	int ret = 0;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	while ((tok = strsep(&cur, ","))) {
		if (n == ABPATH_NR_HOOKS) {
			ret = -EINVAL;
			break;
		}
		ret = kstrtouint(tok, 0, &v[n]);
		if (!ret && v[n] > ph->max)
			ret = -EINVAL;
		if (ret)
			break;
		n++;
	}
	kfree(buf);
	if (!ret && n != 1 && n != ABPATH_NR_HOOKS)
		ret = -EINVAL;
	if (ret)
		return ret;

	for (i = 0; i < ABPATH_NR_HOOKS; i++)
		WRITE_ONCE(ph->val[i], v[n == 1 ? 0 : i]);
	return 0;
}

static int abpath_param_hooks_get(char *buffer, const struct kernel_param *kp)
{
	const struct abpath_param_hooks *ph = kp->arg;
	int len = 0, i;

	for (i = 0; i < ABPATH_NR_HOOKS; i++)
		len += sysfs_emit_at(buffer, len, "%s%u", i ? "," : "",
				     READ_ONCE(ph->val[i]));
	len += sysfs_emit_at(buffer, len, "\n");
	return len;
}

const struct kernel_param_ops abpath_param_hooks_ops = {
	.set	= abpath_param_hooks_set,
	.get	= abpath_param_hooks_get,
};

/* Serializes mode changes, so that writing every path is all or nothing. */
static DEFINE_MUTEX(abpath_mode_lock);

/* A change of mode starts a new epoch; setting the mode it has is a no-op. */
static void abpath_apply_mode(struct abpath_path *p, enum abpath_mode mode)
{
	unsigned long state = p->state;

	lockdep_assert_held(&abpath_mode_lock);
	if (abpath_state_mode(state) == mode)
		return;
	state = ((state & ~ABPATH_STATE_MODE) + ABPATH_STATE_EPOCH) | mode;
	WRITE_ONCE(p->state, state);
}

/* A path whose site the backend could not attach has no legacy arm. */
static int abpath_mode_allowed(const struct abpath_path *p,
			       enum abpath_mode mode)
{
	return mode == ABPATH_LEGACY && p->unavailable ? -EOPNOTSUPP : 0;
}

int abpath_set_mode(struct abpath_path *p, enum abpath_mode mode)
{
	int ret = abpath_mode_allowed(p, mode);

	if (ret)
		return ret;
	mutex_lock(&abpath_mode_lock);
	abpath_apply_mode(p, mode);
	mutex_unlock(&abpath_mode_lock);
	return 0;
}

/* All or nothing: one path that cannot take @mode leaves every path as is. */
int abpath_set_all_modes(enum abpath_mode mode)
{
	struct abpath_path *p;
	int ret;

	abpath_for_each_path(p) {
		ret = abpath_mode_allowed(p, mode);
		if (ret)
			return ret;
	}
	mutex_lock(&abpath_mode_lock);
	abpath_for_each_path(p)
		abpath_apply_mode(p, mode);
	mutex_unlock(&abpath_mode_lock);
	return 0;
}

/*
 * The watchdog's revert: back to optimized only if the path is still in
 * the setting (mode and epoch) that the slow call ran under, never in one
 * chosen after it.  Returns whether it reverted.
 */
bool abpath_revert_mode(struct abpath_path *p, unsigned long state)
{
	bool revert;

	mutex_lock(&abpath_mode_lock);
	revert = p->state == state && abpath_state_mode(state) == ABPATH_LEGACY;
	if (revert)
		abpath_apply_mode(p, ABPATH_OPTIMIZED);
	mutex_unlock(&abpath_mode_lock);
	return revert;
}

static int __init abpath_init(void)
{
	struct abpath_path *p;
	int initial, ret;

	initial = sysfs_match_string(abpath_mode_names, mode);
	if (initial < 0) {
		pr_err("mode=%s: expected legacy or optimized\n", mode);
		return -EINVAL;
	}

	ret = abpath_stats_alloc();
	if (ret)
		return ret;

	ret = abpath_timer_fastpath_init();
	if (ret)
		goto err_free_stats;

	abpath_watchdog_init();

	ret = abpath_backend_init();
	if (ret)
		goto err_free_shares;

	/* A path the backend could not attach stays optimized (it said why). */
	abpath_for_each_path(p)
		abpath_set_mode(p, initial);

	ret = abpath_sysfs_init();
	if (ret)
		goto err_detach;

	abpath_debugfs_init();
	pr_info("version %s loaded, %s backend, mode %s\n", ABPATH_VERSION,
		abpath_backend_name, abpath_mode_names[initial]);
	return 0;

err_detach:
	abpath_backend_exit();
err_free_shares:
	abpath_watchdog_exit();
	abpath_set_all_modes(ABPATH_OPTIMIZED);
	abpath_timer_fastpath_exit();
err_free_stats:
	abpath_stats_free();
	return ret;
}

static void __exit abpath_exit(void)
{
	abpath_debugfs_exit();
	abpath_sysfs_exit();
	abpath_backend_exit();
	abpath_watchdog_exit();
	abpath_set_all_modes(ABPATH_OPTIMIZED);
	abpath_timer_fastpath_exit();
	abpath_stats_free();
	pr_info("unloaded\n");
}

module_init(abpath_init);
module_exit(abpath_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run-time A/B switch between legacy and optimized kernel paths");
MODULE_AUTHOR("The abpath developers");
MODULE_VERSION(ABPATH_VERSION);
