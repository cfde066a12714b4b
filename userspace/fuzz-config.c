// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: abpath check --config FILE, and with -j, through
 * preflight_cmd() as the command line calls it: kernel.c reads the file
 * through zlib, plain or gzip alike, and preflight.c judges it.  Seeds:
 * tests/fixtures/configs, plain and gzipped (tests/bin/fuzz).
 */
#include "fuzz.h"
#include "cli.h"
#include "preflight.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cmd check = {
		"check", preflight_cmd, preflight_synopsis, preflight_summary,
		preflight_help, true, NULL,
	};
	struct fuzz_file f;
	char opt[] = "--config", name[] = "check", json[] = "-j";
	char *argv[] = { name, opt, f.name, json, NULL };

	fuzz_file(&f, data, size);
	for (int argc = 3; argc <= 4; argc++) {
		cli_json = false;
		preflight_cmd(&check, argc, argv);
	}
	fuzz_close(&f);
	return 0;
}
