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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file f[FUZZ_HOSTS];
	struct bench_opts o = { .pool = true };
	int n = fuzz_split(data, size, f, FUZZ_HOSTS);

	for (int i = 0; i < n; i++)
		o.from[o.nfrom++] = f[i].name;
	for (int json = 0; json < 2; json++) {
		o.json = json;
		bench_pool(&o);
	}
	for (int i = 0; i < n; i++)
		fuzz_close(&f[i]);
	return 0;
}
