/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A per-path module parameter (params.c): an array indexed by path id, one
 * value of at most @max a path.
 */
#ifndef _ABPATH_PARAMS_H
#define _ABPATH_PARAMS_H

#include <linux/moduleparam.h>

#include "abpath.h"

struct abpath_param_paths {
	unsigned int *val;
	unsigned int max;
	unsigned long *mask;	/* if set, (1 << val) - 1 too, for the hooks */
};

extern const struct kernel_param_ops abpath_param_paths_ops;

/*
 * How a per-path parameter's description orders its values: Kbuild
 * passes the paths' names, comma-separated, as ABPATH_PATH_ORDER.
 */
#ifndef ABPATH_PATH_ORDER
#error "Kbuild defines ABPATH_PATH_ORDER from module/paths.h"
#endif
#define ABPATH_PARAM_ORDER \
	"in the order " ABPATH_PATH_ORDER ", or one value for all"

#endif /* _ABPATH_PARAMS_H */
