#!/usr/bin/env bash
# Install the Debian packages a step needs, so a fresh Debian 12 machine
# needs nothing but this clone.
#
#   tests/deps.sh build|host|vm
set -euo pipefail
. "$(dirname "$0")/vm/lib.sh"

case ${1:-} in
build) need_pkgs gcc make pkg-config libkmod-dev libjansson-dev zlib1g-dev ;;
host) need_pkgs bats bats-support bats-assert jq util-linux bsdutils perl man-db gcc libc6-dev ;;
vm) need_qemu || true; need_pkgs busybox-static kmod cpio gzip ;;
*) echo "usage: $0 build|host|vm" >&2; exit 2 ;;
esac
