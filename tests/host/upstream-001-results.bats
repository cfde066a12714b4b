#!/usr/bin/env bats
# How the upstream oracle (tests/upstream/run) reads the timers
# selftests' output, on lines in the exact format 6.12's tests print:
# a miss of upstream's wall-clock bound is reported, not judged, and is
# told apart from an early timer, a wrong count or a failed syscall,
# which still fail. The whole report_selftest() is run on such logs, so
# a legacy run that was only late keeps optimized's pass/skip set.

load ../suite/last-run

bats_require_minimum_version 1.5.0

UP=$BATS_TEST_DIRNAME/../upstream

setup() {
	# shellcheck source=../upstream/results.bash
	. "$UP/results.bash"
}

@test "a message glued to a result: the TAP result is read, a harness' nested line is not" {
	run -0 glued_result '# Large rel latency: 52000000 ns :not ok 1 CLOCK_REALTIME'
	assert_output 'not ok 1 CLOCK_REALTIME'
	run -0 glued_result 'Diff too high: 2569264..not ok 2 ITIMER_PROF'
	assert_output 'not ok 2 ITIMER_PROF'
	run -0 glued_result '#   ok 1 global.attach'
	assert_output '#   ok 1 global.attach'
	run -0 glued_result 'ok 3 ITIMER_REAL'
	assert_output 'ok 3 ITIMER_REAL'
}

@test "late_miss: nsleep-lat's and posix_timers' late misses, with their figures" {
	run -0 late_miss timers/nsleep-lat '# Large rel latency: 52000000 ns :'
	assert_output "52.0 ms late on average (rel), upstream's bound 40 ms"
	run -0 late_miss timers/nsleep-lat '# Large abs latency: 110400000 ns :'
	assert_output "110.4 ms late on average (abs), upstream's bound 40 ms"
	run -0 late_miss timers/posix_timers 'Diff too high: 2569264..'
	assert_output "fired after 2.569 s of wall time for 2 s, upstream's bound 0.5 s"
}

@test "late_miss: an early itimer, another test's failure or no message are judged" {
	# Under 1.5 s of wall time for 2 s of a CPU clock: it fired early.
	run -1 late_miss timers/posix_timers 'Diff too high: 1200000..'
	run -1 late_miss timers/posix_timers ''
	run -1 late_miss timers/nsleep-lat '# clock_nanosleep: Invalid argument (22)'
	run -1 late_miss timers/threadtest 'Diff too high: 2569264..'
	run -1 late_miss ptrace/vmaccess '# Large rel latency: 52000000 ns :'
}

# log_of NAME LINE...: a log of LINEs in $BATS_TEST_TMPDIR/NAME; prints its path.
log_of() {
	local f=$BATS_TEST_TMPDIR/$1
	shift
	printf '%s\n' "$@" >"$f"
	echo "$f"
}

@test "late_only: set-timer-lat and mqueue-lat, late and nothing else" {
	local f
	f=$(log_of st.log 'Setting timers for every 1 seconds' \
		'CLOCK_REALTIME         ABSTIME PERIODIC timer fired early:       0 : [OK]' \
		'CLOCK_REALTIME         ABSTIME PERIODIC max latency:    52000000 ns : [FAILED]' \
		'CLOCK_REALTIME         ABSTIME PERIODIC count:                   1 : [OK]' \
		'CLOCK_MONOTONIC        RELTIME ONE-SHOT max latency:    41000000 ns : [FAILED]')
	run -0 late_only timers/set-timer-lat "$f"
	assert_output "CLOCK_REALTIME ABSTIME PERIODIC 52.0 ms; CLOCK_MONOTONIC RELTIME ONE-SHOT 41.0 ms, upstream's bound 40 ms"
	f=$(log_of mq.log 'Mqueue latency :                          [FAILED]')
	run -0 late_only timers/mqueue-lat "$f"
	assert_output "the average timeout over 140 ms, upstream's bound 40 ms"
}

@test "late_only: an early timer, a wrong count, a failed call or no failure at all are judged" {
	local f
	f=$(log_of early.log \
		'CLOCK_REALTIME         ABSTIME PERIODIC timer fired early:       1 : [FAILED]' \
		'CLOCK_REALTIME         ABSTIME PERIODIC max latency:    52000000 ns : [FAILED]')
	run -1 late_only timers/set-timer-lat "$f"
	f=$(log_of count.log 'CLOCK_TAI              RELTIME ONE-SHOT count:                   2 : [FAILED]')
	run -1 late_only timers/set-timer-lat "$f"
	f=$(log_of create.log 'CLOCK_TAI - timer_create() failed' \
		'CLOCK_TAI              RELTIME ONE-SHOT max latency:    52000000 ns : [FAILED]')
	run -1 late_only timers/set-timer-lat "$f"
	f=$(log_of mqerr.log 'mq_timedreceive: Bad file descriptor' \
		'Mqueue latency :                          [FAILED]')
	run -1 late_only timers/mqueue-lat "$f"
	f=$(log_of ok.log 'Mqueue latency :                          [OK]')
	run -1 late_only timers/mqueue-lat "$f"
}

# report MODE TEST RC LOG-LINES...: runs tests/upstream/run's own
# report_selftest() on a log of LINES that exited RC, with the TAP and
# the mode's set file in $BATS_TEST_TMPDIR.
report() {
	local mode=$1 t=$2 rc=$3
	shift 3
	OUT=$BATS_TEST_TMPDIR/out
	mkdir -p "$OUT/$mode"
	printf '%s\n' "$@" >"$OUT/$mode/${t//\//.}.log"
	printf '%s\n' "$rc" 1.0 none none >"$OUT/$mode/${t//\//.}.log.meta"
	# The runner's functions, not its top level (which needs the VM).
	eval "$(sed -n '/^tap() {/,/^}/p; /^comment() {/p; /^skip_reason() {/,/^}/p;
		/^report_skip() {/,/^}/p; /^report_selftest() {/,/^}/p;
		/^report_not_run() {/,/^}/p; /^MACHINE=/p; /^applies() {/,/^}/p' "$UP/run")"
	# The guest's uname -m, where a test names one.
	MACHINE=${GUEST_MACHINE:-$MACHINE}
	here=$UP n=0 failed=0
	report_selftest "$mode" "$t" 60
	echo "failed=$failed"
}

@test "report_selftest: a late legacy nsleep-lat passes and keeps optimized's set; an early posix_timers fails" {
	run -0 report optimized timers/nsleep-lat 0 'ok 1 CLOCK_REALTIME' 'ok 2 CLOCK_MONOTONIC'
	assert_line 'failed=0'
	local want
	want=$(cat "$BATS_TEST_TMPDIR/out/optimized/set")
	run -0 report legacy timers/nsleep-lat 1 \
		'# Large rel latency: 52000000 ns :not ok 1 CLOCK_REALTIME' 'ok 2 CLOCK_MONOTONIC'
	assert_line 'failed=0'
	assert_line --partial "legacy timers/nsleep-lat: CLOCK_REALTIME (late: 52.0 ms late on average (rel)"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out/legacy/set")" "$want"

	run -0 report legacy timers/posix_timers 1 'ok 1 ITIMER_VIRTUAL' \
		'Diff too high: 1200000..not ok 2 ITIMER_PROF'
	assert_line 'failed=1'
	assert_line --regexp '^not ok [0-9]+ - legacy timers/posix_timers: ITIMER_PROF$'
}

@test "report_selftest: set-timer-lat late only passes with exit 0 in its set; an early timer fails" {
	run -0 report legacy timers/set-timer-lat 1 \
		'CLOCK_REALTIME         ABSTIME PERIODIC timer fired early:       0 : [OK]' \
		'CLOCK_REALTIME         ABSTIME PERIODIC max latency:    52000000 ns : [FAILED]'
	assert_line 'failed=0'
	run -0 grep -F 'timers/set-timer-lat: (exit)' "$BATS_TEST_TMPDIR/out/legacy/set"
	assert_output "$(printf 'timers/set-timer-lat: (exit)\texit 0')"

	run -0 report toggling timers/set-timer-lat 1 \
		'CLOCK_REALTIME         ABSTIME PERIODIC timer fired early:       3 : [FAILED]'
	assert_line 'failed=1'
}

@test "report_selftest: each [OK] check of set-timer-lat and mqueue-lat is a subtest of the set, named without its figure" {
	run -0 report optimized timers/set-timer-lat 0 'Setting timers for every 1 seconds' \
		'CLOCK_REALTIME         ABSTIME PERIODIC timer fired early:       0 : [OK]' \
		'CLOCK_REALTIME         ABSTIME PERIODIC max latency:    1940293 ns : [OK]' \
		'CLOCK_BOOTTIME_ALARM   RELTIME ONE-SHOT count:                   1 : [OK]' \
		'CLOCK_TAI              ABSTIME ONE-SHOT max latency:     594877 ns : [OK]'
	assert_line 'failed=0'
	assert_line --regexp '^ok [0-9]+ - optimized timers/set-timer-lat: CLOCK_REALTIME ABSTIME PERIODIC max latency$'
	assert_line --partial 'optimized timers/set-timer-lat (exit 0, 4 subtests'
	run -0 cat "$BATS_TEST_TMPDIR/out/optimized/set"
	assert_output "$(printf '%s\tpass\n' \
		'timers/set-timer-lat: CLOCK_REALTIME ABSTIME PERIODIC timer fired early' \
		'timers/set-timer-lat: CLOCK_REALTIME ABSTIME PERIODIC max latency' \
		'timers/set-timer-lat: CLOCK_BOOTTIME_ALARM RELTIME ONE-SHOT count' \
		'timers/set-timer-lat: CLOCK_TAI ABSTIME ONE-SHOT max latency'
		printf 'timers/set-timer-lat: (exit)\texit 0')"

	run -0 report optimized timers/mqueue-lat 0 'Mqueue latency :                          [OK]'
	assert_line 'failed=0'
	run -0 grep -F 'timers/mqueue-lat: Mqueue latency' "$BATS_TEST_TMPDIR/out/optimized/set"
	assert_output "$(printf 'timers/mqueue-lat: Mqueue latency\tpass')"
}

@test "report_selftest: other figures, the same set; a late check passes in it, an early one or a failed call fails" {
	local ok=('CLOCK_MONOTONIC        RELTIME PERIODIC timer fired early:       0 : [OK]')
	run -0 report optimized timers/set-timer-lat 0 "${ok[@]}" \
		'CLOCK_MONOTONIC        RELTIME PERIODIC max latency:    1279183 ns : [OK]'
	local want
	want=$(cat "$BATS_TEST_TMPDIR/out/optimized/set")
	run -0 report legacy timers/set-timer-lat 1 "${ok[@]}" \
		'CLOCK_MONOTONIC        RELTIME PERIODIC max latency:   52000000 ns : [FAILED]'
	assert_line 'failed=0'
	assert_line --partial 'legacy timers/set-timer-lat: CLOCK_MONOTONIC RELTIME PERIODIC max latency (late: a host-speed bound'
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out/legacy/set")" "$want"

	run -0 report toggling timers/set-timer-lat 1 \
		'CLOCK_MONOTONIC        RELTIME PERIODIC timer fired early:       2 : [FAILED]' \
		'CLOCK_MONOTONIC        RELTIME PERIODIC max latency:    1279183 ns : [OK]'
	assert_line 'failed=1'
	assert_line --regexp '^not ok [0-9]+ - toggling timers/set-timer-lat: CLOCK_MONOTONIC RELTIME PERIODIC timer fired early$'
	run -0 grep -F 'fired early' "$BATS_TEST_TMPDIR/out/toggling/set"
	assert_output "$(printf 'timers/set-timer-lat: CLOCK_MONOTONIC RELTIME PERIODIC timer fired early\tfail')"

	# A latency miss beside a failed call of the test's own is judged.
	rm -r "$BATS_TEST_TMPDIR/out"
	run -0 report legacy timers/set-timer-lat 1 'CLOCK_TAI - timer_create() failed' \
		'CLOCK_TAI              RELTIME ONE-SHOT max latency:   52000000 ns : [FAILED]'
	assert_line 'failed=1'
	assert_line --regexp '^not ok [0-9]+ - legacy timers/set-timer-lat: CLOCK_TAI RELTIME ONE-SHOT max latency$'
}

@test "skips: a line for one machine holds there only (get_set_sud's known failure on aarch64)" {
	local sud=('not ok 1 global.get_set_sud' '# FAILED: 0 / 1 tests passed.')
	GUEST_MACHINE=aarch64 run -0 report optimized ptrace/get_set_sud 1 "${sud[@]}"
	assert_line 'failed=0'
	assert_line --regexp '^ok [0-9]+ - optimized ptrace/get_set_sud: global.get_set_sud # SKIP known fail: arm64 has no syscall user dispatch'
	# Still in the set as a failure, so legacy must fail it the same way.
	run -0 grep -F 'ptrace/get_set_sud: global.get_set_sud' "$BATS_TEST_TMPDIR/out/optimized/set"
	assert_output "$(printf 'ptrace/get_set_sud: global.get_set_sud\tfail')"

	GUEST_MACHINE=x86_64 run -0 report legacy ptrace/get_set_sud 1 "${sud[@]}"
	assert_line 'failed=1'
	assert_line --regexp '^not ok [0-9]+ - legacy ptrace/get_set_sud: global.get_set_sud$'
}
