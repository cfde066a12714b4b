#!/usr/bin/env bats
# exit_reparent: orphans land where the kernel promises in both modes and
# while the mode flips, the legacy scan agrees with the children list, and
# it scans about every task in the system on every exit.

load helper

setup() { counting_setup; }

scenarios=(init subreaper thread ptrace pdeath)

# run_scenarios MODE N: every scenario N times; MODE (what the test set
# exit_reparent to) is for a failure's report.
run_scenarios() {
	local s
	for s in "${scenarios[@]}"; do
		run_or_say "path exit_reparent, mode $1" "$T/reparent" "$s" "$2"
	done
}

@test "reparenting is correct in optimized mode" {
	run_scenarios optimized 20
	expect "$(counter exit_reparent optimized calls)" -gt 0 "exit_reparent optimized calls"
}

@test "reparenting is correct in legacy mode, and the scan agrees with the children list" {
	write_file "$SYS/exit_reparent/mode" legacy
	run_scenarios legacy 20
	expect "$(counter exit_reparent legacy calls)" -gt 100 "exit_reparent legacy calls"
	expect "$(counter exit_reparent legacy children_found)" -gt 0 "exit_reparent legacy children_found"
	expect "$(counter exit_reparent legacy mismatches)" -eq 0 "exit_reparent legacy mismatches"
}

@test "reparenting is correct while the mode flips" {
	start_toggler exit_reparent
	# Ten rounds of every scenario, with both arms seen to run (below).
	# Forty cost 222 s on 6.1, where the ptrace scenario beside a busy
	# vCPU takes seconds a round, abpath loaded or not (docs/ci.md).
	run_scenarios toggling 10
	stop_toggler
	expect "$(counter exit_reparent legacy calls)" -gt 0 "exit_reparent legacy calls"
	expect "$(counter exit_reparent optimized calls)" -gt 0 "exit_reparent optimized calls"
	expect "$(counter exit_reparent legacy mismatches)" -eq 0 "exit_reparent legacy mismatches"
}

@test "legacy scans about every task per exit; optimized scans none" {
	# 200 extra sleeping tasks make the task count plain in the ratio.
	"$WL/forkexit" -N 200 -i 100 >/dev/null
	calls=$(counter exit_reparent optimized calls)
	expect "$(counter exit_reparent optimized tasks_scanned)" -eq 0 "exit_reparent optimized tasks_scanned"

	write_file "$DBG/reset" '1'
	write_file "$SYS/exit_reparent/mode" legacy
	"$WL/forkexit" -N 200 -i 100 >/dev/null
	calls=$(counter exit_reparent legacy calls)
	scanned=$(counter exit_reparent legacy tasks_scanned)
	per_exit=$((scanned / calls))
	# Each of the 100 exits of the loop scans at least the 200 idle tasks;
	# the calls also hold the idle tasks' own exits, each scanning fewer as
	# they go, so the mean is no bound. And no exit scans much more than
	# the idle tasks, this shell, bats and the kernel threads.
	tasks=$(ls -d /proc/[0-9]* | wc -l)
	[ "$scanned" -ge $((100 * 200)) ] || fail "only $scanned tasks scanned in $calls exits"
	[ "$per_exit" -le $((tasks + 200 + 50)) ] || fail "$per_exit tasks scanned per exit, $tasks alive"
	expect "$(counter exit_reparent legacy mismatches)" -eq 0 "exit_reparent legacy mismatches"
}
