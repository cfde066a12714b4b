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

# apt's lists as CI's fresh machine may lack them, fetched once per cache.
apt_update_once() {
	[ -f "$ABPATH_CACHE/.apt-updated" ] && return 0
	apt_get update -qq >/dev/null && mkdir -p "$ABPATH_CACHE" &&
		touch "$ABPATH_CACHE/.apt-updated"
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
	apt_update_once
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

# Debian's own kernels, unpatched and signed, which the stock backend
# builds against and loads into: the one place their releases are
# written. A new Debian kernel ABI is a new release here.
stock_kver() { # stock-6.12 | stock-6.1
	case $1 in
	stock-6.12) echo 6.12.117+deb12-amd64 ;;
	stock-6.1) echo 6.1.0-56-amd64 ;;
	*) die "no stock kernel '$1': there are stock-6.12 and stock-6.1" ;;
	esac
}

stock_dir() { echo "$ABPATH_CACHE/stock-$1"; }

# stock_kernel KVER: Debian's kernel KVER, ready to boot and build
# against, without building or installing a kernel. Its headers package
# is installed (/usr/src/linux-headers-KVER is what DKMS and users build
# against); its image package, the same version, is fetched and unpacked
# into stock_dir KVER, whatever the host runs: the host's /boot stays
# untouched, and a machine without that kernel installed boots it too.
stock_kernel() {
	local kver=$1 dir ver
	dir=$(stock_dir "$kver")
	need_pkgs "linux-headers-$kver"
	# The image must be the headers' version: Module.symvers there holds
	# the symbol CRCs the module is built with and the kernel checks.
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
	[ "$(cat "$dir/.abpath-version" 2>/dev/null)" = "$ver" ] && return 0
	mkdir -p "$ABPATH_CACHE"
	(
		# Two runs may fetch at once (two clones share the cache).
		flock 9
		[ "$(cat "$dir/.abpath-version" 2>/dev/null)" = "$ver" ] && exit 0
		stage "Debian's kernel image $kver ($ver) into $dir"
		tmp=$(mktemp -d "$dir.tmp.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		# apt downloads as _apt, and warns when _apt cannot write here.
		chown _apt "$tmp" 2>/dev/null || true
		get() { (cd "$tmp" && apt_get download -qq "linux-image-$kver=$ver" >/dev/null); }
		apt_update_once
		# Lists as old as the stamp may no longer name this version.
		get || { apt_get update -qq >/dev/null && get; } ||
			die "cannot download linux-image-$kver=$ver (the headers' version)"
		dpkg-deb -x "$tmp"/linux-image-*.deb "$tmp/root"
		[ -f "$tmp/root/boot/vmlinuz-$kver" ] && [ -d "$tmp/root/lib/modules/$kver" ] ||
			die "linux-image-$kver=$ver has no boot/vmlinuz-$kver or lib/modules/$kver"
		# The package leaves modules.dep to its postinst; the initramfs
		# resolves module dependencies from it.
		depmod -b "$tmp/root" "$kver"
		echo "$ver" >"$tmp/root/.abpath-version"
		rm -rf "$dir"
		mv "$tmp/root" "$dir"
	) 9>"$dir.lock"
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
