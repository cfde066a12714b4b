#!/usr/bin/env bats
# abpath load on a kernel that could take the module but has none
# installed: the hint names the ways to install it that exist.

load cli-helper

setup() {
	cli_setup
	# libkmod looks in the real /lib/modules/$(uname -r).
	! modinfo abpath >/dev/null 2>&1 || skip "module abpath is installed on this host"
	[[ ! -e /sys/module/abpath ]] || skip "module abpath is loaded on this host"
}

@test "load without an installed module names the package and make dkms-install" {
	fake_stock_kernel
	run -1 --separate-stderr "$ABPATH" load
	assert_equal "$output" ''
	assert_equal "$stderr" "abpath: error: module abpath not found for kernel $(uname -r); install it: the Debian package abpath-dkms ('apt install ./abpath-dkms_*.deb'), or from a clone 'make dkms-install' (both need linux-headers-$(uname -r))"
}
