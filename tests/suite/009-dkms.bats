#!/usr/bin/env bats
# The module DKMS installed (tests/bin/dkms-build, packed into the image) is the
# one modprobe finds, takes its options from /etc/modprobe.d, and unloads.

load helper

setup() {
	unload_module
}

teardown() {
	common_teardown
	rm -f /etc/modprobe.d/abpath.conf
	unload_module
	load_module
}

@test "depmod resolves abpath to the DKMS-installed module" {
	run -0 modinfo -n abpath
	# Compressed as the kernel's own modules are (Debian's 6.12: xz).
	case $output in
	"/lib/modules/$(uname -r)/updates/dkms/abpath.ko" | \
		"/lib/modules/$(uname -r)/updates/dkms/abpath.ko.xz") ;;
	*) fail "modinfo -n abpath: $output, not updates/dkms/abpath.ko[.xz]" ;;
	esac
	run -0 modinfo -F version abpath
	assert_output "$(cat /abpath/VERSION)"
}

@test "modprobe loads it, with options from /etc/modprobe.d/abpath.conf" {
	mkdir -p /etc/modprobe.d
	echo "options abpath mode=legacy" >/etc/modprobe.d/abpath.conf
	run -0 modprobe abpath
	run -0 cat "$SYS/mode"
	assert_output legacy
	grep -q '^abpath ' /proc/modules
}

@test "modprobe -r unloads it and the hooks go quiet" {
	run -0 modprobe abpath
	run -0 modprobe -r abpath
	[ ! -e /sys/module/abpath ]
	expect "$(hook_key registered)" = 0 "registered hook key after modprobe -r"
}
