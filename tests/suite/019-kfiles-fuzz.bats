#!/usr/bin/env bats
# Every file the module makes under hostile writes (tests/progs/kfiles-fuzz.c):
# random bytes at every length up to a page and past it, and mutations
# of the valid words, from several threads, racing valid writers that
# flip every path and move the parameters, beside fork/exit churn and a
# 1 ms ITIMER_PROF. Each write must get the documented answer, no invalid
# one may change a file's state, the counters only grow, and the kernel
# reports nothing (KASAN, lockdep, WARN, BUG: tests/vm/log-verdict).
# 014-hostile-input.bats holds the hand-written cases; this is their fuzz.
#
# Bounded by a count of writes, not a time: ABPATH_KFUZZ_WRITES, by
# default 24000 (CI's 6.12 stage; docs/ci.md has its time). make check-full
# runs the debug kernel's suite with a much larger count (tests/bin/check).

load helper

setup() {
	common_setup
}

@test "kfiles-fuzz: hostile writes to every file, racing valid flips under load" {
	local writes=${ABPATH_KFUZZ_WRITES:-24000} mark
	mark="abpath-tests: kfiles-fuzz $writes writes begin $$"
	echo "<6>$mark" >/dev/kmsg
	run -0 "$T/kfiles-fuzz" -n "$writes" -s "${ABPATH_KFUZZ_SEED:-1}"
	echo "$output" | sed 's/^/# /' >&3
	assert_line --regexp '^kfiles-fuzz: writes [0-9]+: hostile [0-9]+'
	assert_line 'kfiles-fuzz: mismatches 0'
	# The made writes: every hostile index but the few skipped valid words.
	made=$(sed -n 's/.*hostile \([0-9]*\) (refused.*/\1/p' <<<"$output")
	expect "$made" -ge $((writes * 9 / 10)) "hostile writes made of $writes"
	# What the kernel logged during the run, read as tests/vm/run's
	# verdict reads the whole log.
	dmesg | sed -n "/$mark/,\$p" >"$BATS_TEST_TMPDIR/dmesg"
	expect "$(wc -l <"$BATS_TEST_TMPDIR/dmesg")" -ge 1 "kernel log lines from the marker on"
	run -0 /abpath/tests/vm/log-verdict "$BATS_TEST_TMPDIR/dmesg"
	assert_output ''
}
