# Shared by the VM scripts. Sourced, not run.
# shellcheck shell=bash

# The cache lives outside the clone so CI runs and later sessions reuse it.
ABPATH_CACHE=${ABPATH_CACHE:-/var/cache/abpath}
ABPATH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export CCACHE_DIR=${CCACHE_DIR:-$ABPATH_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

# stage STEP: STEP's start, with the clock; the step before it in this
# process gets its time, so a log says where a cold run's minutes went
# (tests/tools/step-times reads them back).
stage() {
	local now
	now=$(date +%s)
	[ -z "${_step:-}" ] || printf '    %s: %ds\n' "$_step" $((now - _step_t0)) >&2
	_step=$* _step_t0=$now
	printf '==> %s %s\n' "$(date +%T)" "$*" >&2
}
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
# only_std_fds CMD...: CMD with no file descriptor open but 0, 1 and 2.
# mmdebstrap gives apt a pipe's number for a /bin/sh hook ("cat >&N"),
# and dash reads one digit there: a caller holding fds (flock's, bash's
# saved copies, a make jobserver's) pushes N past 9, and every download
# of the essential set "fails" ("Syntax error: Bad fd number").
only_std_fds() {
	local fd
	for fd in /proc/$BASHPID/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-"
	done
	"$@"
}

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

# Kernel flavours: default, debug, rt and arm64 build Debian's
# linux-source-6.12, 6.1 builds Debian 12's own LTS kernel,
# linux-source-6.1, and 7.3 trixie-backports' linux-source-7.3.
flavour_kver() {
	case $1 in
	6.1) echo 6.1 ;;
	7.3) echo 7.3 ;;
	default | debug | rt | arm64) echo 6.12 ;;
	*) die "no kernel flavour '$1': there are default, debug, rt, arm64, 6.1 and 7.3" ;;
	esac
}

# flavour_arch FLAVOUR: the kernel's ARCH. arm64 is cross-compiled with
# Debian's gcc-aarch64-linux-gnu; every other flavour is the host's x86.
flavour_arch() {
	case $1 in
	arm64 | stock-*-arm64) echo arm64 ;;
	*) echo x86 ;;
	esac
}

# cross_prefix ARCH: its toolchain's CROSS_COMPILE, "" for the host's.
cross_prefix() {
	case $1 in
	x86) ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) die "no architecture '$1': there are x86 and arm64" ;;
	esac
}

# arch_make_args ARCH: what make -C KDIR needs to build for ARCH (nothing
# for the host's); one word per line.
arch_make_args() {
	local x
	x=$(cross_prefix "$1") || exit
	[ -z "$x" ] || printf '%s\n' "ARCH=$1" "CROSS_COMPILE=$x"
}

# kernel_image ARCH: the bootable image's path in a build tree.
kernel_image() {
	case $1 in
	arm64) echo arch/arm64/boot/Image ;;
	*) echo arch/x86/boot/bzImage ;;
	esac
}

# arch_sysroot ARCH: the host's Debian release for ARCH, unpacked, not
# installed (mmdebstrap's extract variant runs no package's scripts, so
# no emulator is needed): the C library and the libraries the CLI links,
# with their headers, to cross-compile user space against
# (tests/bin/cross-userspace), and the programs an ARCH VM's image takes
# (tests/vm/build-initramfs). Made once, kept in the cache, and made
# again when this list changes.
SYSROOT_PKGS=libc6-dev,libkmod-dev,libjansson-dev,zlib1g-dev,bash,busybox-static,kmod,jq,util-linux,coreutils
arch_sysroot() {
	unpacked_root "sysroot-$(host_release)-$1" "$1" "$SYSROOT_PKGS"
}

# arch_oracle_root ARCH: the upstream oracle's part of an ARCH image
# (tests/upstream/), unpacked as arch_sysroot is, in a root of its own:
# Debian's stress-ng and rt-tests (cyclictest), and libcap-dev, which the
# selftests cross-compile against (clone3 links libcap). Apart from the
# sysroot, so that neither list's change unpacks the other again; the
# image takes the C library from the sysroot and looks only for what the
# sysroot lacks here (build-initramfs).
ORACLE_PKGS=libc6-dev,libcap-dev,stress-ng,rt-tests
arch_oracle_root() {
	unpacked_root "oracle-$(host_release)-$1" "$1" "$ORACLE_PKGS"
}

# unpacked_root NAME ARCH PKGS: $ABPATH_CACHE/NAME, PKGS (comma-separated)
# and their dependencies for ARCH from the host's release, unpacked by
# mmdebstrap's extract variant; made again when PKGS changes.
unpacked_root() {
	local name=$1 arch=$2 pkgs=$3 rel r mirror=http://deb.debian.org/debian
	rel=$(host_release)
	r=$ABPATH_CACHE/$name
	[ "$(cat "$r/.abpath-root" 2>/dev/null)" = "$pkgs" ] && { echo "$r"; return 0; }
	need_pkgs mmdebstrap
	mkdir -p "$ABPATH_CACHE"
	(
		flock 9
		[ "$(cat "$r/.abpath-root" 2>/dev/null)" = "$pkgs" ] && exit 0
		stage "Debian $rel's $pkgs for $arch, unpacked in $r"
		rm -rf "$r" "$r.tmp"
		( only_std_fds mmdebstrap --quiet --variant=extract --architectures="$arch" \
			--aptopt='Acquire::Check-Valid-Until "false"' \
			--include="$pkgs" \
			"$rel" "$r.tmp" "deb $mirror $rel main" "deb $mirror $rel-updates main" \
			"deb http://deb.debian.org/debian-security $rel-security main" ) >&2 ||
			{ rm -rf "$r.tmp"; die "mmdebstrap of Debian $rel's $pkgs for $arch failed"; }
		echo "$pkgs" >"$r.tmp/.abpath-root"
		mv "$r.tmp" "$r"
	) 9>"$r.lock" || exit
	echo "$r"
}

# source_spec KVER: "RELEASE SUITE" whose archive has linux-source-KVER
# when the host's apt does not (Debian 12 has 6.1 and, in
# bookworm-updates and -security, 6.12), else nothing.
source_spec() {
	case $1 in
	7.3) echo "trixie trixie-backports" ;;
	esac
}

# unpack_source KVER DIR: Debian's linux-source-KVER tree into DIR. The
# host's package, or one that only another release's archive has,
# downloaded in a root of that release (deb_root) and its tarball
# unpacked straight from the .deb, nothing installed.
unpack_source() {
	local kver=$1 dir=$2 spec rel suite r dl
	spec=$(source_spec "$kver")
	if [ -z "$spec" ]; then
		tar -C "$dir" --strip-components=1 -xf "/usr/src/linux-source-$kver.tar.xz"
		return
	fi
	read -r rel suite <<<"$spec"
	r=$(deb_root "$rel") || exit
	dl=$(root_tmpdir "$r") || exit
	info "downloading linux-source-$kver from $suite${r:+ in $r}"
	# Other runs use the same root's apt.
	(
		flock 9
		apt_fresh "$r"
		root_download "$r" "$dl" -t "$suite" "linux-source-$kver"
	) 9>"${r:-$ABPATH_CACHE/host}.lock" ||
		{ rm -rf "$dl"; die "cannot download linux-source-$kver from $suite${r:+ in $r}"; }
	dpkg-deb --fsys-tarfile "$dl"/linux-source-"$kver"_*.deb |
		tar -xO "./usr/src/linux-source-$kver.tar.xz" |
		tar -C "$dir" --strip-components=1 -xJ ||
		{ rm -rf "$dl"; die "cannot unpack linux-source-$kver"; }
	rm -rf "$dl"
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

# Proxies (tests/vm/proxies/list, tests/vm/build-proxy): Debian's
# source, unpatched, with another distribution's config, booted as
# "proxy-NAME".
PROXIES="ubuntu fedora eln"

# proxy_spec NAME: "FIXTURE KIND KVER" from tests/vm/proxies/list.
proxy_spec() {
	local l
	l=$(awk -v n="$1" '$1 == n { print $2, $3, $4 }' "$ABPATH_TOP/tests/vm/proxies/list")
	[ -n "$l" ] || die "no proxy '$1': there are ${PROXIES// /, } (tests/vm/proxies/list)"
	echo "$l"
}

proxy_build_dir() { echo "$ABPATH_CACHE/build-proxy-$1"; }

# proxy_source KVER: Debian's linux-source-KVER unpacked once, no patch
# applied: the proxies build from it, the patched flavours never.
proxy_source() {
	local src=$ABPATH_CACHE/linux-$1-unpatched
	mkdir -p "$ABPATH_CACHE"
	(
		flock 9
		[ -f "$src/.abpath-unpacked" ] && exit 0
		stage "unpacking linux-source-$1 into $src"
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		unpack_source "$1" "$src.tmp"
		touch "$src.tmp/.abpath-unpacked"
		mv "$src.tmp" "$src"
	) 9>"$src.lock" >&2 || exit
	echo "$src"
}

kernel_build_dir() {
	case $1 in
	6.1) echo "$ABPATH_CACHE/build-6.1-default" ;;
	7.3) echo "$ABPATH_CACHE/build-7.3-default" ;;
	*) echo "$ABPATH_CACHE/build-6.12-$1" ;;
	esac
}

# Debian's own kernels, unpatched and signed, which the stock backend
# builds against and loads into, named by suite, never by version: a
# name resolves to the version the archive's meta-packages name when the
# run starts, so a new Debian kernel ABI is picked up, and one that left
# the archive is never asked for.
#
#   stock-bookworm          Debian 12's linux-image-amd64 (6.1)
#   stock-bookworm-6.12     Debian 12's linux-image-6.12-amd64
#   stock-trixie            Debian 13's linux-image-amd64
#   stock-trixie-backports  trixie-backports' linux-image-amd64
#   stock-sid               unstable's linux-image-amd64
#
# and each with -rt, the PREEMPT_RT flavour (linux-image-rt-amd64 and
# linux-image-6.12-rt-amd64). stock-6.1 and stock-6.12 are the old names
# of stock-bookworm and stock-bookworm-6.12. Each name with -arm64 last
# (stock-trixie-arm64, stock-trixie-backports-rt-arm64) is the same
# suite's arm64 kernel: linux-image-arm64:arm64, fetched and built for
# from an amd64 root of its release that knows arm64 (deb_root).
STOCK_KERNELS="stock-bookworm stock-bookworm-6.12 stock-trixie stock-trixie-backports stock-sid"

# stock_canon NAME: the suite name NAME stands for.
stock_canon() {
	case $1 in
	stock-6.1) echo stock-bookworm ;;
	stock-6.12) echo stock-bookworm-6.12 ;;
	*) echo "$1" ;;
	esac
}

# stock_spec NAME: "RELEASE PACKAGE", the Debian release whose userland
# builds for NAME and the meta-package that names its kernel, with the
# suite to take it from when that is not the release's default
# (apt-cache's PACKAGE/SUITE).
stock_spec() {
	local n rt= series= rel suite=
	local debarch=amd64 qual=
	n=$(stock_canon "$1")
	n=${n#stock-}
	case $n in *-arm64) debarch=arm64 qual=:arm64 n=${n%-arm64} ;; esac
	case $n in *-rt) rt=rt- n=${n%-rt} ;; esac
	case $n in
	bookworm) rel=bookworm ;;
	bookworm-6.12) rel=bookworm series=6.12- ;;
	trixie) rel=trixie ;;
	trixie-backports) rel=trixie suite=/trixie-backports ;;
	sid) rel=sid ;;
	*) die "no stock kernel '$1': there are ${STOCK_KERNELS// /, } and each with -rt, -arm64 or -rt-arm64 (stock-6.1 and stock-6.12 stand for stock-bookworm and stock-bookworm-6.12)" ;;
	esac
	echo "$rel linux-image-$series$rt$debarch$qual$suite"
}

# stock_root NAME: where NAME's module builds (deb_root for its release
# and architecture).
stock_root() {
	local rel _
	read -r rel _ <<<"$(stock_spec "$1")" || exit
	[ -n "$rel" ] || exit 1
	deb_root "$rel" "$(flavour_arch "$(stock_canon "$1")")"
}

host_release() { (. /etc/os-release && echo "${VERSION_CODENAME:-}"); }

# deb_root RELEASE [ARCH]: where RELEASE's userland is, "" for the host's
# own. Another release's kbuild tools need its own libc (trixie's and sid's
# need glibc 2.38, Debian 12 has 2.36), so the module builds for its
# kernels in a root of that release, made once with mmdebstrap and kept
# in the cache: its gcc, kbuild, DKMS and kmod, as on a user's machine.
# With ARCH arm64 it is an amd64 root of RELEASE, the host's too, whose
# dpkg also knows arm64, with Debian's cross compiler: an arm64 kernel's
# headers are unpacked there beside the amd64 build of its kbuild tools
# (stock_headers), as a Debian user cross-builds on an amd64 machine;
# the host itself never gets an arm64 package.
deb_root() {
	local rel=$1 arch=${2:-x86}
	case $arch in
	x86)
		[ "$rel" = "$(host_release)" ] && return 0
		make_root "$rel" "$ABPATH_CACHE/root-$rel" "its kernels' modules" \
			gcc,make,libc6-dev,kmod,python3,dkms,xz-utils,openssl
		;;
	arm64)
		make_root "$rel" "$ABPATH_CACHE/root-$rel-cross-arm64" \
			"cross-building modules for its arm64 kernels" \
			gcc,make,libc6-dev,kmod,python3,dkms,xz-utils,openssl,gcc-aarch64-linux-gnu \
			amd64,arm64
		;;
	*) die "no architecture '$arch': there are x86 and arm64" ;;
	esac
}

# make_root RELEASE DIR WHAT [PACKAGES [ARCHES]]: a minbase root of
# RELEASE in DIR with PACKAGES (comma-separated), made once (WHAT says
# what for) and kept; its apt sees the release, its updates, security and
# backports, for ARCHES (mmdebstrap's, the first native; default amd64).
make_root() {
	local rel=$1 r=$2 what=$3 pkgs=${4:-} arches=${5:-amd64} mirror=http://deb.debian.org/debian
	local sources=("deb $mirror $rel main")
	[ -f "$r/.abpath-root" ] && { echo "$r"; return 0; }
	case $rel in
	sid) ;;
	*) sources+=("deb $mirror $rel-updates main"
		"deb http://deb.debian.org/debian-security $rel-security main"
		"deb $mirror $rel-backports main") ;;
	esac
	need_pkgs mmdebstrap
	mkdir -p "$ABPATH_CACHE"
	(
		flock 9
		[ -f "$r/.abpath-root" ] && exit 0
		stage "a Debian $rel root for $what, in $r"
		rm -rf "$r" "$r.tmp"
		# The archive may be a snapshot older than unstable's Release
		# file stays valid (a week); the signature is still checked.
		# One download the mirror drops fails the whole root, and every
		# kernel of that release with it: so four tries, further apart,
		# each one's own output kept and its tail shown.
		local try log=$r.mmdebstrap.log
		for try in 1 2 3 4; do
			( only_std_fds mmdebstrap --variant=minbase --architectures="$arches" \
				--aptopt='Acquire::Check-Valid-Until "false"' \
				--aptopt='Acquire::Retries "3"' \
				${pkgs:+--include="$pkgs"} \
				"$rel" "$r.tmp" "${sources[@]}" ) >"$log" 2>&1 && break
			grep -aE '^(E|W): |^Err:' "$log" | tail -8 >&2
			[ "$try" = 4 ] && die "mmdebstrap of Debian $rel failed four times (its output: $log)"
			echo "mmdebstrap of Debian $rel failed (try $try of 4); again in $((try * 30)) s" >&2
			rm -rf "$r.tmp"
			sleep $((try * 30))
		done
		touch "$r.tmp/.abpath-root"
		mv "$r.tmp" "$r"
	) 9>"$r.lock" || exit
	echo "$r"
}

# in_root ROOT CMD...: CMD on the host when ROOT is "", else inside ROOT,
# with this clone and /proc (objtool reads it) mounted at their own
# paths, in a mount namespace of its own, so nothing outlives CMD. CMD
# starts in the same directory when that is in the clone.
in_root() {
	local r=$1
	shift
	[ -n "$r" ] || { "$@"; return; }
	unshare --mount --propagation private -- /bin/bash -c '
		r=$1 top=$2
		shift 2
		mkdir -p "$r$top" "$r/dev/pts" && mount --bind "$top" "$r$top" &&
			mount -t proc proc "$r/proc" &&
			mount -t devpts -o newinstance devpts "$r/dev/pts" &&
			exec chroot "$r" /bin/sh -c '\''cd "$0" 2>/dev/null || cd /; exec "$@"'\'' \
				"$PWD" "$@"' \
		in_root "$r" "$ABPATH_TOP" "$@"
}

# When apt's lists in ROOT ("": the host's) were last updated by abpath.
apt_stamp() {
	if [ -n "$1" ]; then echo "$1/var/lib/apt/.abpath-updated"; else echo "$ABPATH_CACHE/.apt-updated"; fi
}

# apt's lists in ROOT no older than an hour: a run resolves versions
# against the archive as it is when the run starts.
apt_fresh() {
	local r=$1 stamp
	stamp=$(apt_stamp "$r")
	[ -n "$(find "$stamp" -mmin -60 2>/dev/null)" ] && return 0
	in_root "$r" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
		update -qq >/dev/null || die "apt-get update failed${r:+ in $r}"
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
}

# root_tmpdir ROOT: a new directory in ROOT's /tmp ("": the host's) that
# apt there can download into: it does so as _apt, and warns when it
# cannot write there.
root_tmpdir() {
	local d
	d=$(mktemp -d "${1:-}/tmp/abpath-dl.XXXXXX") && chmod 0777 "$d" && echo "$d"
}

# root_download ROOT DIR APT-GET-DOWNLOAD-ARGUMENTS...: packages into DIR
# (from root_tmpdir ROOT) with ROOT's apt. Lists as old as the stamp may
# no longer name a version: a failure refreshes them and tries once more.
root_download() {
	local r=$1 dl=$2 try
	shift 2
	for try in 1 2; do
		in_root "$r" /bin/sh -c 'cd "$1" && shift && apt-get download -qq "$@"' \
			get "${dl#"$r"}" "$@" >/dev/null && return 0
		[ "$try" = 1 ] || return 1
		rm -f "$(apt_stamp "$r")"
		apt_fresh "$r"
	done
}

# stock_resolve NAME: the kernel release (uname -r) NAME is today, from
# its meta-package's dependency in the release's apt lists. The headers'
# meta-package must name the same one: an archive caught between two
# uploads fails here, not with a module built for the wrong kernel.
stock_resolve() {
	local spec rel pkg r kver hpkg hver
	spec=$(stock_spec "$1") || exit
	read -r rel pkg <<<"$spec"
	r=$(stock_root "$1") || exit
	apt_fresh "$r"
	kver=$(in_root "$r" apt-cache depends "$pkg" 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9][^ :]*\)\(:arm64\)\{0,1\}$/\1/p' | head -1)
	[ -n "$kver" ] ||
		die "cannot resolve $1: Debian $rel's $pkg names no linux-image-VERSION package (is it in the archive?)"
	hpkg=${pkg/linux-image-/linux-headers-}
	hver=$(in_root "$r" apt-cache depends "$hpkg" 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\([0-9][^ :]*\)\(:arm64\)\{0,1\}$/\1/p' | head -1)
	[ "$hver" = "$kver" ] ||
		die "cannot resolve $1: Debian $rel's $pkg names $kver but $hpkg names ${hver:-nothing}"
	echo "$kver"
}

stock_dir() { echo "$ABPATH_CACHE/stock-$1"; }

# stock_headers NAME KVER: installs linux-headers-KVER where NAME's
# release builds, and prints the path of the tree inside that root.
# An arm64 kernel's headers package depends on its arm64 image, its arm64
# kbuild tools and an arm64 gcc, none of which an amd64 root can install
# or run: it is unpacked there with the headers' common part (and from
# 7.x the linux-base package that holds the config), beside the amd64
# build of the same linux-kbuild, whose fixdep and modpost run on the
# build machine. stock_headers_version says which version came.
stock_headers() {
	local r kb ver dl p
	r=$(stock_root "$1") || exit
	if [ "$(flavour_arch "$(stock_canon "$1")")" = arm64 ]; then
		kb=/usr/src/linux-headers-$2
		[ -n "$(stock_headers_version "$r" "$2")" ] && { echo "$kb"; return 0; }
		(
			flock 9
			[ -n "$(stock_headers_version "$r" "$2")" ] && exit 0
			stage "Debian's arm64 headers $2 into $r"
			apt_fresh "$r"
			ver=$(in_root "$r" apt-cache show --no-all-versions "linux-headers-$2:arm64" |
				sed -n 's/^Version: //p' | head -1)
			[ -n "$ver" ] || die "no linux-headers-$2:arm64 in $r's apt lists"
			pkgs=("linux-headers-$2:arm64=$ver") kbuild=
			for p in $(in_root "$r" apt-cache depends "linux-headers-$2:arm64=$ver" |
				sed -n "s/^ *Depends: <\{0,1\}\(linux-\(headers\|base\|kbuild\)-[0-9][^ :>]*\).*/\1/p" | sort -u); do
				case $p in
				linux-kbuild-*) kbuild=$p ;;
				*-common) pkgs+=("$p=$ver") ;;
				*) pkgs+=("$p:arm64=$ver") ;;
				esac
			done
			[ -n "$kbuild" ] || die "linux-headers-$2:arm64 names no linux-kbuild package"
			root_install "$r" "$kbuild=$ver"
			dl=$(root_tmpdir "$r") || exit
			trap 'rm -rf "$dl"' EXIT
			root_download "$r" "$dl" "${pkgs[@]}" || die "cannot download ${pkgs[*]}"
			for p in "$dl"/*.deb; do dpkg-deb -x "$p" "$r"; done
			[ -f "$r$kb/Makefile" ] || die "no $kb/Makefile in Debian's arm64 headers ${pkgs[*]}"
			echo "$ver" >"$r$kb/.abpath-headers"
		) 9>"$r.headers.lock" || exit
		echo "$kb"
		return 0
	fi
	if [ -z "$r" ]; then
		need_pkgs "linux-headers-$2"
	elif [ ! -f "$r/usr/src/linux-headers-$2/Makefile" ]; then
		root_install "$r" "linux-headers-$2"
	fi
	echo "/usr/src/linux-headers-$2"
}

# stock_headers_version ROOT KVER: the version of linux-headers-KVER in
# ROOT, installed or (arm64) unpacked there by stock_headers; "" if none.
stock_headers_version() {
	cat "$1/usr/src/linux-headers-$2/.abpath-headers" 2>/dev/null ||
		in_root "$1" dpkg-query -W -f='${Version}' "linux-headers-$2" 2>/dev/null || true
}

# root_install ROOT PACKAGE...: PACKAGEs installed with ROOT's own apt,
# its lists no older than an hour (apt_fresh).
root_install() {
	local r=$1
	shift
	info "installing $* in $r"
	apt_fresh "$r"
	in_root "$r" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
		install -y -qq --no-install-recommends "$@" >/dev/null ||
		die "cannot install $* in $r"
}

# pkg_root RELEASE KVER [DEBARCH]: the package install test's user
# machine: RELEASE's minbase of DEBARCH (default amd64; another one's
# maintainer scripts run under qemu-user, tests/package/install-test)
# with linux-headers-KVER, the headers of the kernel it runs; made once,
# kept in the cache, and its path printed. tests/bin/prefetch makes it
# while the build stage compiles.
pkg_root() {
	local rel=$1 kver=$2 debarch=${3:-amd64} base
	if [ "$debarch" = amd64 ]; then
		base=$(make_root "$rel" "$ABPATH_CACHE/pkgroot-$rel" "the package install test") || exit
	else
		base=$(make_root "$rel" "$ABPATH_CACHE/pkgroot-$rel-$debarch" \
			"the $debarch package install test (under qemu-user)" "" "$debarch") || exit
	fi
	(
		flock 9
		[ -f "$base/usr/src/linux-headers-$kver/Makefile" ] && exit 0
		# apt install keeps what it downloads here, in the cache that
		# every run's overlay mounts.
		echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' \
			>"$base/etc/apt/apt.conf.d/90abpath-keep"
		root_install "$base" "linux-headers-$kver"
	) 9>"$base.lock" || exit
	echo "$base"
}

# stock_kernel NAME KVER: Debian's kernel KVER, ready to boot and build
# against, without building or installing a kernel; prints the headers'
# path (stock_headers). Its headers are
# installed where NAME's release builds (stock_headers); its image, the
# headers' version, is fetched and unpacked into stock_dir KVER, the
# host's /boot untouched. Debian lays images out three ways: 12's
# boot/vmlinuz-KVER and lib/modules/KVER in linux-image-KVER; 13's
# modules under usr/lib/modules; and from 7.x, linux-image-KVER only
# depends on linux-binary-KVER (usr/lib/modules/KVER/vmlinuz),
# linux-modules-KVER and linux-base-KVER (config, System.map, the module
# lists). Whatever came, the cache holds boot/vmlinuz-KVER,
# boot/config-KVER and lib/modules/KVER.
stock_kernel() {
	local name=$1 kver=$2 r dir ver kb q=
	r=$(stock_root "$name") || exit
	kb=$(stock_headers "$name" "$kver") || exit
	dir=$(stock_dir "$kver")
	[ "$(flavour_arch "$(stock_canon "$name")")" = x86 ] || q=:arm64
	# The image must be the headers' version: Module.symvers there holds
	# the symbol CRCs the module is built with and the kernel checks.
	ver=$(stock_headers_version "$r" "$kver")
	[ -n "$ver" ] || die "no linux-headers-$kver in ${r:-the host}"
	[ "$(cat "$dir/.abpath-version" 2>/dev/null)" = "$ver" ] && { echo "$kb"; return 0; }
	mkdir -p "$ABPATH_CACHE"
	(
		# Two runs may fetch at once (two clones share the cache).
		flock 9
		[ "$(cat "$dir/.abpath-version" 2>/dev/null)" = "$ver" ] && exit 0
		stage "Debian's kernel image $kver ($ver) into $dir"
		tmp=$(mktemp -d "$dir.tmp.XXXXXX")
		dl=$(root_tmpdir "$r") || exit
		trap 'rm -rf "$tmp" "$dl"' EXIT
		pkgs=("linux-image-$kver$q=$ver")
		for p in $(in_root "$r" apt-cache depends "linux-image-$kver$q=$ver" |
			sed -n "s/^ *Depends: \(linux-\(binary\|modules\|base\)-$kver\)$q\$/\1/p"); do
			pkgs+=("$p$q=$ver")
		done
		root_download "$r" "$dl" "${pkgs[@]}" || die "cannot download ${pkgs[*]}"
		for d in "$dl"/*.deb; do dpkg-deb -x "$d" "$tmp/root"; done
		stock_layout "$tmp/root" "$kver" || exit
		# The package leaves modules.dep to its postinst; the initramfs
		# resolves module dependencies from it.
		depmod -b "$tmp/root" "$kver"
		echo "$ver" >"$tmp/root/.abpath-version"
		rm -rf "$dir"
		mv "$tmp/root" "$dir"
	) 9>"$dir.lock" || exit
	echo "$kb"
}

# stock_layout ROOT KVER: an unpacked image in the one layout the VM
# harness reads.
stock_layout() {
	local t=$1 k=$2 f
	if [ -d "$t/usr/lib/modules/$k" ] && [ ! -d "$t/lib/modules/$k" ]; then
		mkdir -p "$t/lib/modules"
		mv "$t/usr/lib/modules/$k" "$t/lib/modules/$k"
	fi
	mkdir -p "$t/boot"
	for f in vmlinuz config System.map; do
		[ -f "$t/boot/$f-$k" ] || [ ! -f "$t/lib/modules/$k/$f" ] ||
			cp "$t/lib/modules/$k/$f" "$t/boot/$f-$k"
	done
	[ -f "$t/boot/vmlinuz-$k" ] && [ -f "$t/boot/config-$k" ] &&
		[ -f "$t/lib/modules/$k/modules.order" ] ||
		die "Debian's image packages for $k hold no vmlinuz, config or modules.order where abpath looks (boot/, lib/modules/$k/, usr/lib/modules/$k/)"
}

# kmake SRC BUILD ARGS...: make in a kernel tree, for kmake_arch (default x86,
# the host's; build-kernel sets it from the flavour).
kmake() {
	local src=$1 build=$2 x
	shift 2
	x=$(cross_prefix "${kmake_arch:-x86}") || exit
	make -C "$src" O="$build" $(arch_make_args "${kmake_arch:-x86}") CC="ccache ${x}gcc" \
		KBUILD_BUILD_TIMESTAMP=abpath KBUILD_BUILD_USER=abpath KBUILD_BUILD_HOST=abpath "$@"
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

# need_qemu_arch ARCH: QEMU for another architecture, the version of the
# QEMU installed (need_qemu): their packages share qemu-system-common,
# and bookworm's 7.2 beside backports' 10.0 would replace the x86 one.
need_qemu_arch() {
	local pkg v
	case $1 in
	arm64) pkg=qemu-system-arm ;;
	*) die "no QEMU for architecture '$1'" ;;
	esac
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' && return 0
	need_qemu || true
	v=$(dpkg-query -W -f='${Version}' qemu-system-common)
	info "installing $pkg $v"
	[ "$(id -u)" -eq 0 ] || die "need root to install: $pkg"
	apt_get install -y -qq --no-install-recommends "$pkg=$v" >/dev/null ||
		die "cannot install $pkg $v, the version of qemu-system-common"
}
