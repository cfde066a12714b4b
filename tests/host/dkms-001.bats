#!/usr/bin/env bats
# DKMS: the patched backend against the patched 6.12, 6.1 and 7.3 test
# kernels, the stock backend against Debian's own 6.12 and 6.1 headers
# (livepatch relocations that survive DKMS's strip, a signature from its
# key), and a skip with a message for a kernel that can take neither.

load ../suite/last-run
load ../suite/paths
load kernel-trees

TOP=$BATS_TEST_DIRNAME/../..

# dkms_installs KBUILD [KVER]: DKMS builds abpath against that tree and
# installs it where modprobe would find it. KVER (uname -r of the kernel)
# defaults to the tree's kernel.release, which Debian's 6.1 headers set to
# the upstream version (6.1.192), not the ABI name (6.1.0-56-amd64).
dkms_installs() {
	kver=${2:-$(cat "$1/include/config/kernel.release")}
	run "$TOP/tests/bin/dkms-build" "$kver" "$1"
	assert_success
	assert_output --partial "abpath/$(cat "$TOP/VERSION"), $kver, x86_64: installed"
	# Compressed as the kernel's modules are (Debian's 6.12: xz).
	ls "$TOP/build/dkms/install/$kver/updates/dkms/abpath.ko"*
}

@test "dkms.conf takes its version from VERSION and the backend from the kernel" {
	run -0 bash -c "kernel_source_dir='$CACHE/build-6.12-default'; . '$TOP/dkms.conf'; echo \$PACKAGE_NAME \$PACKAGE_VERSION \$BUILD_EXCLUSIVE_CONFIG \$AUTOINSTALL"
	assert_output "abpath $(cat "$TOP/VERSION") CONFIG_ABPATH_HOOKS yes"
	run -0 bash -c "kernel_source_dir=/nonexistent; . '$TOP/dkms.conf'; echo \$BUILD_EXCLUSIVE_CONFIG"
	# The stock backend's options, as module/requires.h lists them: with
	# no config to tell its architecture, its first resolution's first.
	assert_output "$({ resolution_requires livepatch; backend_requires stock; } | paste -sd' ')"
	assert_output --partial "CONFIG_LIVEPATCH CONFIG_DYNAMIC_FTRACE_WITH_ARGS CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"
}

@test "dkms builds and installs abpath for the patched 6.12 test kernel" {
	dkms_installs "$CACHE/build-6.12-default"
	[[ $kver == 6.12.* ]]
}

@test "dkms builds and installs abpath for the patched 6.1 test kernel" {
	objects_only 6.1
	dkms_installs "$CACHE/build-6.1-default"
	[[ $kver == 6.1.* ]]
}

@test "dkms builds and installs abpath for the patched 7.3 test kernel" {
	objects_only 7.3
	dkms_installs "$CACHE/build-7.3-default"
	[[ $kver == 7.3.* ]]
}

# dkms_installs_stock stock-SUITE: DKMS builds the stock backend
# against Debian's headers for that kernel; the module it installs keeps
# its livepatch relocations through DKMS's strip and is signed by the DKMS
# key (tests/tools/verify-module-sig checks the signature itself).
dkms_installs_stock() {
	local hdr ko
	hdr=$("$TOP/tests/bin/deps.sh" stock-headers "$1")
	dkms_installs "$hdr" "${hdr#/usr/src/linux-headers-}"
	ko=$TOP/build/dkms/install/$kver/updates/dkms/abpath.ko
	[ -f "$ko" ] || { xz -dc "$ko.xz" >"$BATS_TEST_TMPDIR/abpath.ko" && ko=$BATS_TEST_TMPDIR/abpath.ko; }
	run -0 modinfo -F livepatch "$ko"
	assert_output Y
	run -0 readelf -SW "$ko"
	assert_output --partial ".klp.rela.vmlinux..text"
	# Still relocations, of the module's .text and against its symtab:
	# a strip that drops either (binutils 2.47) breaks the load.
	assert_output --regexp '\.klp\.rela\.vmlinux\.\.text +RELA( +[0-9a-f]+){4} +Ao +[1-9][0-9]* +[1-9][0-9]* '
	# Its debug information went before the relocations (module/build).
	refute_output --partial .debug_info
	run -0 readelf -sW "$ko"
	assert_output --partial ".klp.sym.vmlinux.task_sched_runtime,0"
	refute_output --regexp ' UND (task_sched_runtime|tasklist_lock|thread_group_cputime)$'
	# An odd direct address would ask 7.x's ftrace for a jump.
	run -0 awk '$8 ~ /^stock_(nop_)?tramp$/ { n++; if (substr($2, length($2)) != "0") bad = bad " " $8 }
		END { if (n != 2 || bad != "") { print n " trampolines, unaligned:" bad; exit 1 } }' <<<"$output"
	[ -f /var/lib/dkms/mok.pub ] || fail "DKMS made no signing key (/var/lib/dkms/mok.pub)"
	run -0 "$TOP/tests/tools/verify-module-sig" \
		"$TOP/build/dkms/install/$kver/updates/dkms/abpath.ko"* /var/lib/dkms/mok.pub
}

@test "dkms builds the stock backend for Debian's own 6.12: relocations kept, signed" {
	dkms_installs_stock stock-bookworm-6.12
	[[ $kver == 6.12.*+deb12-amd64 ]]
}

@test "dkms builds the stock backend for Debian's own 6.1: relocations kept, signed" {
	dkms_installs_stock stock-bookworm
	[[ $kver == 6.1.*-amd64 ]]
}

@test "dkms skips a kernel that can take neither backend: exit 77, and what it lacks" {
	src=$BATS_TEST_TMPDIR/linux
	mkdir -p "$src/include/config"
	printf 'CONFIG_MODULES=y\n# CONFIG_LIVEPATCH is not set\nCONFIG_DYNAMIC_FTRACE_WITH_ARGS=y\n' >"$src/.config"
	echo 6.12.0-plain >"$src/include/config/kernel.release"
	run -77 "$TOP/tests/bin/dkms-build" 6.12.0-plain "$src"
	assert_output --partial "BUILD_EXCLUSIVE directive which does not match this kernel"
	# Each option it lacks, worded as abpath check words it.
	assert_output --partial "abpath: kernel 6.12.0-plain can take neither backend"
	assert_output --partial "abpath:   patched: CONFIG_ABPATH_HOOKS is not set: the hook patch"
	assert_output --partial "abpath:   stock: CONFIG_LIVEPATCH is not set: its livepatch relocations reach unexported symbols"
	assert_output --partial "abpath:   stock: CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is not set:"
	refute_output --partial "stock: CONFIG_DYNAMIC_FTRACE_WITH_ARGS is not set"
	refute_output --partial "undefined"
	run -0 dkms status --dkmstree "$TOP/build/dkms/tree" --sourcetree "$TOP/build/dkms/src" \
		--installtree "$TOP/build/dkms/install" abpath
	assert_output "abpath/$(cat "$TOP/VERSION"): added"
}
