#!/usr/bin/env bash
# Install the Debian packages a step needs, so a fresh Debian 12 machine
# needs nothing but this clone.
#
#   tests/bin/deps.sh build|fuzz|host|vm|stock-headers [stock-SUITE]
set -euo pipefail
. "$(dirname "$0")/../vm/lib.sh"

case ${1:-} in
build) need_pkgs gcc make pkg-config libkmod-dev libjansson-dev zlib1g-dev python3 ;;
# clang with libFuzzer and its sanitizer runtimes: make fuzz (tests/bin/fuzz).
fuzz) need_pkgs clang-14 libfuzzer-14-dev libclang-rt-14-dev jq python3 ;;
host) need_pkgs gnuplot-nox dkms bats bats-support bats-assert jq util-linux bsdutils perl man-db gcc libc6-dev \
	python3 openssl xz-utils binutils \
	python3-statsmodels ansible ansible-lint rpm rpmlint cpio valgrind ;;
# The headers of one of Debian's own kernels of the host's release, by
# suite (lib.sh's stock_spec; default stock-bookworm-6.12), for the host's
# DKMS tests; prints their path.
stock-headers)
	name=${2:-stock-bookworm-6.12}
	spec=$(stock_spec "$name") || exit
	read -r rel _ <<<"$spec"
	[ "$rel" = "$(host_release)" ] ||
		die "$name is a Debian $rel kernel; this host runs $(host_release), and builds for it in a root (tests/vm/run --kernel $name)"
	kver=$(stock_resolve "$name")
	stock_headers "$name" "$kver"
	;;
vm) need_qemu || true; need_pkgs busybox-static kmod cpio gzip ;;
*) echo "usage: $0 build|fuzz|host|vm|stock-headers [stock-SUITE]" >&2; exit 2 ;;
esac
