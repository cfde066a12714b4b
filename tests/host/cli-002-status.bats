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
		and .kernel.backend_support == "patched"
		and .kernel.hook_patch.CONFIG_ABPATH_HOOKS == true
		and .kernel.hook_patch.api_in_kernel == true
		and .kernel.hook_patch.module_registered == false
		and (.kernel | has("stock_backend") | not) and .mode == null' <<<"$output"
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
	assert_line --regexp '^    CONFIG_ABPATH_HOOKS: +yes$'
	assert_line --regexp '^    module_registered: +yes$'
	refute_line --partial stock_backend
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
		and .kernel.hook_patch.CONFIG_ABPATH_HOOKS == true
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
	assert_output "${CLI_PATHS[*]} new_path"
}

@test "status on a kernel without the hooks says how to get them" {
	fake_unpatched_kernel
	run -1 --separate-stderr "$ABPATH" status -j
	# Neither backend: both sets of fields, so that what is missing shows.
	run -0 jq -e '.kernel.backend_support == "neither"
		and .kernel.hook_patch.CONFIG_ABPATH_HOOKS == false
		and .kernel.hook_patch.api_in_kernel == false
		and .kernel.stock_backend.CONFIG_LIVEPATCH == false
		and .kernel.stock_backend.CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS == false' <<<"$output"
	run -1 --separate-stderr "$ABPATH" status
	[[ $stderr == *"lacks CONFIG_X86_64, CONFIG_LIVEPATCH, CONFIG_DYNAMIC_FTRACE_WITH_ARGS, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS and CONFIG_POSIX_CPU_TIMERS_TASK_WORK; boot a kernel that has"*"or one built with CONFIG_ABPATH_HOOKS=y (patches/linux-6.12, patches/linux-6.1 or patches/linux-7.3)"* ]] ||
		fail "stderr: $stderr"
}

@test "status on Debian's own kernel names the stock backend and each site" {
	fake_module stock
	echo 'unavailable: thread_group_cputime() is already modified by another ftrace user, a livepatch perhaps (-16)' \
		>"$ABPATH_SYSFS/group_cputime/site"
	run -0 --separate-stderr "$ABPATH" status
	assert_equal "$stderr" ''
	assert_line --regexp '^  backend: +stock$'
	# The stock backend's readiness, none of the hook patch's fields.
	assert_line --regexp '^  backend_support: +stock$'
	assert_line --regexp '^    CONFIG_LIVEPATCH: +yes$'
	assert_line --regexp '^    CONFIG_DYNAMIC_FTRACE_WITH_ARGS: +yes$'
	assert_line --regexp '^    CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS: +yes$'
	refute_output --partial hook_patch
	refute_output --partial static_key
	refute_output --partial CONFIG_ABPATH_HOOKS
	# The whole reason, however long: it is what the user has to act on.
	assert_line --regexp '^  group_cputime +optimized +- +unavailable: thread_group_cputime\(\) is already modified by another ftrace user, a livepatch perhaps \(-16\)$'
	run -0 "$ABPATH" -j status
	run -0 jq -e '.module.backend == "stock" and .kernel.backend_support == "stock"
		and .module.resolution == "livepatch"
		and .kernel.stock_backend.resolution == "livepatch"
		and .kernel.stock_backend.CONFIG_LIVEPATCH == true
		and (.kernel | has("hook_patch") | not)
		and ([.paths[] | has("static_key")] | any | not)
		and .paths.exit_reparent.site == "exit_reparent site of the stock backend"
		and .paths.group_cputime.site == "unavailable: thread_group_cputime() is already modified by another ftrace user, a livepatch perhaps (-16)"' <<<"$output"
}

@test "status on Debian's arm64 kernel names the kallsyms resolution, in use and in the config" {
	fake_module stock
	echo kallsyms >"$ABPATH_SYSFS/resolution"
	printf 'CONFIG_SMP=y\nCONFIG_ARM64=y\n# CONFIG_LIVEPATCH is not set\nCONFIG_KALLSYMS_ALL=y\nCONFIG_KPROBES=y\nCONFIG_DYNAMIC_FTRACE_WITH_ARGS=y\nCONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y\nCONFIG_POSIX_CPU_TIMERS_TASK_WORK=y\n' |
		gzip >"$ABPATH_PROC/config.gz"
	run -0 --separate-stderr "$ABPATH" status
	assert_equal "$stderr" ''
	assert_line --regexp '^  resolution: +kallsyms$'
	assert_line --regexp '^    resolution: +kallsyms$'
	assert_line --regexp '^    CONFIG_LIVEPATCH: +no$'
	run -0 "$ABPATH" -j status
	run -0 jq -e '.module.resolution == "kallsyms" and .kernel.backend_support == "stock"
		and .kernel.stock_backend.resolution == "kallsyms"
		and .kernel.stock_backend.CONFIG_KPROBES == true' <<<"$output"
	# Without kprobes, the config gives it none, and the kernel neither backend.
	printf 'CONFIG_SMP=y\nCONFIG_ARM64=y\nCONFIG_KALLSYMS_ALL=y\nCONFIG_DYNAMIC_FTRACE_WITH_ARGS=y\nCONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y\nCONFIG_POSIX_CPU_TIMERS_TASK_WORK=y\n' |
		gzip >"$ABPATH_PROC/config.gz"
	run -0 "$ABPATH" -j status
	run -0 jq -e '.kernel.stock_backend.resolution == null
		and .kernel.stock_backend.CONFIG_KPROBES == false
		and .kernel.backend_support == "neither"' <<<"$output"
}

@test "status finds the hooks through kallsyms alone" {
	printf 'ffffffff81000000 T _stext\nffffffff81234560 T abpath_register\n' \
		>"$ABPATH_PROC/kallsyms"
	run -1 --separate-stderr "$ABPATH" -j status
	run -0 jq -e '.kernel.backend_support == "patched"
		and .kernel.hook_patch.api_in_kernel
		and .kernel.debugfs == "not mounted"' <<<"$output"
}

@test "status on the stock backend shows ftrace, signature enforcement, lockdown and Secure Boot" {
	fake_module stock
	mkdir -p "$ABPATH_PROC/sys/kernel" "$FAKE/sys/module/module/parameters" \
		"$FAKE/sys/kernel/security" "$FAKE/sys/firmware/efi/efivars"
	echo 0 >"$ABPATH_PROC/sys/kernel/ftrace_enabled"
	echo Y >"$FAKE/sys/module/module/parameters/sig_enforce"
	echo 'none [integrity] confidentiality' >"$FAKE/sys/kernel/security/lockdown"
	printf '\x06\x00\x00\x00\x01' \
		>"$FAKE/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
	run -0 "$ABPATH" status
	assert_line --regexp '^    ftrace_enabled: +no$'
	assert_line --regexp '^    sig_enforce: +yes$'
	assert_line --regexp '^    lockdown: +integrity$'
	assert_line --regexp '^    secure_boot: +yes$'
	run -0 "$ABPATH" -j status
	run -0 jq -e '.kernel.stock_backend.ftrace_enabled == false
		and .kernel.module_signatures == {"sig_enforce": true,
			"lockdown": "integrity", "secure_boot": true}' <<<"$output"
	# Secure Boot off in the firmware, no lockdown, ftrace on.
	echo 1 >"$ABPATH_PROC/sys/kernel/ftrace_enabled"
	echo '[none] integrity confidentiality' >"$FAKE/sys/kernel/security/lockdown"
	printf '\x06\x00\x00\x00\x00' \
		>"$FAKE/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"
	run -0 "$ABPATH" -j status
	run -0 jq -e '.kernel.stock_backend.ftrace_enabled == true
		and .kernel.module_signatures.lockdown == "none"
		and .kernel.module_signatures.secure_boot == false' <<<"$output"
}

@test "status on a kernel that lacks one stock option names it" {
	printf 'CONFIG_X86_64=y\nCONFIG_LIVEPATCH=y\nCONFIG_DYNAMIC_FTRACE_WITH_ARGS=y\nCONFIG_POSIX_CPU_TIMERS_TASK_WORK=y\n' |
		gzip >"$ABPATH_PROC/config.gz"
	echo 'ffffffff81000000 T _stext' >"$ABPATH_PROC/kallsyms"
	mkdir -p "$FAKE/sys/kernel/debug/tracing"
	run -1 --separate-stderr "$ABPATH" status
	assert_line --regexp '^    CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS: +no$'
	assert_line --regexp '^    CONFIG_LIVEPATCH: +yes$'
	assert_line --regexp '^  backend_support: +neither$'
	# The error names what this kernel lacks, not the whole list.
	[[ $stderr == *"can take neither backend: it has no abpath hooks and lacks CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS; boot"* ]] ||
		fail "stderr: $stderr"
}
