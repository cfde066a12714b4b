#!/usr/bin/env bats
# abpath check, the preflight: each published config of
# tests/fixtures/configs judged, each required option of module/requires.h
# removed in turn from one that passes, the running kernel's sites, and
# DKMS naming what a kernel lacks as the preflight does.

load cli-helper

CONFIGS=$TOP/tests/fixtures/configs
REQUIRES=$TOP/module/requires.h

setup() {
	cli_setup
}

# requires BACKEND [RESOLUTION]: the options of the stock backend's
# RESOLUTION, then that backend's, as dkms.conf lists them (module/tables).
requires() {
	[[ -z ${2:-} ]] || resolution_requires "$2"
	backend_requires "$1"
}

# judge FILE: check's JSON for a config, in $json, and its exit code.
judge() {
	run --separate-stderr "$ABPATH" check -j --config "$1"
	json=$output
	[ -z "$stderr" ] || fail "stderr: $stderr"
}

# judge_with FILE LINE...: judge FILE with LINEs (options) appended.
judge_with() {
	local cfg=$BATS_TEST_TMPDIR/config f=$1
	shift
	{ cat "$f"; printf '%s\n' "$@"; } >"$cfg"
	judge "$cfg"
}

# verdict EXIT RESULT BACKEND: what the last judge said.
verdict() {
	[ "$status" -eq "$1" ] || fail "exit $status, expected $1: $json"
	run -0 jq -r '"\(.verdict.result) \(.verdict.backend)"' <<<"$json"
	assert_output "$2 $3"
}

reason() {
	jq -r .verdict.reason <<<"$json"
}

@test "every fixture config is judged here, and none is left out" {
	local f listed
	listed=$(sed -n 's/^\([^#][^\t]*\.config\)\t.*/\1/p' "$CONFIGS/SOURCES" | sort)
	[ "$(find "$CONFIGS" -name '*.config' -printf '%f\n' | sort)" = "$listed" ] ||
		fail "SOURCES and the directory differ"
	# Each one below, by name: a new fixture needs its line here.
	for f in $listed; do
		[ "$(grep -cF "$f" "$BATS_TEST_FILENAME")" -ge 1 ] || fail "no test judges $f"
	done
}

@test "the stock backend works on Ubuntu's, EL9's, Amazon Linux', Debian's and Proxmox' configs" {
	for f in ubuntu-24.04.1-6.8.0-52-generic.config \
		almalinux-9.3-5.14.0-362.18.1.el9_3.x86_64.config \
		amazonlinux-2023.8-6.1.141-165.249.amzn2023.x86_64.config \
		debian-12-6.1.0-18-cloud-amd64.config \
		proxmox-ve-8-6.8.12-4-pve.config; do
		judge "$CONFIGS/$f"
		verdict 0 yes stock
		run -0 jq -e '.backends.stock.works == "yes" and .backends.patched.works == "no"
			and ([.paths[].stock] | unique) == ["unknown"]
			and .load.refused_unless_signed == []' <<<"$json"
	done
}

@test "RHEL 9 is judged from its config alone, and says what that cannot tell" {
	judge "$CONFIGS/rhel-9.2-5.14.0-284.11.1.el9_2.x86_64.config"
	verdict 0 yes stock
	assert_equal "$(reason)" "the stock backend works (4 of 4 paths as far as a config can tell)"
	run -0 jq -r '.cannot_tell[]' <<<"$json"
	assert_line --partial "register_ftrace_direct_multi() from 5.16, and a distribution may backport it (RHEL 9.2's 5.14 does)"
	assert_line --partial "whether each stock site is present and traceable"
	assert_line --partial "which keys the kernel trusts"
	run -0 jq -r .kernel.config_version <<<"$json"
	assert_output 5.14.0-284.11.1.el9_2.x86_64
}

@test "Arch: the stock backend cannot work because CONFIG_LIVEPATCH is off, and the way is the patched backend" {
	judge "$CONFIGS/arch-6.2.1-arch1-1.config"
	verdict 1 no null
	run -0 reason
	assert_output --partial "the stock backend cannot work because CONFIG_LIVEPATCH is not set: its livepatch relocations"
	assert_output --partial "the way is the patched backend: build the kernel with the hook patch (patches/linux-6.12"
	run -0 jq -e '.backends.stock.CONFIG_LIVEPATCH == false
		and .backends.stock.CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS == true
		and ([.paths[].stock] | unique) == ["no"]' <<<"$json"
}

@test "Talos: no livepatch, and its MODULE_SIG_FORCE named" {
	judge "$CONFIGS/talos-1.9.1-6.12.6-talos.config"
	verdict 1 no null
	run -0 reason
	assert_output --partial "CONFIG_LIVEPATCH is not set"
	assert_output --partial "and even then CONFIG_MODULE_SIG_FORCE is set: only trusted signatures load, unless the key DKMS signs with is enrolled"
	run -0 jq -e '.load.CONFIG_MODULE_SIG_FORCE == true' <<<"$json"
	# Talos main's build config: no livepatch either, and no forced signatures.
	judge "$CONFIGS/talos-main-6.18.45-amd64.config"
	verdict 1 no null
	run -0 reason
	assert_output --partial "CONFIG_LIVEPATCH is not set"
	refute_output --partial MODULE_SIG_FORCE
}

@test "Fedora's and ELN's input configs: what they do not state is unknown, not off" {
	for f in fedora-40-6.8.2-300.fc40-x86_64.config eln-6.8.2-300.fc40-x86_64-rhel.config; do
		judge "$CONFIGS/$f"
		verdict 3 maybe stock
		run -0 jq -e '.kernel.config_complete == false
			and .backends.stock.CONFIG_LIVEPATCH == true
			and .backends.stock.CONFIG_DYNAMIC_FTRACE_WITH_ARGS == null
			and .backends.stock.CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS == null
			and .backends.stock.works == "unknown"' <<<"$json"
		run -0 reason
		assert_output --partial "works if the kernel sets what this config does not state: CONFIG_X86_64, CONFIG_DYNAMIC_FTRACE_WITH_ARGS"
	done
}

@test "Tumbleweed's excerpt: only what it omits is unknown" {
	judge "$CONFIGS/opensuse-tumbleweed-6.19.11-default.excerpt.config"
	verdict 3 maybe stock
	run -0 jq -e '.kernel.config_complete == false and .kernel.config_version == "6.19.11"
		and .backends.stock.CONFIG_LIVEPATCH == true
		and .backends.stock.CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS == true
		and .backends.stock.CONFIG_X86_64 == null' <<<"$json"
}

@test "each stock option removed in turn from Ubuntu's config: no, naming it" {
	local opt cfg=$BATS_TEST_TMPDIR/config n=0
	for opt in $(requires stock livepatch); do
		n=$((n + 1))
		grep -q "^$opt=y$" "$CONFIGS/ubuntu-24.04.1-6.8.0-52-generic.config" ||
			fail "Ubuntu's config does not set $opt: it does not pass"
		# Left out of a whole config, and said to be not set.
		for how in "/^$opt=y\$/d" "s/^$opt=y\$/# $opt is not set/"; do
			sed "$how" "$CONFIGS/ubuntu-24.04.1-6.8.0-52-generic.config" >"$cfg"
			judge "$cfg"
			verdict 1 no null
			run -0 reason
			assert_output --partial "the stock backend cannot work because $opt is not set: "
			run -0 jq -e --arg o "$opt" '.backends.stock[$o] == false' <<<"$json"
		done
	done
	((n >= 5)) || fail "only $n stock options in $REQUIRES"
}

# arm64 (a stand-in: Ubuntu's config, its architecture and livepatch
# swapped for what Debian's arm64 kernels have): the kallsyms resolution.
arm64_config() {
	sed -e 's/^CONFIG_X86_64=y$/CONFIG_ARM64=y/' \
		-e 's/^CONFIG_LIVEPATCH=y$/# CONFIG_LIVEPATCH is not set/' \
		"$CONFIGS/ubuntu-24.04.1-6.8.0-52-generic.config"
}

@test "arm64 without livepatch takes the kallsyms resolution, and each of its options removed says no, naming it" {
	local opt cfg=$BATS_TEST_TMPDIR/config n=0
	arm64_config >"$cfg"
	judge "$cfg"
	verdict 0 yes stock
	run -0 jq -e '.backends.stock.resolution == "kallsyms"
		and .backends.stock.CONFIG_LIVEPATCH == false' <<<"$json"
	# Its first option is its architecture: without it, another's is judged.
	for opt in $(requires stock kallsyms | tail -n +2); do
		n=$((n + 1))
		arm64_config | sed "s/^$opt=y\$/# $opt is not set/" >"$cfg"
		judge "$cfg"
		verdict 1 no null
		run -0 reason
		assert_output --partial "the stock backend cannot work because $opt is not set: "
		refute_output --partial CONFIG_X86_64
		refute_output --partial CONFIG_LIVEPATCH
	done
	# The last judged lacks a stock option, not one of the resolution's.
	run -0 jq -e '.backends.stock.resolution == "kallsyms"' <<<"$json"
	arm64_config | sed 's/^CONFIG_KPROBES=y$/# CONFIG_KPROBES is not set/' >"$cfg"
	judge "$cfg"
	run -0 jq -e '.backends.stock.resolution == null' <<<"$json"
	((n >= 5)) || fail "only $n stock options for kallsyms in $REQUIRES"
}

@test "the patched backend's option, and a refusal, added to Ubuntu's config" {
	local cfg=$BATS_TEST_TMPDIR/config
	judge_with "$CONFIGS/ubuntu-24.04.1-6.8.0-52-generic.config" CONFIG_ABPATH_HOOKS=y
	verdict 0 yes patched
	run -0 jq -e '([.paths[].patched] | unique) == ["yes"]' <<<"$json"
	sed 's/^# CONFIG_MODULE_SIG_FORCE is not set$/CONFIG_MODULE_SIG_FORCE=y/' \
		"$CONFIGS/ubuntu-24.04.1-6.8.0-52-generic.config" >"$cfg"
	judge "$cfg"
	verdict 3 maybe stock
	run -0 reason
	assert_output --partial "it loads only if signed: CONFIG_MODULE_SIG_FORCE is set"
}

@test "PREEMPT_RT leaves timer_fastpath off the stock backend, and only it" {
	# 6.1 has no PREEMPT_RT for x86 in its Kconfig: Debian's -rt adds it.
	judge_with "$CONFIGS/debian-12-6.1.0-18-cloud-amd64.config" CONFIG_PREEMPT_RT=y
	verdict 0 yes stock
	run -0 jq -r '.paths | to_entries[] | "\(.key) \(.value.stock) \(.value.stock_reason)"' <<<"$json"
	assert_line --regexp '^timer_fastpath no CONFIG_PREEMPT_RT is set: '
	assert_equal "$(grep -c ' unknown a config cannot tell' <<<"$output")" 3
	assert_equal "$(reason)" "the stock backend works (3 of 4 paths as far as a config can tell)"
}

@test "a missing file, or one that is no kernel config, is an error" {
	run -2 --separate-stderr "$ABPATH" check --config "$BATS_TEST_TMPDIR/none"
	assert_equal "$stderr" "abpath: error: cannot read $BATS_TEST_TMPDIR/none: No such file or directory"
	echo 'not a config' >"$BATS_TEST_TMPDIR/text"
	run -2 --separate-stderr "$ABPATH" check --config "$BATS_TEST_TMPDIR/text"
	assert_equal "$stderr" "abpath: error: $BATS_TEST_TMPDIR/text is not a kernel config: it has no CONFIG_ line"
	run -2 --separate-stderr "$ABPATH" check --config
	[[ $stderr == *"option '--config' requires an argument"* ]] || fail "stderr: $stderr"
	run -2 --separate-stderr "$ABPATH" check extra
	[[ $stderr == *"unexpected argument 'extra'"* ]] || fail "stderr: $stderr"
}

@test "a config, or its file's name, in another encoding than UTF-8 is judged, its bytes shown as '?' (fuzz-config)" {
	# Ubuntu's, its version line and its name in Latin-1: this said "out
	# of memory", jansson having refused the string.
	local f=$BATS_TEST_TMPDIR/$'caf\xe9.config'
	sed 's|^# Linux/x86 \(.*\) Kernel Configuration$|# Linux/x86 \1-caf\xe9 Kernel Configuration|' \
		"$CONFIGS/ubuntu-24.04.1-6.8.0-52-generic.config" >"$f"
	grep -q $'^# Linux/x86 .*-caf\xe9 Kernel Configuration$' "$f" || fail "no version line in $(head -5 "$f")"
	judge "$f"
	verdict 0 yes stock
	run -0 jq -r '[.kernel.config_file, .kernel.config_version] | join(" ")' <<<"$json"
	assert_output --regexp '/caf\?\.config 6\.8\.12-caf\?$'
	run -0 --separate-stderr "$ABPATH" check --config "$f"
	assert_line --regexp '^  config_file: +/.*/caf\?\.config$'
	assert_line --regexp '^  config_version: +6\.8\.12-caf\?$'
}

@test "text and JSON come from the same tree" {
	judge "$CONFIGS/talos-1.9.1-6.12.6-talos.config"
	run -1 "$ABPATH" check --config "$CONFIGS/talos-1.9.1-6.12.6-talos.config"
	assert_line "  reason:  $(reason)"
	assert_line --regexp '^  group_cputime +no +no +thread_group_cputime +the stock backend cannot work here$'
}

# The running kernel, in the fake tree: Debian's own, with its sites.
fake_sites() {
	local t=$FAKE/sys/kernel/tracing
	mkdir -p "$t"
	printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff81100000 T thread_group_cputime' \
		'ffffffff81200000 T run_posix_cpu_timers' 'ffffffff81300000 T do_exit' \
		'ffffffff81400000 T rcu_sched_clock_irq' >"$ABPATH_PROC/kallsyms"
	# do_exit inlined away from ftrace's list; another with a module's tag.
	printf '%s\n' thread_group_cputime 'run_posix_cpu_timers' \
		'rcu_sched_clock_irq' 'some_func [some_module]' >"$t/available_filter_functions"
}

@test "on the running kernel: each site in kallsyms and ftrace's list, and status reads the same options" {
	fake_stock_kernel
	fake_sites
	mkdir -p "$FAKE/lib/modules/$(uname -r)/build"
	run -0 --separate-stderr "$ABPATH" check -j
	json=$output
	run -0 jq -r '.paths | to_entries[] | "\(.key) \(.value.stock) \(.value.in_kallsyms) \(.value.traceable) \(.value.stock_reason)"' <<<"$json"
	assert_line 'group_cputime yes true true thread_group_cputime() is traceable'
	assert_line 'exit_reparent no true false do_exit is not in available_filter_functions: inlined or notrace'
	assert_equal "$(reason)" "the stock backend works (3 of 4 paths)"
	run -0 jq -e '.kernel.judged == "the running kernel" and .load.headers == true' <<<"$json"
	# status's stock block is the same table, read by the same code.
	run -1 --separate-stderr "$ABPATH" status -j
	assert_equal "$(jq -c '.kernel.stock_backend | del(.ftrace_enabled)' <<<"$output")" \
		"$(jq -c '.backends.stock | del(.works, .reason)' <<<"$json")"
	# Without the headers DKMS cannot build: a maybe, that says so.
	rmdir "$FAKE/lib/modules/$(uname -r)/build"
	run -3 "$ABPATH" check -j
	run -0 jq -r .verdict.reason <<<"$output"
	assert_output --partial "DKMS needs the kernel's headers"
}

@test "on the running kernel: signatures enforced, and ftrace's list unreadable" {
	fake_stock_kernel
	fake_sites
	mkdir -p "$FAKE/lib/modules/$(uname -r)/build" "$FAKE/sys/module/module/parameters"
	echo Y >"$FAKE/sys/module/module/parameters/sig_enforce"
	rm "$FAKE/sys/kernel/tracing/available_filter_functions"
	run -3 "$ABPATH" check -j
	json=$output
	run -0 reason
	assert_output --partial "it loads only if signed: module.sig_enforce is on"
	run -0 jq -e '([.paths[].stock] | unique) == ["unknown"]
		and (.cannot_tell[0] | test("root"))' <<<"$json"
}

@test "DKMS names each option a kernel lacks as the preflight does" {
	local src=$BATS_TEST_TMPDIR/linux line
	mkdir -p "$src"
	for f in arch-6.2.1-arch1-1.config talos-main-6.18.45-amd64.config; do
		cp "$CONFIGS/$f" "$src/.config"
		judge "$src/.config"
		run -0 bash -c "kernel_source_dir='$src' kernelver=k; . '$TOP/dkms.conf'" 2>&1
		assert_line --index 0 "abpath: kernel k can take neither backend (abpath check --config says the same):"
		for b in patched stock; do
			while IFS= read -r line; do
				assert_line "abpath:   $b: $line"
			done < <(jq -r --arg b "$b" '.backends[$b].reason | split("; ")[]' <<<"$json")
		done
		assert_equal "${#lines[@]}" 3
	done
}

@test "docs/matrix.md's table of published configs is what make compat writes from the preflight now" {
	cp "$TOP/docs/matrix.md" "$BATS_TEST_TMPDIR/matrix.md"
	run -0 "$TOP/tests/tools/compat-configs" --doc "$BATS_TEST_TMPDIR/matrix.md" --abpath "$ABPATH"
	run -0 diff -u "$TOP/docs/matrix.md" "$BATS_TEST_TMPDIR/matrix.md"
	run -0 grep -c '^| .* | \(yes\|maybe\|no\) | ' "$BATS_TEST_TMPDIR/matrix.md"
	assert_output "$(grep -c '\.config	' "$CONFIGS/SOURCES")"
	run -0 grep -F '| Arch Linux (/proc/config.gz) |' "$BATS_TEST_TMPDIR/matrix.md"
	assert_output --partial '| no | patched (patches/) | abpath cannot work on this kernel: the stock backend cannot work because CONFIG_LIVEPATCH is not set'
}
