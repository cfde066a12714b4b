#!/usr/bin/env bats
# Loading, unloading, and the kernel hooks' state around them.

load helper

teardown() {
	common_teardown
	load_module
}

@test "the patched kernel carries the hook patch" {
	[ "$BACKEND" = patched ] || skip "Debian's own kernel: no hook patch, the stock backend attaches through ftrace"
	run -0 sh -c "zcat /proc/config.gz | grep -x CONFIG_ABPATH_HOOKS=y"
	run -0 grep -w abpath_register /proc/kallsyms
	[ -r "$HOOKS" ]
	load_module
	run -0 cat "$SYS/backend"
	assert_output patched
}

@test "on Debian's own kernel the stock backend loads, livepatch-marked where livepatch resolves it" {
	[ "$BACKEND" = stock ] || skip "the patched kernel takes the patched backend"
	run ! grep -w abpath_register /proc/kallsyms
	load_module
	run -0 cat "$SYS/backend"
	assert_output stock
	run -0 cat "$SYS/resolution"
	case $output in
	livepatch)
		run -0 modinfo -F livepatch abpath
		assert_output Y
		# K: the kernel's loader applied the livepatch relocations.
		run -0 cat /sys/module/abpath/taint
		assert_output --partial K
		;;
	kallsyms)
		# The module found its names itself (module/ksym.c): no
		# livepatch marking, so the loader neither checks nor taints.
		run -0 modinfo -F livepatch abpath
		assert_output ""
		run -0 cat /sys/module/abpath/taint
		refute_output --partial K
		;;
	*) fail "the stock backend's resolution is '$output', neither livepatch nor kallsyms" ;;
	esac
	for p in "${PATHS[@]}"; do
		run -0 cat "$SYS/$p/site"
		refute_output --partial unavailable
	done
}

@test "modprobe registers the module and turns every hook on" {
	unload_module
	for p in registered "${PATHS[@]}"; do
		expect "$(hook_key "$p")" = 0 "$p hook before modprobe"
	done

	run -0 modprobe abpath
	for p in registered "${PATHS[@]}"; do
		expect "$(hook_key "$p")" = 1 "$p hook after modprobe"
	done
	run -0 cat "$SYS/version"
	assert_output "$(cat /abpath/VERSION)"
}

@test "rmmod disables every hook key and removes the interface" {
	load_module
	run -0 rmmod abpath
	for p in "${PATHS[@]}"; do
		expect "$(hook_key "$p")" = 0 "$p hook key after rmmod"
	done
	expect "$(hook_key registered)" = 0 "registered hook key after rmmod"
	[ ! -e "$SYS" ]
	[ ! -e "$DBG" ]
	[ ! -e /sys/module/abpath ]
}

@test "mode=optimized is the default and can be given explicitly" {
	unload_module
	run -0 modprobe abpath mode=optimized
	run -0 cat "$SYS/mode"
	assert_output optimized
}

@test "a bad mode= parameter refuses to load and says why" {
	unload_module
	run ! modprobe abpath mode=fast
	[ ! -e /sys/module/abpath ]
	run -0 dmesg
	assert_output --partial "abpath: mode=fast: expected legacy or optimized"
}

@test "mode=legacy loads with every path in legacy" {
	unload_module
	run -0 modprobe abpath mode=legacy
	run -0 cat "$SYS/mode"
	assert_output legacy
	for p in "${PATHS[@]}"; do
		run -0 cat "$SYS/$p/mode"
		assert_output "[legacy] optimized"
	done
	run -0 rmmod abpath
}
