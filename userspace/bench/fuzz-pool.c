// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: abpath bench --pool --from FILE --from FILE ..., through
 * bench_pool() as the command line calls it, as text and as -j; the
 * input is cut at FUZZ_SEP into the hosts' files (result.c, pooled.c,
 * pool.c).  Seeds: tests/host/cli-bench-fixtures, joined in pairs.
 */
#include "../fuzz.h"
#include "internal.h"

/* More hosts than this add no path the first ones did not take. */
#define FUZZ_HOSTS	6

static void pool(const char *const *names, int n, bool json)
{
	struct bench_opts o = { .pool = true, .json = json, .nfrom = n };

	memcpy(o.from, names, (size_t)n * sizeof(*names));
	bench_pool(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_with_files(data, size, FUZZ_HOSTS, pool);
	return 0;
}
