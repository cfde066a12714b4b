// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: abpath bench --from FILE, and --from FILE --from FILE ...,
 * through bench_from() as the command line calls it: a bench's result
 * (result.c) or a suite's (tables.c), each reported as text and as -j.
 * Files are cut at FUZZ_SEP; more than one is the suites' table across
 * them.  Seeds: tests/host/cli-bench-fixtures, tests/host/fixtures.
 */
#include "../fuzz.h"
#include "internal.h"

static void from(const char *const *names, int n, bool json)
{
	struct bench_opts o = { .json = json, .nfrom = n };

	memcpy(o.from, names, (size_t)n * sizeof(*names));
	bench_from(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_with_files(data, size, BENCH_MAX_ACROSS, from);
	return 0;
}
