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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file f[BENCH_MAX_ACROSS];
	struct bench_opts o = { 0 };
	int n = fuzz_split(data, size, f, BENCH_MAX_ACROSS);

	for (int i = 0; i < n; i++)
		o.from[o.nfrom++] = f[i].name;
	for (int json = 0; json < 2; json++) {
		o.json = json;
		bench_from(&o);
	}
	for (int i = 0; i < n; i++)
		fuzz_close(&f[i]);
	return 0;
}
