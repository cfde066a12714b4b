#!/usr/bin/env bats
# timer_fastpath: POSIX CPU timers keep their semantics in both modes and
# while the mode flips, and legacy walks every thread on every armed tick.

load helper

setup() {
	common_setup
	write_file "$DBG/reset" 1
}

teardown() {
	common_teardown
	stop_toggler
}

@test "SIGPROF arrives at the rate of the CPU time consumed" {
	in_each_mode timer_fastpath "$T/cputimers" itimer prof
}

@test "SIGVTALRM arrives at the rate of the user time consumed" {
	in_each_mode timer_fastpath "$T/cputimers" itimer virt
}

@test "a one-shot CLOCK_PROCESS_CPUTIME_ID timer fires once, never early" {
	in_each_mode timer_fastpath "$T/cputimers" oneshot
}

@test "RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL at the hard one" {
	in_each_mode timer_fastpath "$T/cputimers" rlimit -s 1 -h 2
}

@test "legacy walks all threads under siglock on every armed tick" {
	write_file "$SYS/timer_fastpath/mode" legacy
	"$WL/itimer-threads" -n 16 -t 2 --no-check >/dev/null
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	walks=$(counter timer_fastpath legacy walks "$BATS_TEST_TMPDIR/stats")
	walked=$(counter timer_fastpath legacy threads_walked "$BATS_TEST_TMPDIR/stats")
	armed=$(counter timer_fastpath legacy ticks_armed "$BATS_TEST_TMPDIR/stats")
	[ "$walks" -gt 50 ] || fail "only $walks walks"
	# Every armed tick walks unless another thread is expiring timers.
	[ "$walks" -ge $((armed * 9 / 10)) ] || fail "$walks walks for $armed armed ticks"
	# 16 workers, the main thread: 17 threads per walk.
	[ "$((walked / walks))" -eq 17 ] || fail "$walked threads in $walks walks"
	expect "$(counter timer_fastpath optimized walks "$BATS_TEST_TMPDIR/stats")" -eq 0 "timer_fastpath optimized walks"
	expect "$(counter timer_fastpath legacy mismatches "$BATS_TEST_TMPDIR/stats")" -eq 0 "timer_fastpath legacy mismatches"
}
