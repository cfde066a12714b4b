#!/usr/bin/env bats
# abpath bench against the real module: well-formed JSON with both modes,
# counters and statistics, the ABBA order in the raw samples, and Ctrl-C
# restoring the path's mode.

load helper

setup() {
	common_setup
}

@test "bench gives well-formed JSON with both modes, counters and statistics" {
	run -0 --separate-stderr abpath bench forkexit --runs 4 -j -- -i 30
	json=$output
	run -0 jq -e '
		.path == "exit_reparent" and .workload == "forkexit"
		and (.summary.legacy.n == 4) and (.summary.optimized.n == 4)
		and (.summary.legacy.gmean_ci95 | length == 2)
		and (.summary.ratio.ci95 | length == 2) and (.summary.ratio.value > 0)
		and (.summary.mann_whitney.p >= 0 and .summary.mann_whitney.p <= 1)
		and ([.samples[] | select(.warmup | not)] | length == 8)
		and ([.samples[] | select(.mode == "legacy" and (.warmup | not))
		      | .counters.exit_reparent.tasks_scanned > 0] | all)
		and ([.samples[] | select(.mode == "optimized")
		      | .counters.exit_reparent.tasks_scanned == 0] | all)
		and ([.samples[] | .counters.exit_reparent.mismatches == 0] | all)' <<<"$json"
	# The module is left as it was.
	expect "$(active_mode exit_reparent)" = optimized "exit_reparent after the bench"
}

@test "the measured runs follow ABBA order" {
	run -0 --separate-stderr abpath bench forkexit --runs 4 -j -- -i 10
	run -0 jq -r '[.samples[] | select(.warmup | not) | .mode[0:1]] | join("")' <<<"$output"
	assert_output loollool
}

@test "Ctrl-C during a bench restores the path's original mode" {
	write_file "$SYS/exit_reparent/mode" legacy
	err=$BATS_TEST_TMPDIR/stderr
	abpath bench forkexit --runs 8 -- -N 100 -i 300 >/dev/null 2>"$err" &
	pid=$!
	# Interrupt the second warm-up run, which has the path flipped; a slow
	# (debug) kernel can take many seconds over the first one.
	for _ in $(seq 1200); do
		grep -q 'run 2 of' "$err" && [ "$(active_mode exit_reparent)" = optimized ] && break
		sleep 0.1
	done
	[ "$(active_mode exit_reparent)" = optimized ] ||
		fail "the bench never flipped the path: $(cat "$err")"
	kill -INT "$pid"
	# Not "run wait": run's subshell is not the bench's parent.
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 130 ] || fail "bench exited with $status: $(cat "$err")"
	expect "$(active_mode exit_reparent)" = legacy "exit_reparent after Ctrl-C"
	# The workload's idle tasks went with it.
	sleep 0.5
	expect "$(pidof forkexit)" = "" "PIDs of forkexit left after Ctrl-C"
}
