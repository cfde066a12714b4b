// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the module's debugfs text as the CLI parses it: abpath
 * stats (counters.c, as text and -j) and the bench's counter deltas
 * between two reads (modes.c) from the stats file, and abpath_hooks
 * (kernel.c).  The input is the stats file, then after FUZZ_SEP the
 * hooks file, then a second stats file for the deltas; each is written
 * where ABPATH_DEBUGFS points, as the host tests fake the module.
 * Seeds: the stats tests/host/cli-helper.bash fakes (tests/bin/fuzz).
 */
#include "fuzz.h"

#include <jansson.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "counters.h"
#include "output.h"
#include "bench/internal.h"

static char stats[4096], hooks[4096];
static struct ctl_paths paths;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char dir[] = "/tmp/abpath-fuzz-stats.XXXXXX";
	static char debugfs[4096];

	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	if (!mkdtemp(dir))
		abort();
	snprintf(debugfs, sizeof(debugfs), "%s/abpath", dir);
	if (mkdir(debugfs, 0700))
		abort();
	snprintf(stats, sizeof(stats), "%s/stats", debugfs);
	snprintf(hooks, sizeof(hooks), "%s/abpath_hooks", dir);
	setenv("ABPATH_DEBUGFS", debugfs, 1);
	/* No module's sysfs: the paths are the CLI's built-in list. */
	snprintf(debugfs, sizeof(debugfs), "%s/none", dir);
	setenv("ABPATH_SYSFS", debugfs, 1);
	ctl_path_names(&paths);
	return 0;
}

static void put(const char *file, const uint8_t *data, size_t size)
{
	FILE *f = fopen(file, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *part[4] = { data };
	struct counter_set before = { 0 }, after = { 0 };
	struct ctl_hooks h;
	json_t *d;
	int n = 1;

	while (n < 3 && (part[n] = memchr(part[n - 1], FUZZ_SEP,
					  (size_t)(end - part[n - 1]))))
		part[n]++, n++;
	part[n] = end + 1;
	put(stats, part[0], (size_t)(part[1] - 1 - part[0]));
	put(hooks, n > 1 ? part[1] : data, n > 1 ?
	    (size_t)(part[2] - 1 - part[1]) : 0);
	for (int json = 0; json < 2; json++) {
		out_init(json);
		counters_show();
	}
	ctl_read_hooks(&h);
	if (!counters_read(&before)) {
		if (n > 2)
			put(stats, part[2], (size_t)(end - part[2]));
		if (!counters_read(&after)) {
			for (int m = 0; m < 2; m++) {
				d = bench_counter_deltas(&paths,
							 bench_mode_name[m],
							 &before, &after);
				json_decref(d);
			}
		}
	}
	counters_free(&before);
	counters_free(&after);
	return 0;
}
