// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer's LLVMFuzzerInitialize() for the harnesses that need nothing
 * set up but their reports silenced (bench/fuzz-from, bench/fuzz-pool,
 * fuzz-config): linked into each of them (Makefile), so that the one
 * definition is written once.  A harness with more to set up defines its
 * own and calls fuzz_quiet_stdout() there (fuzz-stats.c).
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	return 0;
}
