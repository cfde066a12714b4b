#!/usr/bin/env bats
# Debian's kernels by suite (tests/vm/lib.sh): every name maps to a release
# and a meta-package, a version is resolved from the archive when a run
# starts and never written down, an archive that names no kernel (or
# different kernels for the image and the headers) fails with a message,
# and Debian's three image layouts unpack to the one the VM reads.

load ../suite/last-run

TOP=$BATS_TEST_DIRNAME/../..

teardown() { common_teardown; }

# lib CODE: CODE with lib.sh sourced, in a shell of its own (die exits).
lib() {
	bash -c ". '$TOP/tests/vm/lib.sh'; $1"
}

# fake_archive IMAGE_DEP HEADERS_DEP: lib.sh against an archive whose
# meta-packages depend on those packages ("" for none): apt-cache is a
# script, the release's root the host, its lists fresh.
fake_archive() {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/apt-cache" <<EOF
#!/bin/sh
[ "\$1" = depends ] || exit 100
echo "\$2"
case \$2 in
linux-image-*) [ -z "$1" ] || echo "  Depends: $1" ;;
linux-headers-*) [ -z "$2" ] || echo "  Depends: $2" ;;
esac
echo "  Depends: linux-base"
EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/apt-cache"
}

resolve_fake() {
	run lib "PATH='$BATS_TEST_TMPDIR/bin':\$PATH
		deb_root() { :; }; apt_fresh() { :; }
		stock_resolve $1"
}

@test "every suite name stands for its release and meta-package; old names are aliases" {
	while read -r name want; do
		run -0 lib "stock_spec $name"
		assert_output "$want"
	done <<'EOF'
stock-bookworm bookworm linux-image-amd64
stock-bookworm-rt bookworm linux-image-rt-amd64
stock-bookworm-6.12 bookworm linux-image-6.12-amd64
stock-bookworm-6.12-rt bookworm linux-image-6.12-rt-amd64
stock-trixie trixie linux-image-amd64
stock-trixie-rt trixie linux-image-rt-amd64
stock-trixie-backports trixie linux-image-amd64/trixie-backports
stock-trixie-backports-rt trixie linux-image-rt-amd64/trixie-backports
stock-sid sid linux-image-amd64
stock-sid-rt sid linux-image-rt-amd64
stock-6.1 bookworm linux-image-amd64
stock-6.12 bookworm linux-image-6.12-amd64
stock-trixie-arm64 trixie linux-image-arm64:arm64
stock-trixie-rt-arm64 trixie linux-image-rt-arm64:arm64
stock-trixie-backports-arm64 trixie linux-image-arm64:arm64/trixie-backports
stock-sid-arm64 sid linux-image-arm64:arm64
EOF
}

@test "an unknown kernel name fails and lists the names there are" {
	for name in stock-buster stock-trixie-rt-rt stock- stock-6.13 stock-trixie-arm64-rt stock-arm64; do
		run -1 lib "stock_spec $name"
		assert_output --partial "error: no stock kernel '$name': there are stock-bookworm, stock-bookworm-6.12, stock-trixie, stock-trixie-backports, stock-sid and each with -rt, -arm64 or -rt-arm64"
	done
	run -1 "$TOP/tests/vm/run" --kernel stock-buster -- true
	assert_output --partial "no stock kernel 'stock-buster'"
}

@test "a version comes from the meta-packages, image and headers alike" {
	fake_archive linux-image-7.3.4+deb13-amd64 linux-headers-7.3.4+deb13-amd64
	resolve_fake stock-trixie-backports
	assert_success
	assert_output 7.3.4+deb13-amd64
}

@test "an arm64 kernel resolves in its release's cross root, its architecture qualifier dropped" {
	fake_archive linux-image-6.12.118+deb13-arm64:arm64 linux-headers-6.12.118+deb13-arm64:arm64
	resolve_fake stock-trixie-arm64
	assert_success
	assert_output 6.12.118+deb13-arm64
	run -0 lib "flavour_arch stock-trixie-backports-rt-arm64; flavour_arch stock-trixie; flavour_arch arm64"
	assert_output "$(printf 'arm64\nx86\narm64')"
}

@test "a meta-package that names no kernel is an error, not a guess" {
	fake_archive "" linux-headers-7.3.4+deb13-amd64
	resolve_fake stock-sid
	assert_failure
	assert_output "error: cannot resolve stock-sid: Debian sid's linux-image-amd64 names no linux-image-VERSION package (is it in the archive?)"
}

@test "image and headers naming different kernels is an error" {
	fake_archive linux-image-7.3.5+deb13-amd64 linux-headers-7.3.4+deb13-amd64
	resolve_fake stock-trixie-backports-rt
	assert_failure
	assert_output "error: cannot resolve stock-trixie-backports-rt: Debian trixie's linux-image-rt-amd64/trixie-backports names 7.3.5+deb13-amd64 but linux-headers-rt-amd64/trixie-backports names 7.3.4+deb13-amd64"
	fake_archive linux-image-6.1.0-57-amd64 ""
	resolve_fake stock-bookworm
	assert_failure
	assert_output --partial "names 6.1.0-57-amd64 but linux-headers-amd64 names nothing"
}

@test "the host's own release resolves against the real archive" {
	[ "$(lib host_release)" = bookworm ] || skip "the host runs $(lib host_release), not Debian 12"
	run -0 lib "stock_resolve stock-bookworm"
	assert_output --regexp '^6\.1\.[0-9]+-[0-9]+-amd64$'
	run -0 lib "stock_resolve stock-bookworm-6.12"
	assert_output --regexp '^6\.12\.[0-9]+\+deb12-amd64$'
	run -0 lib "stock_resolve stock-bookworm-6.12-rt"
	assert_output --regexp '^6\.12\.[0-9]+\+deb12-rt-amd64$'
}

# image_tree LAYOUT KVER: an unpacked image as Debian 12, 13 or 7.x lays it out.
image_tree() {
	local t=$BATS_TEST_TMPDIR/$1 m
	case $1 in
	deb12) m=$t/lib/modules/$2; mkdir -p "$m" "$t/boot"
		touch "$t/boot/vmlinuz-$2" "$t/boot/config-$2" ;;
	deb13) m=$t/usr/lib/modules/$2; mkdir -p "$m" "$t/boot"
		touch "$t/boot/vmlinuz-$2" "$t/boot/config-$2" ;;
	split) m=$t/usr/lib/modules/$2; mkdir -p "$m"
		touch "$m/vmlinuz" "$m/config" "$m/System.map" ;;
	esac
	touch "$m/modules.order"
	echo "$t"
}

@test "Debian 12's, 13's and 7.x's image layouts unpack to the one the VM reads" {
	for layout in deb12 deb13 split; do
		t=$(image_tree $layout 7.3.4+deb13-amd64)
		run -0 lib "stock_layout '$t' 7.3.4+deb13-amd64"
		[ -f "$t/boot/vmlinuz-7.3.4+deb13-amd64" ] || fail "$layout: no boot/vmlinuz"
		[ -f "$t/boot/config-7.3.4+deb13-amd64" ] || fail "$layout: no boot/config"
		[ -f "$t/lib/modules/7.3.4+deb13-amd64/modules.order" ] || fail "$layout: no lib/modules"
	done
	t=$BATS_TEST_TMPDIR/empty
	mkdir -p "$t/usr/lib/modules/7.3.4+deb13-amd64"
	run -1 lib "stock_layout '$t' 7.3.4+deb13-amd64"
	assert_output --partial "hold no vmlinuz, config or modules.order"
}

@test "mmdebstrap runs with only 0, 1 and 2 open, whatever its caller holds (dash's one-digit fds)" {
	# The build stage's callers hold fds up to 11: apt's "cat >&11" hook
	# then failed in /bin/sh, and with it every root made there.
	run -0 lib 'exec 3>/dev/null 8>/dev/null 9>/dev/null 10>/dev/null 11>/dev/null
		( only_std_fds ls /proc/self/fd ) | sort -n | xargs'
	# ls's own directory fd is the lowest free one: 3.
	assert_output '0 1 2 3'
	run -0 lib 'exec 11>/dev/null; ( only_std_fds true ); ls /proc/$$/fd | sort -n | xargs'
	[[ $output == *' 11'* ]] || fail "the caller lost its own fd 11: $output"
}
