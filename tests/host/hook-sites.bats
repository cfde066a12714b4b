#!/usr/bin/env bats
# With no module registered, every hook site in the patched vmlinux is a
# NOP (a static branch falling through to the stock code).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

VMLINUX=${ABPATH_CACHE:-/var/cache/abpath}/build-6.12-default/vmlinux

@test "every abpath static-branch site in vmlinux is a NOP" {
	run -0 python3 "$BATS_TEST_DIRNAME/../tools/hook-sites.py" "$VMLINUX"
	for key in group_cputime timer_fastpath exit_reparent timer_softirq; do
		assert_line --regexp "^abpath_key_$key "
	done
	assert_line --regexp '^abpath_key_exit_reparent +do_exit\+'
	assert_line --regexp '^abpath_key_timer_fastpath +run_posix_cpu_timers\+'
	# The slow path's site, in handle_posix_cpu_timers(), which the
	# compiler inlines into the task work's function.
	assert_line --regexp '^abpath_key_timer_fastpath +(posix_cpu_timers_work|handle_posix_cpu_timers)\+'
	assert_line --regexp '^abpath_key_timer_softirq +update_process_times\+'
	assert_line --regexp '^abpath_key_group_cputime +thread_group_cputime\+'
	refute_output --partial "NOT A NOP"
}
