#!/usr/bin/env bats
# Inside the VM booted by tests/package/install-test: what runs is what
# abpath's Debian packages installed, not this clone's build: the module
# DKMS built and signed in that release's root, the command and workloads
# at the package's paths, one version everywhere.

load ../suite/helper

setup() {
	load_module
}

@test "the loaded module is the one DKMS installed, signed" {
	run -0 modinfo -n abpath
	case $output in
	"/lib/modules/$(uname -r)/updates/dkms/abpath.ko" | \
	"/lib/modules/$(uname -r)/updates/dkms/abpath.ko".[gxz]*) ;;
	*) fail "modprobe loads $output, not DKMS's module" ;;
	esac
	run -0 modinfo -F signer abpath
	[ -n "$output" ] || fail "the module has no signature"
	echo "# $(modinfo -n abpath), signer: $output" >&3
}

@test "the command and its workloads are the package's" {
	run -0 readlink -f "$(command -v abpath)"
	assert_output /usr/bin/abpath
	run -0 abpath workloads
	assert_output --partial forkexit
	[ -x /usr/libexec/abpath/forkexit ] || fail "no /usr/libexec/abpath/forkexit"
}

@test "module, command and package agree on the version" {
	want=$(cat /abpath/VERSION)
	run -0 abpath -V
	assert_output --partial "$want"
	expect "$(cat /sys/module/abpath/version)" = "$want" "the module's version"
}
