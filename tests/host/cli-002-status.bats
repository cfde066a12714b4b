#!/usr/bin/env bats
# abpath status: module state, kernel hooks and modes, in text and JSON.

load cli-helper

setup() {
	cli_setup
	# libkmod reads the real /sys/module; the host must not have abpath.
	[[ ! -e /sys/module/abpath ]] || skip "module abpath is loaded on this host"
}

@test "status without the module says so and exits 1" {
	fake_kernel 0
	run -1 --separate-stderr "$ABPATH" status
	assert_line --regexp '^  loaded: +no$'
	[[ $stderr == *"abpath: error: module abpath is not loaded"* ]]
	[[ $stderr == *"abpath load"* && $stderr == *"modprobe abpath"* ]]
}

@test "status -j without the module parses and says loaded: false" {
	fake_kernel 0
	run -1 --separate-stderr "$ABPATH" status -j
	run -0 jq -e --arg r "$(uname -r)" --arg v "$(uname -v)" '
		.kernel.release == $r and .kernel.version == $v
		and .module.loaded == false and .module.version == null
		and .kernel.hooks == true and .kernel.registration_api == true
		and .kernel.hooks_registered == false and .mode == null' <<<"$output"
}

@test "status with the module shows version, modes and static keys" {
	fake_module
	echo 'legacy [optimized]' >"$ABPATH_SYSFS/timer_softirq/mode"
	echo '[legacy] optimized' >"$ABPATH_SYSFS/exit_reparent/mode"
	echo mixed >"$ABPATH_SYSFS/mode"
	echo 'exit_reparent legacy watchdog_reverts 3' >>"$ABPATH_DEBUGFS/stats"
	run -0 "$ABPATH" status
	assert_line --regexp '^  loaded: +yes$'
	assert_line --regexp '^  version: +0\.1\.0$'
	assert_line --regexp '^  hooks: +yes$'
	assert_line 'mode: mixed'
	assert_line --regexp '^  backend: +patched$'
	assert_line --regexp '^  exit_reparent +legacy +yes +3 +exit_reparent site of the patched backend$'
	assert_line --regexp '^  timer_softirq +optimized +yes +- +timer_softirq site of the patched backend$'
	run -0 "$ABPATH" -j status
	run -0 jq -e '.paths.exit_reparent.watchdog_reverts == 3
		and .paths.timer_softirq.watchdog_reverts == null' <<<"$output"
}

@test "status -j with the module parses and agrees with sysfs" {
	fake_module
	echo '[legacy] optimized' >"$ABPATH_SYSFS/exit_reparent/mode"
	echo mixed >"$ABPATH_SYSFS/mode"
	run -0 "$ABPATH" -j status
	run -0 jq -e '.module.loaded and .module.version == "0.1.0"
		and .mode == "mixed"
		and .paths.exit_reparent.mode == "legacy"
		and .paths.group_cputime.mode == "optimized"
		and .paths.group_cputime.static_key == true
		and .kernel.config == "y"
		and ([.paths | keys[]] | length) == 4' <<<"$output"
	# -j after the command is the same.
	run -0 "$ABPATH" status -j
	run -0 jq -e '.module.loaded' <<<"$output"
}

@test "status shows a path the module adds" {
	fake_module
	mkdir "$ABPATH_SYSFS/new_path"
	echo '[legacy] optimized' >"$ABPATH_SYSFS/new_path/mode"
	run -0 "$ABPATH" -j status
	run -0 jq -r '.paths | keys_unsorted | join(" ")' <<<"$output"
	assert_output 'group_cputime timer_fastpath exit_reparent timer_softirq new_path'
}

@test "status on a kernel without the hooks says how to get them" {
	fake_unpatched_kernel
	run -1 --separate-stderr "$ABPATH" status -j
	run -0 jq -e '.kernel.hooks == false and .kernel.config == "n"
		and .kernel.registration_api == false' <<<"$output"
	run -1 --separate-stderr "$ABPATH" status
	[[ $stderr == *"CONFIG_ABPATH_HOOKS=y (patches/linux-6.12 or patches/linux-6.1)"* ]]
}

@test "status on Debian's own kernel names the stock backend and each site" {
	fake_module stock
	echo 'unavailable: thread_group_cputime() is already modified by another ftrace user, a livepatch perhaps (-16)' \
		>"$ABPATH_SYSFS/group_cputime/site"
	run -0 --separate-stderr "$ABPATH" status
	assert_equal "$stderr" ''
	assert_line --regexp '^  backend: +stock$'
	assert_line --regexp '^  hooks: +no$'
	assert_line --regexp '^  stock_backend: +yes$'
	# The whole reason, however long: it is what the user has to act on.
	assert_line --regexp '^  group_cputime +optimized +- +- +unavailable: thread_group_cputime\(\) is already modified by another ftrace user, a livepatch perhaps \(-16\)$'
	run -0 "$ABPATH" -j status
	run -0 jq -e '.module.backend == "stock" and .kernel.stock_backend == true
		and .kernel.hooks == false
		and .paths.exit_reparent.site == "exit_reparent site of the stock backend"
		and .paths.group_cputime.site == "unavailable: thread_group_cputime() is already modified by another ftrace user, a livepatch perhaps (-16)"' <<<"$output"
}

@test "status finds the hooks through kallsyms alone" {
	printf 'ffffffff81000000 T _stext\nffffffff81234560 T abpath_register\n' \
		>"$ABPATH_PROC/kallsyms"
	run -1 --separate-stderr "$ABPATH" -j status
	run -0 jq -e '.kernel.hooks and .kernel.registration_api
		and .kernel.debugfs == "not mounted"' <<<"$output"
}
