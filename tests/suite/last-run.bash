# Shared by the VM suite (helper.bash) and the host suite
# (tests/host/*): the bats libraries every file uses, and a failed test
# shows its last run, whatever assertion failed.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

# The sanitized host suite (ABPATH_SANITIZED=1: make check-host-asan, and
# CI's host stage, against build/asan/): a sanitizer's report ends the
# process (halt_on_error; abort_on_error makes it a SIGABRT, 134, which no
# run -1 takes for the CLI's own failure) and goes to a file of this bats
# run's, which common_teardown fails the test on: a report inside a run
# that expects any status, or in a process whose stderr is discarded, is
# seen all the same. Leaks are left out: a command's memory ends with it.
if [ "${ABPATH_SANITIZED:-0}" = 1 ]; then
	SAN_LOGS=$BATS_RUN_TMPDIR/sanitizer
	mkdir -p "$SAN_LOGS"
	export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=0:log_path=$SAN_LOGS/asan"
	export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$SAN_LOGS/ubsan"
fi

# san_teardown: 1 after printing each sanitizer report that appeared
# since the last test's teardown, which moves them aside.
san_teardown() {
	local f found=0
	[ -n "${SAN_LOGS:-}" ] || return 0
	for f in "$SAN_LOGS"/asan.* "$SAN_LOGS"/ubsan.*; do
		[ -e "$f" ] || continue
		found=1
		echo "sanitizer report ($f):" >&2
		cat "$f" >&2
		mkdir -p "$SAN_LOGS/seen"
		mv "$f" "$SAN_LOGS/seen/"
	done
	return "$found"
}

# The last run's status, command and output, as one string.
last_run() {
	printf '%s %s\n%s' "$status" "$BATS_RUN_COMMAND" "$output"
}

# common_teardown: when the test failed, print its last run's command,
# status and output (and stderr, which bats keeps only for run
# --separate-stderr), which a failed run -0 keeps to itself ("expected
# exit code 0, got 1"); bats shows a failed test's teardown output under
# its "not ok" line. Not if run_or_say said it already, nor if the test
# ran nothing. It fails (1) on a sanitizer's report (san_teardown). Each
# helper's default teardown calls it; a host file with a teardown of its
# own calls it last, so that its own cleanup runs all the same.
common_teardown() {
	local san=0
	san_teardown || san=1
	[ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${BATS_RUN_COMMAND+x}" ] &&
		[ "$(last_run)" != "${RUN_SAID-}" ] || return "$san"
	{
		batslib_print_kv_single 7 command "$BATS_RUN_COMMAND" \
			status "$status"
		batslib_print_kv_single_or_multi 7 output "${output:-(none)}"
		[ -z "${stderr+x}" ] ||
			batslib_print_kv_single_or_multi 7 stderr "${stderr:-(none)}"
	} | batslib_decorate "the last run" >&2
	return "$san"
}

# The default teardown; a file with a teardown of its own calls
# common_teardown too.
teardown() {
	common_teardown
}
