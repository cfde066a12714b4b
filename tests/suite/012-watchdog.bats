#!/usr/bin/env bats
# The watchdog: a legacy call over its path's budget sends that path back
# to optimized from process context, counts it, and logs it once.

load helper

WD=/sys/module/abpath/parameters/watchdog_us

setup() {
	common_setup
	echo 10000 >"$WD"
	write_file "$DBG/reset" 1
	dmesg -c >/dev/null
}

# wait_revert: until exit_reparent is optimized again and the watchdog
# has logged its revert (it switches the mode first, then counts and
# logs), 30 s at most; the test's checks then say what did not happen.
# The revert is a work item queued by the slow call: it has come within
# the first 0.1 s poll after the workload in every run measured, loaded
# host or not (docs/ci.md, "Time-bounded tests"), so 30 s is no bound a
# slower host reaches. How long it took goes to the TAP.
wait_revert() {
	local i
	for ((i = 0; i < 300; i++)); do
		if [ "$(active_mode exit_reparent)" = optimized ] &&
			dmesg | grep -q 'abpath: exit_reparent: a legacy call took'; then
			echo "# the revert was in after $i polls of 0.1 s" >&3
			return 0
		fi
		sleep 0.1
	done
}

# A budget no legacy call reaches on any host: 10 s, where the calls take
# microseconds and a vCPU held back by the host for ten seconds would be
# an RCU stall, which fails the run anyway. A path given it keeps a
# budget of its own, which 10 ms was not: a legacy call can overrun 10 ms
# under TCG when the host holds the vCPU back (helper.bash).
NEVER=10000000

@test "the default budget is 10 ms for every path" {
	unload_module
	load_module
	run -0 cat "$WD"
	assert_output "$(per_path 10000)"
}

@test "a tiny budget reverts exit_reparent alone, counts it and logs it once" {
	# exit_reparent's legacy scan takes far more than 1 us; the others
	# keep a budget of their own that no host reaches, and stay legacy.
	per_path "$NEVER" exit_reparent 1 >"$WD"
	hold_warnings exit_reparent
	write_file "$SYS/mode" legacy
	"$WL/forkexit" -i 50 >/dev/null
	wait_revert
	release_warnings
	expect "$(active_mode exit_reparent)" = optimized "exit_reparent, 30 s after legacy calls over its 1 us budget"
	for p in "${PATHS[@]}"; do
		[ "$p" = exit_reparent ] ||
			expect "$(active_mode "$p")" = legacy "$p, within its $NEVER us budget"
	done
	expect "$(counter exit_reparent legacy watchdog_reverts)" -eq 1 "exit_reparent legacy watchdog_reverts"
	run -0 dmesg
	expect "$(grep -c 'exit_reparent: a legacy call took .* us, over the 1 us budget; switched back to optimized' <<<"$output")" -eq 1 \
		"revert messages in dmesg"
	run -0 abpath status -j
	run -0 jq -e '.paths.exit_reparent.watchdog_reverts == 1' <<<"$output"
}

@test "after a revert, legacy can be chosen again and trips again" {
	per_path "$NEVER" exit_reparent 1 >"$WD"
	for round in 1 2; do
		hold_warnings exit_reparent
		write_file "$SYS/exit_reparent/mode" legacy
		"$WL/forkexit" -i 20 >/dev/null
		wait_revert
		release_warnings
		dmesg -c >/dev/null
		expect "$(counter exit_reparent legacy watchdog_reverts)" -eq "$round" "exit_reparent legacy watchdog_reverts in round $round"
	done
}

@test "budget 0 turns the watchdog off" {
	per_path 0 >"$WD"
	write_file "$SYS/exit_reparent/mode" legacy
	"$WL/forkexit" -i 50 >/dev/null
	sleep 0.3
	expect "$(active_mode exit_reparent)" = legacy "exit_reparent with budget 0"
	expect "$(counter exit_reparent legacy watchdog_reverts)" -eq 0 "exit_reparent legacy watchdog_reverts"
}

@test "a bad watchdog_us write is refused whole and changes no path" {
	# One value fewer than there are paths, and one more.
	local n=${#PATHS[@]} few many
	few=$(seq -s, 1 $((n - 1)))
	many=$(seq -s, 1 $((n + 1)))
	for w in "$few,x" "$few" "$many" -1 4294967296 '\n' ",$few"; do
		run ! write_file "$WD" "$w"
		# 2^32 too: EINVAL, not kstrtouint()'s ERANGE.
		assert_output --partial 'Invalid argument'
		run -0 cat "$WD"
		assert_output "$(per_path 10000)"
	done
	write_file "$WD" 5000
	run -0 cat "$WD"
	assert_output "$(per_path 5000)"
}
