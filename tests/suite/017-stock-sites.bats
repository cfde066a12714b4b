#!/usr/bin/env bats
# The stock backend's ftrace sites beside other ftrace users. ftrace allows
# one IPMODIFY user or one direct trampoline per function: a distribution
# livepatch of thread_group_cputime() (here tests/vm/ipmodify-user/) leaves
# group_cputime optimized-only, says why and changes nothing else; abpath
# holding the function refuses the livepatch instead. A plain tracer shares
# the function with abpath's trampoline, which still diverts legacy calls.
# Every site is one direct ftrace_ops, so a taken site is found by trying
# each alone, and only its path is lost. That ops is permanent: sysctl
# kernel.ftrace_enabled=0 would turn every legacy path back into optimized.

load helper

IPMODIFY_USER=/abpath/ipmodify_user.ko
TAKEN="thread_group_cputime() is already modified by another ftrace user, a livepatch perhaps (-16)"

setup() {
	[ "$BACKEND" = stock ] || skip "the patched backend attaches through the hook patch, not ftrace"
	common_setup
}

teardown() {
	common_teardown
	[ "$BACKEND" = stock ] || return 0
	echo 1 >/proc/sys/kernel/ftrace_enabled
	echo nop >"$TRACING/current_tracer"
	echo >"$TRACING/set_ftrace_filter"
	if [ -d /sys/module/ipmodify_user ]; then
		unload_module
		rmmod ipmodify_user
	fi
	load_module
}

@test "a function another IPMODIFY user holds leaves its path optimized-only, and says why" {
	unload_module
	run -0 insmod "$IPMODIFY_USER"
	dmesg -c >/dev/null
	run -0 modprobe abpath
	run -0 cat "$SYS/group_cputime/site"
	assert_output "unavailable: $TAKEN"
	run -0 dmesg
	assert_output --partial "abpath: group_cputime: legacy unavailable: $TAKEN"

	run ! write_file "$SYS/group_cputime/mode" legacy
	assert_output --partial "Operation not supported"
	# The CLI gives the site's reason, the same from set and from bench.
	run -1 --separate-stderr abpath set group_cputime legacy
	assert_equal "$stderr" "abpath: error: group_cputime cannot run legacy on this kernel: unavailable: $TAKEN"
	run -1 --separate-stderr abpath bench --path group_cputime --runs 2 --warmup 0 -- true
	[[ $stderr == *"abpath: error: group_cputime cannot run legacy on this kernel: unavailable: $TAKEN"* ]] ||
		fail "bench's stderr: $stderr"
	run -0 cat "$SYS/group_cputime/mode"
	assert_output "legacy [optimized]"
	# All or nothing: a global legacy that one path cannot take is refused.
	run ! write_file "$SYS/mode" legacy
	for p in "${PATHS[@]}"; do
		expect "$(active_mode "$p")" = optimized "$p after a refused global legacy"
	done

	# The other paths attach and run their legacy arms.
	for p in timer_fastpath exit_reparent timer_softirq; do
		run -0 cat "$SYS/$p/site"
		refute_output --partial unavailable
		write_file "$SYS/$p/mode" legacy
	done
	"$WL/forkexit" -i 200 >/dev/null
	expect "$(counter exit_reparent legacy calls)" -gt 0 "exit_reparent legacy calls"
	# group_cputime has no site: times() runs the kernel's own code, and
	# nothing of abpath's counts it.
	run -0 "$WL/pound-times" -c 2000 -n 2
	expect "$(counter group_cputime optimized calls)" -eq 0 "group_cputime optimized calls"
	expect "$(counter group_cputime legacy calls)" -eq 0 "group_cputime legacy calls"

	run -0 abpath status
	assert_output --partial "$TAKEN"
}

@test "another user of do_exit() leaves exit_reparent optimized-only, and the other sites attach" {
	unload_module
	run -0 insmod "$IPMODIFY_USER" func=do_exit
	dmesg -c >/dev/null
	run -0 modprobe abpath
	run -0 cat "$SYS/exit_reparent/site"
	assert_output "unavailable: do_exit() is already modified by another ftrace user, a livepatch perhaps (-16)"
	run ! write_file "$SYS/exit_reparent/mode" legacy
	assert_output --partial "Operation not supported"
	run -0 dmesg
	assert_output --partial "abpath: exit_reparent: legacy unavailable: do_exit() is already"
	refute_output --partial "thread_group_cputime() is already"

	for p in group_cputime timer_softirq; do
		run -0 cat "$SYS/$p/site"
		refute_output --partial unavailable
		write_file "$SYS/$p/mode" legacy
	done
	run -0 "$WL/pound-times" -c 2000 -n 2
	expect "$(counter group_cputime legacy calls)" -ge 2000 "group_cputime legacy calls"
	# No site: exits run the kernel's own code, and nothing counts them.
	run -0 "$WL/forkexit" -i 200
	expect "$(counter exit_reparent optimized calls)" -eq 0 "exit_reparent optimized calls"
	sleep 0.1
	expect "$(counter timer_softirq legacy calls)" -gt 0 "timer_softirq legacy calls"
}

@test "sysctl kernel.ftrace_enabled=0 is refused while abpath is loaded; a load with ftrace off is refused and says why" {
	unload_module
	run write_file /proc/sys/kernel/ftrace_enabled 0
	if [ "$status" -ne 0 ]; then
		assert_output --partial "Operation not supported"
		skip "this kernel's kernel.ftrace_enabled no longer turns ftrace off (7.x)"
	fi
	echo 1 >/proc/sys/kernel/ftrace_enabled
	load_module
	write_file "$SYS/group_cputime/mode" legacy
	run ! write_file /proc/sys/kernel/ftrace_enabled 0
	assert_output --partial "Device or resource busy"
	run -0 cat /proc/sys/kernel/ftrace_enabled
	assert_output 1
	run -0 "$WL/pound-times" -c 2000 -n 2
	expect "$(counter group_cputime legacy calls)" -ge 2000 "group_cputime legacy calls"

	unload_module
	echo 0 >/proc/sys/kernel/ftrace_enabled
	dmesg -c >/dev/null
	run ! modprobe abpath
	[ ! -d /sys/module/abpath ]
	run -0 dmesg
	assert_output --partial "abpath: group_cputime: legacy unavailable: ftrace is off (sysctl kernel.ftrace_enabled=0)"
	assert_output --partial "abpath: no path could be attached to this kernel"
}

@test "with abpath loaded, another IPMODIFY user of thread_group_cputime() is refused" {
	run ! insmod "$IPMODIFY_USER"
	assert_output --partial "Device or resource busy"
	[ ! -d /sys/module/ipmodify_user ]
	# ... and the function is free again once abpath is gone.
	unload_module
	run -0 insmod "$IPMODIFY_USER"
	run -0 rmmod ipmodify_user
}

@test "a function tracer shares thread_group_cputime() with the trampoline; both arms still agree" {
	echo thread_group_cputime >"$TRACING/set_ftrace_filter"
	echo function >"$TRACING/current_tracer"
	echo >"$TRACING/trace"
	in_each_mode group_cputime "$WL/pound-times" -c 20000 -n 2
	expect "$(counter group_cputime legacy calls)" -ge 20000 "group_cputime legacy calls"
	run -0 grep -c ' thread_group_cputime' "$TRACING/trace"
	expect "$output" -gt 0 "thread_group_cputime entries in the trace"
}

@test "the kallsyms resolution refuses a module that needs a name vmlinux lacks, and says which" {
	run -0 cat "$SYS/resolution"
	[ "$output" = kallsyms ] || skip "the $output resolution: the kernel's module loader resolves the names, not abpath"
	unload_module
	dmesg -c >/dev/null
	# The same sources built to need one more name (module/ksyms.h).
	# -ENOENT, which kmod's insmod words as a missing symbol.
	run ! insmod /abpath/abpath_unreachable.ko
	assert_output --partial "Unknown symbol in module"
	[ ! -d /sys/module/abpath ]
	run -0 dmesg
	assert_output --partial "abpath: the kallsyms resolution finds abpath_no_such_symbol nowhere in vmlinux"
	# Nothing of it stays behind: the module built as usual loads.
	load_module
	run -0 cat "$SYS/backend"
	assert_output stock
}
