// SPDX-License-Identifier: GPL-2.0
/*
 * The paths in the order of module/paths.h, and what each sets up for
 * itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>

#include "abpath.h"

struct abpath_path *const abpath_paths[ABPATH_NR_PATHS] = {
#define ABPATH_PATH(name)						\
	[ABPATH_ID(name)] = &abpath_##name##_path,
#include "paths.h"
};

/* Tears down the paths before @end, the last first. */
static void abpath_paths_exit_before(unsigned int end)
{
	struct abpath_path *p;

	while (end--) {
		p = abpath_paths[end];
		if (p->exit)
			p->exit();
	}
}

/*
 * The backend could not attach @p: it runs the kernel's own code, and
 * refuses legacy.  Before sysfs exists, so that ->unavailable is never
 * seen changing.
 */
void abpath_path_unavailable(struct abpath_path *p, const char *why)
{
	pr_warn("%s: legacy unavailable: %s\n", p->name, why);
	p->unavailable = why;
}

int abpath_paths_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ABPATH_NR_PATHS; i++) {
		if (!abpath_paths[i]->init)
			continue;
		ret = abpath_paths[i]->init();
		if (ret) {
			abpath_paths_exit_before(i);
			return ret;
		}
	}
	return 0;
}

void abpath_paths_exit(void)
{
	abpath_paths_exit_before(ABPATH_NR_PATHS);
}
