#!/usr/bin/env bats
# timer_fastpath: POSIX CPU timers keep their semantics in both modes and
# while the mode flips, and legacy is the 2.6.27 tick: a thread's share of
# the process timer checked in O(1), and a slow path (sum every thread,
# rebalance the shares) as often as the thread count and interval make it,
# in the tick's hard interrupt (in task work on PREEMPT_RT, and the site
# says so).

load helper

setup() { counting_setup; }

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

# legacy_run ARGS...: itimer-threads ARGS in legacy; leaves a stats
# snapshot and the legacy counters in slow, walked, writes and armed.
legacy_run() {
	write_file "$SYS/timer_fastpath/mode" legacy
	run_or_say "path timer_fastpath, mode legacy" "$WL/itimer-threads" "$@" --no-check
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	slow=$(counter timer_fastpath legacy slow_paths "$BATS_TEST_TMPDIR/stats")
	walked=$(counter timer_fastpath legacy threads_walked "$BATS_TEST_TMPDIR/stats")
	writes=$(counter timer_fastpath legacy rebalance_writes "$BATS_TEST_TMPDIR/stats")
	armed=$(counter timer_fastpath legacy ticks_armed "$BATS_TEST_TMPDIR/stats")
	slow_ns=$(counter timer_fastpath legacy slow_path_ns "$BATS_TEST_TMPDIR/stats")
	slow_irq=$(counter timer_fastpath legacy slow_paths_hardirq "$BATS_TEST_TMPDIR/stats")
	expect "$(counter timer_fastpath legacy mismatches "$BATS_TEST_TMPDIR/stats")" -eq 0 "timer_fastpath legacy mismatches"
	expect "$(counter timer_fastpath optimized slow_paths "$BATS_TEST_TMPDIR/stats")" -eq 0 "timer_fastpath optimized slow_paths"
	# The ticks counted in a wall-clock window are the host's share of
	# them too (docs/ci.md, "Time-bounded tests"): on record.
	echo "# legacy $*: $armed ticks armed, $slow slow paths ($slow_irq in hardirq), $walked threads walked" >&3
}

@test "legacy, 16 threads, 10 ms ITIMER_PROF: a share is one tick, so nearly every armed tick takes the slow path" {
	legacy_run -n 16 -t 2 -I 10000
	expect "$armed" -gt 50 "timer_fastpath legacy ticks_armed"
	# A share below one tick ends at the thread's next tick, as 2.6.27's
	# one-jiffy minimum did: every tick of a thread that ran uses it up,
	# also where the tick charges less than TICK_NSEC (interrupt time
	# taken out, IRQ_TIME_ACCOUNTING).
	expect "$slow" -ge $((armed * 8 / 10)) "timer_fastpath legacy slow_paths (ticks_armed $armed)"
	# Each slow path sums 16 workers and the main thread (fewer while the
	# workers start or leave) ...
	expect "$walked" -le $((slow * 17)) "timer_fastpath legacy threads_walked ($slow slow paths)"
	expect "$walked" -gt $((slow * 16)) "timer_fastpath legacy threads_walked ($slow slow paths)"
	# ... and writes at least current's own new share.
	expect "$writes" -ge "$slow" "timer_fastpath legacy rebalance_writes ($slow slow paths)"
	# Each slow path is timed: two locks and two passes take some ns.
	expect "$slow_ns" -ge "$slow" "timer_fastpath legacy slow_path_ns ($slow slow paths)"
}

@test "legacy, 2 threads, 1 s ITIMER_PROF: a share lasts many ticks, so the slow path is rare" {
	legacy_run -n 2 -t 2 -I 1000000
	expect "$armed" -gt 200 "timer_fastpath legacy ticks_armed"
	# A third of the remaining second per thread: a slow path every
	# ~80 ticks of a thread, plus one for each thread's first tick.
	expect "$slow" -ge 3 "timer_fastpath legacy slow_paths (ticks_armed $armed)"
	expect "$((slow * 10))" -lt "$armed" "10 x timer_fastpath legacy slow_paths (ticks_armed $armed)"
	# Two workers and the main thread, fewer in a slow path while the
	# workers start or leave: with this few slow paths, that shows.
	expect "$walked" -le $((slow * 3)) "timer_fastpath legacy threads_walked ($slow slow paths)"
	expect "$walked" -gt $((slow * 2)) "timer_fastpath legacy threads_walked ($slow slow paths)"
}

@test "legacy's slow path runs where 2.6.27 ran it, in the tick's hard interrupt; on PREEMPT_RT in task work, labelled a variant" {
	legacy_run -n 8 -t 1 -I 10000
	expect "$slow" -gt 20 "timer_fastpath legacy slow_paths"
	run -0 cat "$SYS/timer_fastpath/site"
	if preempt_rt; then
		expect "$slow_irq" -eq 0 "timer_fastpath legacy slow_paths_hardirq ($slow slow paths)"
		assert_output --partial "slow path in CPU timer task work (PREEMPT_RT variant; 2.6.27 ran it in the tick)"
	else
		expect "$slow_irq" -eq "$slow" "timer_fastpath legacy slow_paths_hardirq ($slow slow paths)"
		assert_output --partial "slow path in the tick, hardirq (2.6.27)"
	fi
}
