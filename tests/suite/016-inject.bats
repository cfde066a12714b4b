#!/usr/bin/env bats
# The cross-checks can fail: debugfs inject makes legacy answers wrong on
# purpose (a child missed, the busiest thread dropped from a sum), and
# `mismatches` must count them. Without injection they stay at 0, which
# in_each_mode checks in every path's own file.

load helper

setup() { counting_setup; }

teardown() {
	common_teardown
	[ ! -e "$DBG/inject" ] || for p in group_cputime timer_fastpath exit_reparent; do
		write_file "$DBG/inject" "$p 0"
	done
}

# pending PATH: injections PATH has still to make.
pending() {
	awk -v p="$1" '$1 == p { print $2; f = 1 } END { exit !f }' "$DBG/inject"
}

@test "inject lists the three checked paths, with nothing pending" {
	run -0 cat "$DBG/inject"
	assert_output "group_cputime 0
timer_fastpath 0
exit_reparent 0"
}

@test "a malformed or unchecked inject is refused and changes nothing" {
	write_file "$DBG/inject" "exit_reparent 2"
	for bad in timer_softirq nope "exit_reparent -1" "exit_reparent 1000001" \
		"exit_reparent x" "exit_reparent " "exit_reparent  1" '\n' \
		'exit_reparent\0' "exit_reparent 1 2"; do
		run ! write_file "$DBG/inject" "$bad"
		assert_output --partial "Invalid argument"
	done
	expect "$(pending exit_reparent)" -eq 2 "exit_reparent injections pending after the refused writes"
}

@test "exit_reparent: each injected exit misses a child, and mismatches counts each one" {
	write_file "$SYS/exit_reparent/mode" legacy
	write_file "$DBG/inject" "exit_reparent 3"
	run_or_say "path exit_reparent, mode legacy, 3 injected" "$T/reparent" init 5
	expect "$(pending exit_reparent)" -eq 0 "exit_reparent injections pending"
	expect "$(counter exit_reparent legacy mismatches)" -eq 3 "exit_reparent legacy mismatches"
	expect "$(counter exit_reparent optimized mismatches)" -eq 0 "exit_reparent optimized mismatches"
}

# inject_into PATH N CMD...: start CMD (a workload that runs until killed)
# with PATH legacy; once every thread has run for a while, inject N faults
# and wait until PATH has taken them all (or 60 s), then stop CMD.
inject_into() {
	local path=$1 n=$2 pid i
	shift 2
	write_file "$SYS/$path/mode" legacy
	"$@" >/dev/null 2>&1 &
	pid=$!
	# By then the busiest thread's time is far above any check's slack
	# (two ticks per CPU at most).
	sleep 1.5
	write_file "$DBG/inject" "$path $n"
	# A legacy call takes an injection: calls come every tick, or every
	# times() of the workload, so 60 s is no bound a host reaches.
	for ((i = 0; i < 600; i++)); do
		[ "$(pending "$path")" -gt 0 ] || break
		sleep 0.1
	done
	echo "# $path: the injections were taken within $i polls of 0.1 s" >&3
	kill "$pid"
	wait "$pid" || true
}

@test "timer_fastpath: an injected slow path drops the busiest thread from its sums, and mismatches counts it" {
	inject_into timer_fastpath 3 "$WL/itimer-threads" -n 4 -t 600 --no-check
	expect "$(pending timer_fastpath)" -eq 0 "timer_fastpath injections pending"
	expect "$(counter timer_fastpath legacy mismatches)" -eq 3 "timer_fastpath legacy mismatches"
}

@test "timer_fastpath: an injection planted before the run waits for a slow path where the dropped thread is past the tolerance, and is caught" {
	# The first slow paths see threads with less CPU time than the
	# check's slack; an injection there would be inside the tolerance.
	write_file "$SYS/timer_fastpath/mode" legacy
	write_file "$DBG/inject" "timer_fastpath 1"
	run_or_say "path timer_fastpath, mode legacy, 1 injected" "$WL/itimer-threads" -n 16 -t 2 --no-check
	expect "$(pending timer_fastpath)" -eq 0 "timer_fastpath injections pending"
	expect "$(counter timer_fastpath legacy mismatches)" -eq 1 "timer_fastpath legacy mismatches"
}

@test "group_cputime: an injected sample drops the busiest thread, and mismatches counts it" {
	# The callers get the wrong sample too: pound-times may see its
	# clock go backwards and say so; that is not what is tested here.
	inject_into group_cputime 3 "$WL/pound-times" -n 2 -c 1000000000000
	# A judged call takes an injection; one that an exit made unjudged
	# gives it back, so one may still be pending at the end.
	mism=$(counter group_cputime legacy mismatches)
	expect "$mism" -ge 1 "group_cputime legacy mismatches"
	expect "$((mism + $(pending group_cputime)))" -eq 3 "group_cputime legacy mismatches + injections pending"
	expect "$(counter group_cputime optimized mismatches)" -eq 0 "group_cputime optimized mismatches"
}
