// SPDX-License-Identifier: GPL-2.0
/*
 * The patched backend: the kernel's hook patch (CONFIG_ABPATH_HOOKS) calls
 * the paths through static calls at the exact sites of the historical
 * code.  It is the reference the stock backend (stock.c) is compared with.
 * What it attaches where is the ABPATH_PATCHED() lines of paths.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>

#include "abpath.h"
#include "exit_reparent.h"
#include "group_cputime.h"
#include "timer_fastpath.h"
#include "timer_softirq.h"

const char *const abpath_backend_name = "patched";
const char *const abpath_backend_resolution = "exports";

static const struct abpath_ops abpath_ops = {
#define ABPATH_PATCHED_CALL(member, callback)	.member = callback,
#include "paths.h"
};

/* A path's site: the hook patch's id for it, and what <path>/site says. */
struct hooks_site {
	enum abpath_hook hook;
	const char *site;
};

static const struct hooks_site hooks_sites[ABPATH_NR_PATHS] = {
#define ABPATH_PATCHED(name, _hook, _site)				\
	[ABPATH_ID(name)] = { .hook = _hook, .site = _site },
#include "paths.h"
};

const char *abpath_backend_site(const struct abpath_path *p)
{
	return hooks_sites[p->id].site;
}

int abpath_backend_init(void)
{
	struct abpath_path *p;
	int ret;

	ret = abpath_register(&abpath_ops);
	if (ret) {
		pr_err("cannot register with the kernel hooks: %d\n", ret);
		return ret;
	}
	abpath_for_each_path(p) {
		if (!hooks_sites[p->id].site) {
			abpath_path_unavailable(p, "the hook patch has no site for it");
			continue;
		}
		ret = abpath_enable(&abpath_ops, hooks_sites[p->id].hook, true);
		if (ret)
			goto err_unregister;
	}
	return 0;

err_unregister:
	abpath_unregister(&abpath_ops);
	return ret;
}

/* Turns every hook off and waits for callbacks still running. */
void abpath_backend_exit(void)
{
	abpath_unregister(&abpath_ops);
}
