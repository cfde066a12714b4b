#!/usr/bin/env bats
# DKMS: builds against the patched 6.12 and 6.1 test kernels, and skips a
# stock Debian kernel with the BUILD_EXCLUSIVE message rather than a wall
# of errors.

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'
load ../last-run

teardown() {
	common_teardown
}

TOP=$BATS_TEST_DIRNAME/../..
CACHE=${ABPATH_CACHE:-/var/cache/abpath}

# dkms_installs KBUILD: DKMS builds abpath against that patched tree and
# installs it where modprobe would find it.
dkms_installs() {
	kver=$(cat "$1/include/config/kernel.release")
	run "$TOP/tests/dkms-build" "$kver" "$1"
	assert_success
	assert_output --partial "abpath/$(cat "$TOP/VERSION"), $kver, x86_64: installed"
	[ -f "$TOP/build/dkms/install/$kver/updates/dkms/abpath.ko" ]
}

@test "dkms.conf takes its version from VERSION" {
	run -0 bash -c ". '$TOP/dkms.conf'; echo \$PACKAGE_NAME \$PACKAGE_VERSION \$BUILD_EXCLUSIVE_CONFIG \$AUTOINSTALL"
	assert_output "abpath $(cat "$TOP/VERSION") CONFIG_ABPATH_HOOKS yes"
}

@test "dkms builds and installs abpath for the patched 6.12 test kernel" {
	dkms_installs "$CACHE/build-6.12-default"
	[[ $kver == 6.12.* ]]
}

@test "dkms builds and installs abpath for the patched 6.1 test kernel" {
	dkms_installs "$CACHE/build-6.1-default"
	[[ $kver == 6.1.* ]]
}

@test "dkms skips Debian's stock 6.12 kernel: exit 77 and the BUILD_EXCLUSIVE message" {
	hdr=$("$TOP/tests/deps.sh" stock-headers)
	kver=${hdr#/usr/src/linux-headers-}
	run -77 "$TOP/tests/dkms-build" "$kver" "$hdr"
	assert_output --partial "BUILD_EXCLUSIVE directive which does not match this kernel"
	refute_output --partial "undefined"
	run -0 dkms status --dkmstree "$TOP/build/dkms/tree" --sourcetree "$TOP/build/dkms/src" \
		--installtree "$TOP/build/dkms/install" abpath
	assert_output "abpath/$(cat "$TOP/VERSION"): added"
}
