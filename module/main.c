// SPDX-License-Identifier: GPL-2.0
/*
 * abpath: switch kernel paths at run time between today's algorithm and a
 * reproduction of the historical one, and count what each costs.
 *
 * A backend attaches the paths to the kernel: the kernel's hook patch
 * (hooks.c) or ftrace on an unpatched kernel (stock.c).  Everything else
 * only decides, per call, which algorithm runs and accounts for it.  This
 * file sets it all up and tears it down, in exactly the reverse order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/string.h>

#include "abpath.h"
#include "debugfs.h"
#include "mode.h"
#include "stats.h"
#include "sysfs.h"
#include "watchdog.h"

static char *mode = "optimized";
module_param(mode, charp, 0);
MODULE_PARM_DESC(mode, "initial mode of every path: legacy or optimized (default)");

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

	ret = abpath_paths_init();
	if (ret)
		goto err_free_stats;

	abpath_watchdog_init();

	ret = abpath_backend_init();
	if (ret)
		goto err_cancel_watchdog;

	/* A path the backend could not attach stays optimized (it said why). */
	abpath_for_each_path(p)
		abpath_set_mode(p, initial);

	ret = abpath_sysfs_init();
	if (ret)
		goto err_reset_modes;

	abpath_debugfs_init();
	pr_info("version %s loaded, %s backend, mode %s\n", ABPATH_VERSION,
		abpath_backend_name, abpath_mode_names[initial]);
	return 0;

err_reset_modes:
	abpath_set_all_modes(ABPATH_OPTIMIZED);
	abpath_backend_exit();
err_cancel_watchdog:
	abpath_watchdog_exit();
	abpath_paths_exit();
err_free_stats:
	abpath_stats_free();
	return ret;
}

static void __exit abpath_exit(void)
{
	abpath_debugfs_exit();
	abpath_sysfs_exit();
	abpath_set_all_modes(ABPATH_OPTIMIZED);
	abpath_backend_exit();
	abpath_watchdog_exit();
	abpath_paths_exit();
	abpath_stats_free();
	pr_info("unloaded\n");
}

module_init(abpath_init);
module_exit(abpath_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run-time A/B switch between legacy and optimized kernel paths");
MODULE_AUTHOR("The abpath developers");
MODULE_VERSION(ABPATH_VERSION);
