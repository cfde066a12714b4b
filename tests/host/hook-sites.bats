#!/usr/bin/env bats
# With no module registered, every hook site in the patched vmlinux is a
# NOP (a static branch falling through to the stock code).

load ../suite/last-run
load ../suite/paths
load kernel-trees

# sites_are_nops VMLINUX: every key's sites are where the patch put them,
# and each is a NOP.
sites_are_nops() {
	run -0 python3 "$BATS_TEST_DIRNAME/../tools/hook-sites.py" "$1"
	for key in $(module_paths); do
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

@test "every abpath static-branch site in the 6.12 vmlinux is a NOP" {
	sites_are_nops "$CACHE/build-6.12-default/vmlinux"
}

@test "every abpath static-branch site in the 6.1 vmlinux is a NOP" {
	objects_only 6.1
	sites_are_nops "$CACHE/build-6.1-default/vmlinux"
}

@test "every abpath static-branch site in the 7.3 vmlinux is a NOP" {
	objects_only 7.3
	sites_are_nops "$CACHE/build-7.3-default/vmlinux"
}

# added FILE PATCH: the lines PATCH adds to FILE.
added() {
	awk -v f="diff --git a/$1 " 'index($0, f) == 1 { on = 1; next }
		/^diff --git / { on = 0 } on && /^\+/ && !/^\+\+\+ /' "$2"
}

@test "the 6.12, 6.1 and 7.3 hook patches add the same abpath_hooks.h and .c" {
	local p=$BATS_TEST_DIRNAME/../../patches
	for f in include/linux/abpath_hooks.h kernel/abpath_hooks.c; do
		a=$(added "$f" "$p/linux-6.12/0001-abpath-add-run-time-A-B-hooks.patch")
		n=$(wc -l <<<"$a")
		[ "$n" -gt 100 ] || fail "the 6.12 patch adds only $n lines to $f"
		for v in 6.1 7.3; do
			b=$(added "$f" "$p/linux-$v/0001-abpath-add-run-time-A-B-hooks.patch")
			run diff <(echo "$a") <(echo "$b")
			assert_success
		done
	done
}
