#!/usr/bin/env bats
# Building the CLI: a missing library is named as the Debian package to
# install, before the compiler can trip over its header.

load cli-helper

# fake_pkg_config PKG...: a pkg-config that finds every library but these.
fake_pkg_config() {
	local pc=$BATS_TEST_TMPDIR/pkg-config
	{
		echo '#!/bin/sh'
		echo 'for a; do case $a in'
		printf '%s) exit 1 ;;\n' "$@"
		echo 'esac; done'
		echo 'exec pkg-config "$@"'
	} >"$pc"
	chmod +x "$pc"
	echo "$pc"
}

@test "the build names the -dev package of a missing library" {
	run -2 --separate-stderr make -s -C "$TOP/userspace" check-deps \
		PKG_CONFIG="$(fake_pkg_config jansson)"
	assert_equal "$output" ''
	[[ $stderr == *"finds no jansson; install them: apt-get install libjansson-dev"* ]] ||
		fail "stderr: $stderr"
}

@test "the build names every missing library, and pkg-config itself" {
	run -2 --separate-stderr make -s -C "$TOP/userspace" check-deps \
		PKG_CONFIG="$BATS_TEST_TMPDIR/no-such-pkg-config"
	[[ $stderr == *"finds no libkmod jansson zlib; install them: apt-get install pkg-config libkmod-dev libjansson-dev zlib1g-dev"* ]] ||
		fail "stderr: $stderr"
	run -2 --separate-stderr make -s -C "$TOP/userspace" check-deps \
		PKG_CONFIG="$(fake_pkg_config libkmod zlib)"
	[[ $stderr == *"apt-get install libkmod-dev zlib1g-dev"* ]] || fail "stderr: $stderr"
}

@test "with every library found, the check passes" {
	run -0 make -s -C "$TOP/userspace" check-deps
}
