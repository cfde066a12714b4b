// SPDX-License-Identifier: GPL-2.0
/*
 * The stock backend's resolution (module/ksym.h): with livepatch
 * relocations the kernel's loader has done all of it before the module
 * runs, and the module is marked for it.
 */
#include <linux/module.h>

#include "abpath.h"
#include "ksym.h"

/* The kernel's loader applies the livepatch relocations of such a module. */
MODULE_INFO(livepatch, "Y");

const char *const abpath_backend_resolution = "livepatch";

int abpath_ksym_init(void)
{
	return 0;
}
