#!/usr/bin/env bats
# Every path counts its calls in optimized mode under a workload that
# reaches it, and reset zeroes every counter.

load helper

setup() {
	common_setup
	write_file "$DBG/reset" '1\n'
}

teardown() {
	common_teardown
	# A test that made debugfs read-only and failed part way.
	mount -o remount,rw /sys/kernel/debug
}

# calls_grow PATH CMD...: CMD must make PATH's optimized call count grow.
calls_grow() {
	local path=$1 before after
	shift
	before=$(counter "$path" optimized calls)
	run_or_say "path $path, mode optimized" "$@"
	after=$(counter "$path" optimized calls)
	expect "$after" -gt "$before" "$path optimized calls after vs before the command"
}

busy_loop() { # ~0.5 s of user time, to be ticked
	local end=$((SECONDS + 1)) i=0
	while [ $SECONDS -lt $end ]; do i=$((i + 1)); done
}

@test "stats lists calls, timed, ns_total, ns_max and mismatches for every path and mode" {
	run -0 cat "$DBG/stats"
	for p in "${PATHS[@]}"; do
		for m in legacy optimized; do
			for c in calls timed ns_total ns_max mismatches; do
				assert_line --regexp "^$p $m $c [0-9]+$"
			done
		done
	done
	refute_line --regexp '^[^ ]+ [^ ]+ [^ ]+ [^0-9]'
}

@test "group_cputime counts a times() loop" {
	calls_grow group_cputime "$WL/pound-times" -c 2000 -n 1
	expect "$(counter group_cputime optimized calls)" -ge 2000 "group_cputime optimized calls"
}

@test "exit_reparent counts a fork/exit loop" {
	calls_grow exit_reparent "$WL/forkexit" -i 200
	expect "$(counter exit_reparent optimized calls)" -ge 200 "exit_reparent optimized calls"
}

@test "timer_fastpath counts the ticks of an ITIMER_PROF busy thread" {
	calls_grow timer_fastpath "$WL/itimer-threads" -n 1 -t 1 --no-check
}

@test "timer_softirq counts the ticks of a busy loop" {
	calls_grow timer_softirq busy_loop
}

@test "exit_reparent times every call; ns_total and the histogram hold them all" {
	"$WL/forkexit" -i 100 >/dev/null
	calls=$(counter exit_reparent optimized calls)
	expect "$calls" -ge 100 "exit_reparent optimized calls"
	# One snapshot: every exit in between (the awk of a second read is one)
	# could set a new ns_max that the first read of ns_total did not hold.
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	expect "$(counter exit_reparent optimized ns_total "$BATS_TEST_TMPDIR/stats")" -ge \
		"$(counter exit_reparent optimized ns_max "$BATS_TEST_TMPDIR/stats")" \
		"exit_reparent optimized ns_total vs ns_max"
	run -0 awk '$1 == "optimized" { n += $4 } END { print n }' "$DBG/hist/exit_reparent"
	# Calls keep coming from the rest of the system between the reads.
	expect "$output" -ge "$calls" "exit_reparent optimized calls in the histogram vs counted before"
	expect "$(counter exit_reparent optimized timed)" -ge "$calls" "exit_reparent optimized timed vs calls counted before"
}

@test "group_cputime times one call in 2^sample_shift, and sample_shift changes that" {
	run -0 cat "$PARAM/sample_shift"
	shift=${output%%,*}
	n=$((1 << shift))
	"$WL/pound-times" -c $((100 * n)) -n 1 >/dev/null
	calls=$(counter group_cputime optimized calls)
	timed=$(counter group_cputime optimized timed)
	expect "$calls" -ge $((100 * n)) "group_cputime optimized calls"
	# Per CPU, every n-th call: at most one extra per CPU from rounding.
	[ "$timed" -ge $((calls / n - 2)) ] && [ "$timed" -le $((calls / n + 2)) ] ||
		fail "$timed of $calls calls timed, one in $n expected"
	run -0 awk '$1 == "optimized" { n += $4 } END { print n }' "$DBG/hist/group_cputime"
	expect "$output" -ge "$timed" "group_cputime optimized calls in the histogram vs timed"
	expect "$output" -le $((timed + 2)) "group_cputime optimized calls in the histogram vs timed + 2"

	write_file "$PARAM/sample_shift" 0
	write_file "$DBG/reset" 1
	"$WL/pound-times" -c 1000 -n 1 >/dev/null
	write_file "$PARAM/sample_shift" "$(per_path 0 group_cputime "$shift")"
	expect "$(counter group_cputime optimized timed)" -ge 1000 "group_cputime optimized timed with sample_shift 0"
}

@test "sample_shift defaults to 10 for group_cputime and 0 for the others, takes 0 to 20 per path, or one value for all, and nothing else" {
	local dflt n=${#PATHS[@]} few many
	dflt=$(per_path 0 group_cputime 10)
	# One value fewer than there are paths, and one more.
	few=$(seq -s, 1 $((n - 1)))
	many=$(seq -s, 1 $((n + 1)))
	run -0 cat "$PARAM/sample_shift"
	assert_output "$dflt"
	for w in 21 -1 x "$(per_path 5 timer_softirq 99)" '\n' 1.5 "$few" "$many" ",$few" ' 1'; do
		run ! write_file "$PARAM/sample_shift" "$w"
		assert_output --partial "Invalid argument"
		run -0 cat "$PARAM/sample_shift"
		assert_output "$dflt"
	done
	write_file "$PARAM/sample_shift" '3\n'
	run -0 cat "$PARAM/sample_shift"
	assert_output "$(per_path 3)"
	# The hooks test a mask derived from the shift: one call in 8 now.
	write_file "$DBG/reset" 1
	"$WL/pound-times" -c 800 -n 1 >/dev/null
	calls=$(counter group_cputime optimized calls)
	timed=$(counter group_cputime optimized timed)
	[ "$timed" -ge $((calls / 8 - 2)) ] && [ "$timed" -le $((calls / 8 + 2)) ] ||
		fail "$timed of $calls calls timed with sample_shift 3, one in 8 expected"
	write_file "$PARAM/sample_shift" "$dflt"
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
	expect "$(counter exit_reparent optimized calls "$BATS_TEST_TMPDIR/after")" -lt 10 "exit_reparent optimized calls after the reset"
	expect "$(counter group_cputime optimized calls "$BATS_TEST_TMPDIR/after")" -lt 10 "group_cputime optimized calls after the reset"
	expect "$(awk '{ n += $4 } END { print n + 0 }' "$BATS_TEST_TMPDIR/hist")" -lt 10 "group_cputime histogram calls after the reset"
	for p in timer_softirq timer_fastpath; do
		before=$(counter "$p" optimized calls "$BATS_TEST_TMPDIR/before")
		after=$(counter "$p" optimized calls "$BATS_TEST_TMPDIR/after")
		[ "$after" -lt $((before / 4)) ] || fail "$p: $after calls after the reset, $before before"
	done
	expect "$(counter exit_reparent optimized ns_max "$BATS_TEST_TMPDIR/before")" -gt 0 "exit_reparent optimized ns_max before the reset"
}

@test "reset takes only 1" {
	for w in '0' '2' '11' 'yes' '\n' '1\n\n' ' 1'; do
		run ! write_file "$DBG/reset" "$w"
		assert_output --partial "Invalid argument"
		run ! write_file "$SYS/reset" "$w"
		assert_output --partial "Invalid argument"
	done
}

# Lockdown (Secure Boot) refuses every debugfs write; a read-only debugfs
# stands in for it here.
@test "sysfs reset and abpath reset work with debugfs read-only" {
	"$WL/forkexit" -i 50 >/dev/null
	mount -o remount,ro /sys/kernel/debug
	run ! write_file "$DBG/reset" '1'
	expect "$(counter exit_reparent optimized calls)" -ge 50 "exit_reparent calls before the reset"
	write_file "$SYS/reset" '1\n'
	expect "$(counter exit_reparent optimized calls)" -lt 10 "exit_reparent calls after the sysfs reset"
	"$WL/forkexit" -i 50 >/dev/null
	run -0 abpath reset
	expect "$(counter exit_reparent optimized calls)" -lt 10 "exit_reparent calls after abpath reset"
	mount -o remount,rw /sys/kernel/debug
}
