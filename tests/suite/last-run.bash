# Shared by the VM suite (helper.bash) and the host suite
# (tests/host/*): the bats libraries every file uses, and a failed test
# shows its last run, whatever assertion failed.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

# The last run's status, command and output, as one string.
last_run() {
	printf '%s %s\n%s' "$status" "$BATS_RUN_COMMAND" "$output"
}

# common_teardown: when the test failed, print its last run's command,
# status and output (and stderr, which bats keeps only for run
# --separate-stderr), which a failed run -0 keeps to itself ("expected
# exit code 0, got 1"); bats shows a failed test's teardown output under
# its "not ok" line. Not if run_or_say said it already, nor if the test
# ran nothing. Each helper's default teardown calls it; a file with a
# teardown of its own calls it first.
common_teardown() {
	[ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${BATS_RUN_COMMAND+x}" ] &&
		[ "$(last_run)" != "${RUN_SAID-}" ] || return 0
	{
		batslib_print_kv_single 7 command "$BATS_RUN_COMMAND" \
			status "$status"
		batslib_print_kv_single_or_multi 7 output "${output:-(none)}"
		[ -z "${stderr+x}" ] ||
			batslib_print_kv_single_or_multi 7 stderr "${stderr:-(none)}"
	} | batslib_decorate "the last run" >&2
}

# The default teardown; a file with a teardown of its own calls
# common_teardown first.
teardown() {
	common_teardown
}
