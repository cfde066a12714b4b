#!/usr/bin/env bats
# Every path counts its calls in optimized mode under a workload that
# reaches it, and reset zeroes every counter.

load helper

setup() {
	common_setup
	write_file "$DBG/reset" '1\n'
}

# calls_grow PATH CMD...: CMD must make PATH's optimized call count grow.
calls_grow() {
	local path=$1 before after
	shift
	before=$(counter "$path" optimized calls)
	"$@" >/dev/null
	after=$(counter "$path" optimized calls)
	[ "$after" -gt "$before" ] ||
		fail "$path: calls stayed at $before after: $*"
}

busy_loop() { # ~0.5 s of user time, to be ticked
	local end=$((SECONDS + 1)) i=0
	while [ $SECONDS -lt $end ]; do i=$((i + 1)); done
}

@test "stats lists calls, ns_total, ns_max and mismatches for every path and mode" {
	run -0 cat "$DBG/stats"
	for p in "${PATHS[@]}"; do
		for m in legacy optimized; do
			for c in calls ns_total ns_max mismatches; do
				assert_line --regexp "^$p $m $c [0-9]+$"
			done
		done
	done
	refute_line --regexp '^[^ ]+ [^ ]+ [^ ]+ [^0-9]'
}

@test "group_cputime counts a times() loop" {
	calls_grow group_cputime "$WL/pound-times" -c 2000 -n 1
	[ "$(counter group_cputime optimized calls)" -ge 2000 ]
}

@test "exit_reparent counts a fork/exit loop" {
	calls_grow exit_reparent "$WL/forkexit" -i 200
	[ "$(counter exit_reparent optimized calls)" -ge 200 ]
}

@test "timer_fastpath counts the ticks of an ITIMER_PROF busy thread" {
	calls_grow timer_fastpath "$WL/itimer-threads" -n 1 -t 1 --no-check
}

@test "timer_softirq counts the ticks of a busy loop" {
	calls_grow timer_softirq busy_loop
}

@test "ns_total and the histogram account for every counted call" {
	"$WL/forkexit" -i 100 >/dev/null
	calls=$(counter exit_reparent optimized calls)
	[ "$calls" -ge 100 ]
	[ "$(counter exit_reparent optimized ns_total)" -ge "$(counter exit_reparent optimized ns_max)" ]
	run -0 awk '$1 == "optimized" { n += $4 } END { print n }' "$DBG/hist/exit_reparent"
	# Calls keep coming from the rest of the system between the reads.
	[ "$output" -ge "$calls" ]
}

@test "reset zeroes every counter and histogram" {
	"$WL/pound-times" -c 1000 -n 1 >/dev/null
	"$WL/forkexit" -i 50 >/dev/null
	busy_loop
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/before"
	write_file "$DBG/reset" '1'
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/after"
	cat "$DBG/hist/group_cputime" >"$BATS_TEST_TMPDIR/hist"
	# Only what ran between the reset and the read can be counted: a few
	# fork/exits and times() of this shell, and the tick on both vCPUs.
	[ "$(counter exit_reparent optimized calls "$BATS_TEST_TMPDIR/after")" -lt 10 ]
	[ "$(counter group_cputime optimized calls "$BATS_TEST_TMPDIR/after")" -lt 10 ]
	[ "$(awk '{ n += $4 } END { print n + 0 }' "$BATS_TEST_TMPDIR/hist")" -lt 10 ]
	for p in timer_softirq timer_fastpath; do
		before=$(counter "$p" optimized calls "$BATS_TEST_TMPDIR/before")
		after=$(counter "$p" optimized calls "$BATS_TEST_TMPDIR/after")
		[ "$after" -lt $((before / 4)) ] || fail "$p: $after calls after the reset, $before before"
	done
	[ "$(counter exit_reparent optimized ns_max "$BATS_TEST_TMPDIR/before")" -gt 0 ]
}

@test "reset takes only 1" {
	for w in '0' '2' '11' 'yes' '\n' '1\n\n' ' 1'; do
		run ! write_file "$DBG/reset" "$w"
		assert_output --partial "Invalid argument"
	done
}
