#!/usr/bin/env bats
# group_cputime: the thread-group CPU time stays monotonic and consistent
# across times(), getrusage(), wait4(), /proc and CLOCK_PROCESS_CPUTIME_ID
# in both modes and while the mode flips; legacy samples every thread.

load helper

setup() { counting_setup; }

@test "utime, stime and their sum never decrease" {
	in_each_mode group_cputime "$T/gcputime" monotonic
	in_each_mode group_cputime "$WL/pound-times" -c 100000 -n 4
	in_each_mode group_cputime "$WL/pound-clock" -c 100000 -n 4
}

@test "times() agrees with the sum over /proc/PID/task/*/stat" {
	in_each_mode group_cputime "$T/gcputime" proc
}

@test "getrusage, wait4 rusage and CLOCK_PROCESS_CPUTIME_ID agree" {
	in_each_mode group_cputime "$T/gcputime" rusage
}

@test "legacy samples every thread with task_sched_runtime()" {
	write_file "$SYS/group_cputime/mode" legacy
	"$WL/pound-times" -c 20000 -n 8 >/dev/null
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	calls=$(counter group_cputime legacy calls "$BATS_TEST_TMPDIR/stats")
	walked=$(counter group_cputime legacy threads_walked "$BATS_TEST_TMPDIR/stats")
	expect "$calls" -ge 20000 "group_cputime legacy calls"
	# 8 pounding threads plus the main one; threads that finish early
	# leave the group, so the mean lies between half and all nine.
	[ "$walked" -ge $((calls * 9 / 2)) ] && [ "$walked" -le $((calls * 9)) ] ||
		fail "$walked threads in $calls calls"
	expect "$(counter group_cputime legacy rq_locked "$BATS_TEST_TMPDIR/stats")" -gt 0 "group_cputime legacy rq_locked"
	expect "$(counter group_cputime optimized threads_walked "$BATS_TEST_TMPDIR/stats")" -eq 0 "group_cputime optimized threads_walked"
}

@test "always_lock makes every legacy pass take stats_lock" {
	echo 1 >/sys/module/abpath/parameters/always_lock
	write_file "$SYS/group_cputime/mode" legacy
	"$WL/pound-times" -c 2000 -n 2 >/dev/null
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	echo 0 >/sys/module/abpath/parameters/always_lock
	calls=$(counter group_cputime legacy calls "$BATS_TEST_TMPDIR/stats")
	locked=$(counter group_cputime legacy locked_passes "$BATS_TEST_TMPDIR/stats")
	[ "$locked" -ge 2000 ] && [ "$locked" -ge "$calls" ] || fail "$locked locked passes in $calls calls"
}
