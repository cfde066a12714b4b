#!/usr/bin/env bash
# Install the Debian packages a step needs, so a fresh Debian 12 machine
# needs nothing but this clone.
#
#   tests/deps.sh build|host|vm
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"

case ${1:-} in
build) need_pkgs gcc make pkg-config libkmod-dev libjansson-dev zlib1g-dev ;;
host) need_pkgs gnuplot-nox dkms bats bats-support bats-assert jq util-linux bsdutils perl man-db gcc libc6-dev ;;
# Debian's own newest 6.12 headers, for the DKMS skip test; prints the path.
stock-headers)
	pkg=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		cut -d' ' -f1 | sort -V | tail -1)
	if [ -z "$pkg" ]; then
		apt-get update -qq >/dev/null
		pkg=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
			cut -d' ' -f1 | sort -V | tail -1)
	fi
	[ -n "$pkg" ] || die "no linux-headers-6.12.*+deb12-amd64 package found"
	need_pkgs "$pkg" >&2
	echo "/usr/src/$pkg"
	;;
vm) need_qemu || true; need_pkgs busybox-static kmod cpio gzip ;;
*) echo "usage: $0 build|host|vm|stock-headers" >&2; exit 2 ;;
esac
