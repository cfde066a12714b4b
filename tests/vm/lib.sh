# Shared by the VM scripts. Sourced, not run.
# shellcheck shell=bash

# The cache lives outside the clone so CI runs and later sessions reuse it.
ABPATH_CACHE=${ABPATH_CACHE:-/var/cache/abpath}
ABPATH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$ABPATH_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

stage() { printf '==> %s\n' "$*" >&2; }
info() { printf '    %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# A machine whose last apt run was killed (a restart mid-install) refuses
# every install until dpkg finishes that run; another apt holding the lock
# is worth waiting for rather than failing the suite.
apt_get() {
	if [ -n "$(ls -A /var/lib/dpkg/updates 2>/dev/null)" ] ||
		[ -n "$(dpkg --audit 2>/dev/null)" ]; then
		info "finishing an interrupted dpkg run"
		DEBIAN_FRONTEND=noninteractive dpkg --force-confdef --force-confold \
			--configure -a >/dev/null || true
	fi
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
}

# Install what is missing, once; CI starts from a machine that may lack it.
need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	info "installing ${missing[*]}"
	[ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
	if [ ! -f "$ABPATH_CACHE/.apt-updated" ]; then
		apt_get update -qq >/dev/null && mkdir -p "$ABPATH_CACHE" &&
			touch "$ABPATH_CACHE/.apt-updated"
	fi
	# The stamp outlives apt's lists on a reinstalled machine: refresh once
	# and retry before giving up.
	apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ apt_get update -qq >/dev/null &&
			apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
}

# Kernel flavours: default, debug and rt build Debian's linux-source-6.12,
# 6.1 builds Debian 12's own LTS kernel, linux-source-6.1.
flavour_kver() {
	case $1 in
	6.1) echo 6.1 ;;
	default | debug | rt) echo 6.12 ;;
	*) die "no kernel flavour '$1': there are default, debug, rt and 6.1" ;;
	esac
}

# The hook patch users apply to KVER, then the test VM's own patches
# (tests/vm/linux-KVER/, never shipped), in that order.
series_text() {
	local kver=$1 p
	while read -r p; do
		[ -n "$p" ] && [ "${p#\#}" = "$p" ] && cat "$ABPATH_TOP/patches/linux-$kver/$p"
	done <"$ABPATH_TOP/patches/linux-$kver/series"
	cat "$ABPATH_TOP"/tests/vm/linux-"$kver"/*.patch
}

kernel_build_dir() {
	case $1 in
	6.1) echo "$ABPATH_CACHE/build-6.1-default" ;;
	*) echo "$ABPATH_CACHE/build-6.12-$1" ;;
	esac
}

kmake() {
	local src=$1 build=$2
	shift 2
	make -C "$src" O="$build" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=abpath \
		KBUILD_BUILD_USER=abpath KBUILD_BUILD_HOST=abpath "$@"
}

# The newest QEMU Debian has: bookworm-backports' 10.0 on Debian 12, whose
# multi-threaded TCG is what the suite's timings were set on. Both it and
# 7.2 can run a stale int3 after a text patch; the test kernel resumes
# from those (tests/vm/linux-6.12/), so where 10.0 cannot be had, 7.2
# runs the VMs (the suite's timings are untested there).
qemu_version_ok() {
	local v
	v=$(qemu-system-x86_64 --version 2>/dev/null | sed -n '1s/.*version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	[ -n "$v" ] && set -- $v && { [ "$1" -gt 8 ] || { [ "$1" -eq 8 ] && [ "$2" -ge 1 ]; }; }
}

need_qemu() {
	local src=/etc/apt/sources.list.d/abpath-bookworm-backports.sources
	qemu_version_ok && return 0
	if grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release && [ "$(id -u)" -eq 0 ]; then
		info "installing QEMU from bookworm-backports"
		if [ ! -f "$src" ] && ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d; then
			cat >"$src" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		fi
		apt_get update -qq >/dev/null 2>&1 &&
			apt_get install -y -qq --no-install-recommends \
				-t bookworm-backports qemu-system-x86 >/dev/null 2>&1 || true
	fi
	qemu_version_ok && return 0
	need_pkgs qemu-system-x86
	return 1
}
