#!/usr/bin/env bash
# Install the Debian packages a step needs, so a fresh Debian 12 machine
# needs nothing but this clone.
#
#   tests/deps.sh build|host|vm|stock-headers [stock-6.12|stock-6.1]
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"

case ${1:-} in
build) need_pkgs gcc make pkg-config libkmod-dev libjansson-dev zlib1g-dev python3 ;;
host) need_pkgs gnuplot-nox dkms bats bats-support bats-assert jq util-linux bsdutils perl man-db gcc libc6-dev \
	python3 openssl xz-utils binutils ;;
# The headers of Debian's own kernel (stock-6.12 or stock-6.1, lib.sh's
# stock_kver), for the DKMS tests; prints their path.
stock-headers)
	kver=$(stock_kver "${2:-stock-6.12}")
	need_pkgs "linux-headers-$kver" >&2
	echo "/usr/src/linux-headers-$kver"
	;;
vm) need_qemu || true; need_pkgs busybox-static kmod cpio gzip ;;
*) echo "usage: $0 build|host|vm|stock-headers [stock-6.12|stock-6.1]" >&2; exit 2 ;;
esac
