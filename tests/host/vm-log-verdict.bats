#!/usr/bin/env bats
# The kernel log half of a VM run's verdict (tests/vm/log-verdict, which
# tests/vm/run applies to the guest's console and kernel log), on logs
# made here: a bench's burst of short runs whose legacy runs collapse
# passes, and a real problem in the same burst still fails the run.

load ../suite/last-run

VERDICT=$BATS_TEST_DIRNAME/../vm/log-verdict

# secs MS: MS milliseconds as the kernel's clock prints them, in s.
secs() {
	printf '%d.%06d' $(($1 / 1000)) $(($1 % 1000 * 1000))
}

# at MS TEXT: one kernel log line at MS milliseconds since boot.
at() {
	printf '[%12s] %s\n' "$(secs "$1")" "$2"
}

# burst N: the console of a bench of N runs 100 ms apart, ABBA, well
# within /dev/kmsg's five seconds: each legacy run has a collapse's RCU
# stall (no CPU stalled) and the span marker the bench writes for it.
burst() {
	local i t mode
	echo 'abpath-vm: 6.12.57, 2 CPUs, 2 in cpuinfo'
	for ((i = 1; i <= $1; i++)); do
		t=$((10000 + 100 * i))
		case $((i % 4)) in 1 | 0) mode=legacy ;; *) mode=optimized ;; esac
		at $t "abpath: bench: run $i of $1 ($mode) begins"
		if [ $mode = legacy ]; then
			at $((t + 10)) 'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
			at $((t + 11)) 'rcu: All QSes seen, last rcu_preempt kthread activity 5248'
			at $((t + 12)) 'Call Trace:'
			at $((t + 13)) ' <TASK>'
		fi
		at $((t + 50)) "abpath: bench: run $i of $1 ($mode) ends"
		[ $mode = optimized ] ||
			at $((t + 51)) "abpath: bench: collapse reports $(secs $((t + 10)))-$(secs $((t + 12))): 1 RCU stall, no CPU stalled, in run $i of $1 ($mode)"
	done
	echo 'ok 1 the bench'
}

@test "a burst of short runs whose legacy runs collapse: every report lies in a span, and the run passes" {
	burst 16 >"$BATS_TEST_TMPDIR/console"
	run -0 grep -c 'collapse reports' "$BATS_TEST_TMPDIR/console"
	assert_output 8
	run -0 "$VERDICT" --excused "$BATS_TEST_TMPDIR/excused" "$BATS_TEST_TMPDIR/console"
	assert_output ""
	# The stall's head and its Call Trace, in each of the 8 legacy runs.
	run -0 grep -c 'detected stalls\|Call Trace:' "$BATS_TEST_TMPDIR/excused"
	assert_output 16
}

@test "a WARN in the same burst fails the run, and is the line it names" {
	burst 16 >"$BATS_TEST_TMPDIR/console"
	# Between runs 5 and 6, outside every span.
	sed -i '/run 5 of 16 (legacy) ends/a [   10.570000] WARNING: CPU: 1 PID: 77 at kernel/time/posix-cpu-timers.c:1300 run_posix_cpu_timers+0x1/0x2' \
		"$BATS_TEST_TMPDIR/console"
	run -1 "$VERDICT" --excused "$BATS_TEST_TMPDIR/excused" "$BATS_TEST_TMPDIR/console"
	assert_output "$BATS_TEST_TMPDIR/console:[   10.570000] WARNING: CPU: 1 PID: 77 at kernel/time/posix-cpu-timers.c:1300 run_posix_cpu_timers+0x1/0x2"
	run -0 grep -c 'detected stalls\|Call Trace:' "$BATS_TEST_TMPDIR/excused"
	assert_output 16
}

@test "a collapse whose span marker is missing fails the run on its reports" {
	burst 16 >"$BATS_TEST_TMPDIR/console"
	sed -i '/collapse reports .* in run 8 of 16/d' "$BATS_TEST_TMPDIR/console"
	run -1 "$VERDICT" "$BATS_TEST_TMPDIR/console"
	assert_line --index 0 --partial '[   10.810000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
	assert_line --index 1 --partial '[   10.812000] Call Trace:'
	[ "${#lines[@]}" -eq 2 ]
}

@test "a user program's own fault and a report the tests planted are not the kernel's problems" {
	{
		at 5000 'traps: prog[123] general protection fault ip:4011d6 sp:7ffd error:0 in prog[401000+1000]'
		at 5100 'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks: (planted by the abpath tests)'
	} >"$BATS_TEST_TMPDIR/console"
	run -0 "$VERDICT" "$BATS_TEST_TMPDIR/console"
	assert_output ""
	at 5200 'Oops: general protection fault, probably for non-canonical address 0xdead: 0000 [#1] PREEMPT SMP' >>"$BATS_TEST_TMPDIR/console"
	run -1 "$VERDICT" "$BATS_TEST_TMPDIR/console"
	assert_output --partial 'Oops: general protection fault'
}

@test "the console and the kernel log are both read, each line named by its file" {
	burst 4 >"$BATS_TEST_TMPDIR/console"
	at 20000 'BUG: kernel NULL pointer dereference, address: 0000000000000008' >"$BATS_TEST_TMPDIR/dmesg"
	run -1 "$VERDICT" "$BATS_TEST_TMPDIR/console" "$BATS_TEST_TMPDIR/dmesg"
	assert_output "$BATS_TEST_TMPDIR/dmesg:[   20.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008"
	run -2 "$VERDICT"
}
