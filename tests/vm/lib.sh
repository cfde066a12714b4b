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
		apt-get update -qq >/dev/null && mkdir -p "$ABPATH_CACHE" &&
			touch "$ABPATH_CACHE/.apt-updated"
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
}

series_text() {
	local p
	while read -r p; do
		[ -n "$p" ] && [ "${p#\#}" = "$p" ] && cat "$ABPATH_TOP/patches/linux-6.12/$p"
	done <"$ABPATH_TOP/patches/linux-6.12/series"
}

kernel_build_dir() { echo "$ABPATH_CACHE/build-6.12-$1"; }

kmake() {
	local src=$1 build=$2
	shift 2
	make -C "$src" O="$build" CC="ccache gcc" KBUILD_BUILD_TIMESTAMP=abpath \
		KBUILD_BUILD_USER=abpath KBUILD_BUILD_HOST=abpath "$@"
}
