#!/usr/bin/env bats
# Unloading while every hook is being hit on every vCPU: the hooks must go
# quiet, the storm must finish, and the kernel must stay clean (tests/vm/run
# fails the run on any WARN, BUG, lockdep report or RCU stall).

load helper

@test "rmmod during a fork/exit + times() storm on every vCPU" {
	load_module
	pids=()
	for _ in $(seq "$(nproc)"); do
		"$WL/forkexit" -i 3000 >/dev/null & pids+=($!)
		"$WL/pound-times" -c 300000 -n 2 >/dev/null & pids+=($!)
	done
	sleep 1
	for _ in 1 2 3 4 5; do
		run -0 rmmod abpath
		for p in "${PATHS[@]}"; do
			expect "$(hook_key "$p")" = 0 "$p hook key after rmmod"
		done
		run -0 modprobe abpath
		sleep 0.2
	done
	run -0 rmmod abpath
	for pid in "${pids[@]}"; do
		wait "$pid" || fail "workload $pid failed"
	done
	run -0 modprobe abpath
}
