#!/usr/bin/env bats
# Flipping every path's static key, and reloading the module, while every
# hook site is hot on every vCPU. Static keys patch live kernel and module
# text; a site executed mid-patch must never see a half-written
# instruction (this once caught QEMU 7.2's multi-threaded TCG: see
# tests/vm/lib.sh). tests/vm/run fails the run on any splat.

load helper

@test "toggle every path 800 times and reload 20 times under fork/exit, times() and ITIMER_PROF load" {
	load_module
	write_file "$DBG/reset" 1
	pids=()
	( for _ in 1 2 3 4 5 6; do "$WL/forkexit" -i 2000 >/dev/null || exit 1; done ) & pids+=($!)
	( for _ in 1 2 3 4 5 6; do "$WL/pound-times" -c 200000 -n 2 >/dev/null || exit 1; done ) & pids+=($!)
	"$WL/itimer-threads" -n 2 -t 10 --no-check >/dev/null & pids+=($!)

	for _ in $(seq 400); do
		echo legacy >"$SYS/mode"
		echo optimized >"$SYS/mode"
	done
	for p in "${PATHS[@]}"; do
		expect "$(counter "$p" legacy mismatches)" -eq 0 "$p legacy mismatches"
	done
	for _ in $(seq 20); do
		rmmod abpath
		modprobe abpath mode=legacy
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || fail "a workload failed its own checks"
	done
}
