#!/usr/bin/env bats
# abpath's Debian packages (debian/, make deb): dpkg-buildpackage and
# lintian clean, one version everywhere, each package holding what it
# should and nothing else, and README's install block naming what make deb
# builds. tests/package/install-test installs them for real.
#
# Its RPM packages (rpm/abpath.spec, make rpm), built beside the .debs
# they are compared with: rpmlint clean, one version, DKMS scriptlets, the
# same payload. No RPM distribution is reachable here to install them on.

load ../suite/last-run

TOP=$BATS_TEST_DIRNAME/../..

setup_file() {
	export DEBS=$BATS_FILE_TMPDIR/deb
	"$TOP/tests/package/build" "$DEBS" >/dev/null 2>"$BATS_FILE_TMPDIR/build.err" ||
		{ cat "$BATS_FILE_TMPDIR/build.err" >&3; return 1; }
	export VER
	VER=$(cat "$TOP/VERSION")
	# The RPM tests say why when this fails; the .deb tests still run.
	export RPMS=$BATS_FILE_TMPDIR/rpm RPM_ERR=$BATS_FILE_TMPDIR/rpm.err
	"$TOP/tests/package/build-rpm" "$RPMS" >/dev/null 2>"$RPM_ERR" &&
		rm -f "$RPM_ERR"
	local rel arch
	rel=$(rpmspec -q --srpm --qf '%{RELEASE}' "$TOP/rpm/abpath.spec")
	arch=$(rpm --eval '%{_arch}')
	export DKMS_RPM=$RPMS/abpath-dkms-$VER-$rel.noarch.rpm
	export CLI_RPM=$RPMS/abpath-$VER-$rel.$arch.rpm
	export SRC_RPM=$RPMS/abpath-$VER-$rel.src.rpm
}

# rpms_built: fails with make rpm's errors when it failed.
rpms_built() {
	[ ! -e "$RPM_ERR" ] || fail "make rpm failed: $(cat "$RPM_ERR")"
}

# payload_deb DEB, payload_rpm RPM: "mode path" of each file that is no
# directory, sorted, without the documentation and licence paths, where
# Debian and RPM distributions differ by convention, and without RPM's
# /usr/lib/.build-id links to the package's own binaries (Debian keeps
# build ids in its -dbgsym package); the payload test checks where those
# links point.
payload_deb() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { p = $6; sub(/^\./, "", p); print $1, p }' |
		grep -Ev ' /usr/share/(doc|licenses)/' | sort
}
payload_rpm() {
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" | awk '$1 !~ /^d/' |
		grep -Ev ' /usr/share/(doc|licenses)/| /usr/lib/\.build-id/' | sort
}

@test "dpkg-buildpackage builds the source, abpath-dkms and abpath; lintian reports no error or warning" {
	for f in "abpath_$VER.dsc" "abpath_$VER.tar.xz" "abpath-dkms_${VER}_all.deb" "abpath_${VER}_amd64.deb"; do
		[ -s "$DEBS/$f" ] || fail "make deb left no $f"
	done
	run -1 grep -E '^[EW]: ' "$DEBS/lintian.log"
}

@test "one version: VERSION, debian/changelog, rpm/abpath.spec, dkms.conf, both packages, the command" {
	run -0 dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version
	assert_output "$VER"
	run -0 rpmspec -q --srpm --qf '%{VERSION}\n' "$TOP/rpm/abpath.spec"
	assert_output "$VER"
	# The spec's newest changelog entry is this version's.
	run -0 rpmspec -q --srpm --qf '%{CHANGELOGNAME}\n' "$TOP/rpm/abpath.spec"
	assert_output --regexp " - $VER-[^-]+$"
	run -0 bash -c "kernel_source_dir=/nonexistent; . '$TOP/dkms.conf'; echo \$PACKAGE_VERSION"
	assert_output "$VER"
	for p in "abpath-dkms_${VER}_all.deb" "abpath_${VER}_amd64.deb"; do
		run -0 dpkg-deb -f "$DEBS/$p" Version
		assert_output "$VER"
	done
	dpkg-deb -x "$DEBS/abpath_${VER}_amd64.deb" "$BATS_TEST_TMPDIR/x"
	run -0 "$BATS_TEST_TMPDIR/x/usr/bin/abpath" -V
	assert_output "abpath $VER"
	# DKMS registers the source under the same version.
	run -0 dpkg-deb -c "$DEBS/abpath-dkms_${VER}_all.deb"
	assert_line --regexp " \./usr/src/abpath-$VER/dkms\.conf$"
}

@test "abpath-dkms holds the module's source as git has it, and DKMS's maintainer scripts" {
	run -0 bash -c "dpkg-deb -c '$DEBS/abpath-dkms_${VER}_all.deb' | awk '\$1 !~ /^d/ { print \$6 }' |
		sed -n 's|^\./usr/src/abpath-$VER/||p' | sort"
	want=$(cd "$TOP" && { git ls-files module; echo Kbuild; echo VERSION; echo dkms.conf; } | sort)
	assert_output "$want"
	# The scripts DKMS needs to run stay executable.
	run -0 dpkg-deb -c "$DEBS/abpath-dkms_${VER}_all.deb"
	assert_line --regexp "^-rwxr-xr-x .* \./usr/src/abpath-$VER/module/build$"
	assert_line --regexp "^-rwxr-xr-x .* \./usr/src/abpath-$VER/module/klp-convert$"
	dpkg-deb -e "$DEBS/abpath-dkms_${VER}_all.deb" "$BATS_TEST_TMPDIR/ctl"
	run -0 cat "$BATS_TEST_TMPDIR/ctl/postinst" "$BATS_TEST_TMPDIR/ctl/prerm"
	assert_line DKMS_NAME=abpath
	assert_line "DKMS_VERSION=$VER"
	assert_output --partial 'dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all'
	run -0 dpkg-deb -f "$DEBS/abpath-dkms_${VER}_all.deb" Depends
	assert_output --regexp '(^|, )dkms \(>= [^)]+\)(,|$)'
}

@test "abpath holds the command, its workloads, the man pages and the completion, at /usr" {
	run -0 bash -c "dpkg-deb -c '$DEBS/abpath_${VER}_amd64.deb' | awk '\$1 !~ /^d/ { print \$6 }' | sort"
	assert_line ./usr/bin/abpath
	assert_line ./usr/share/man/man1/abpath.1.gz
	assert_line ./usr/share/man/man1/abpath-bench.1.gz
	assert_line ./usr/share/bash-completion/completions/abpath
	for w in "$TOP"/userspace/workloads/*.c; do
		w=$(basename "$w" .c)
		[ "$w" = wl ] || [ "$w" = pound ] && continue
		assert_line "./usr/libexec/abpath/$w"
	done
	refute_output --partial /usr/local
	# The command looks for its workloads where the package puts them.
	dpkg-deb -x "$DEBS/abpath_${VER}_amd64.deb" "$BATS_TEST_TMPDIR/x"
	run -0 grep -c /usr/libexec/abpath "$BATS_TEST_TMPDIR/x/usr/bin/abpath"
}

@test "README's install block installs exactly the packages make deb builds, within its first 40 lines" {
	run -0 sed -n '1,40p' "$TOP/README.md"
	assert_line --regexp '^apt install \./abpath-dkms_\*\.deb \./abpath_\*\.deb( |$)'
	assert_line --regexp '^mokutil --import /var/lib/dkms/mok\.pub( |$)'
	assert_line --regexp '^abpath status( |$)'
	assert_line --regexp '^abpath set '
	assert_line --regexp '^abpath bench .*-- '
	cd "$DEBS"
	run -0 bash -c 'echo ./abpath-dkms_*.deb ./abpath_*.deb'
	assert_output "./abpath-dkms_${VER}_all.deb ./abpath_${VER}_amd64.deb"
}

@test "rpmbuild -ta builds the source RPM, abpath-dkms and abpath from a tarball of the clone; rpmlint reports no error or warning" {
	rpms_built
	for f in "$SRC_RPM" "$DKMS_RPM" "$CLI_RPM"; do
		[ -s "$f" ] || fail "make rpm left no $(basename "$f") in $RPMS: $(ls "$RPMS")"
	done
	run -0 cat "$RPMS/rpmlint.log"
	assert_line --regexp '^ *3 packages and 1 specfiles checked; 0 errors, 0 warnings'
	run -0 rpm -qp --qf '%{ARCH}\n' "$DKMS_RPM"
	assert_output noarch
	# Every filter has its reason: a comment above it, or above the
	# filters of its group.
	run -0 awk '/^#/ { why = 1 } /^$/ { why = 0 } /^addFilter/ && !why' "$TOP/rpm/abpath.rpmlintrc"
	assert_output ''
}

@test "one version in the RPMs: the three packages, the module's source directory, the command" {
	rpms_built
	for p in "$SRC_RPM" "$DKMS_RPM" "$CLI_RPM"; do
		run -0 rpm -qp --qf '%{VERSION}\n' "$p"
		assert_output "$VER"
	done
	run -0 rpm -qlp "$DKMS_RPM"
	assert_line "/usr/src/abpath-$VER/dkms.conf"
	mkdir "$BATS_TEST_TMPDIR/x"
	rpm2cpio "$CLI_RPM" | (cd "$BATS_TEST_TMPDIR/x" && cpio -idm --quiet ./usr/bin/abpath)
	run -0 "$BATS_TEST_TMPDIR/x/usr/bin/abpath" -V
	assert_output "abpath $VER"
}

@test "abpath-dkms's scriptlets: add abpath to DKMS, build and install it for each kernel with a build tree, remove it" {
	rpms_built
	run -0 rpm -qp --scripts "$DKMS_RPM"
	assert_line 'postinstall scriptlet (using /bin/sh):'
	assert_line 'preuninstall scriptlet (using /bin/sh):'
	assert_line "dkms add -m abpath -v $VER --rpm_safe_upgrade || :"
	assert_line "dkms remove -m abpath -v $VER --all --rpm_safe_upgrade || :"
	# The name and version that Debian's maintainer scripts give DKMS.
	dpkg-deb -e "$DEBS/abpath-dkms_${VER}_all.deb" "$BATS_TEST_TMPDIR/ctl"
	run -0 cat "$BATS_TEST_TMPDIR/ctl/postinst"
	assert_line DKMS_NAME=abpath
	assert_line "DKMS_VERSION=$VER"

	# Run them with a dkms that logs its arguments, on kernels in a
	# private /lib/modules: one that builds, one with a build tree but
	# no headers in it, one whose build fails, one dkms.conf refuses
	# (exit 77), and one with no build tree.
	rpm -qp --qf '%{POSTIN}' "$DKMS_RPM" >"$BATS_TEST_TMPDIR/post"
	rpm -qp --qf '%{PREUN}' "$DKMS_RPM" >"$BATS_TEST_TMPDIR/preun"
	mkdir "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/dkms" <<'EOF'
#!/bin/sh
echo "dkms $*" >>"$DKMS_LOG"
if [ "$1" = build ]; then
	case $* in
	*" -k 6.0.4-fails") exit 10 ;;
	*" -k 6.0.77-refused") exit 77 ;;
	esac
fi
exit 0
EOF
	chmod +x "$BATS_TEST_TMPDIR/bin/dkms"
	log=$BATS_TEST_TMPDIR/dkms.log
	run -0 --separate-stderr unshare --mount --propagation private sh -ec '
		mount -t tmpfs abpath-test /lib/modules
		mkdir -p /lib/modules/6.0.1-ok/build/include /lib/modules/6.0.3-empty/build \
			/lib/modules/6.0.4-fails/build/include /lib/modules/6.0.77-refused/build/include \
			/lib/modules/6.0.9-nobuild/kernel
		PATH=$1:$PATH DKMS_LOG=$2 sh "$3"
		PATH=$1:$PATH DKMS_LOG=$2 sh "$4"' sh \
		"$BATS_TEST_TMPDIR/bin" "$log" "$BATS_TEST_TMPDIR/post" "$BATS_TEST_TMPDIR/preun"
	assert_output "abpath: DKMS skipped kernel 6.0.77-refused"
	assert_equal "$stderr" "abpath: DKMS could not build the module for kernel 6.0.4-fails (exit 10)"
	want="dkms add -m abpath -v $VER --rpm_safe_upgrade
dkms build -m abpath -v $VER -k 6.0.1-ok
dkms install -m abpath -v $VER -k 6.0.1-ok
dkms build -m abpath -v $VER -k 6.0.4-fails
dkms build -m abpath -v $VER -k 6.0.77-refused
dkms remove -m abpath -v $VER --all --rpm_safe_upgrade"
	assert_equal "$(cat "$log")" "$want"
}

@test "abpath-dkms and abpath carry the .debs' payload: the same files, the same modes, the same module source" {
	rpms_built
	local pair deb rpm
	for pair in "abpath-dkms_${VER}_all.deb $DKMS_RPM" "abpath_${VER}_amd64.deb $CLI_RPM"; do
		read -r deb rpm <<<"$pair"
		payload_deb "$DEBS/$deb" >"$BATS_TEST_TMPDIR/deb.list"
		payload_rpm "$rpm" >"$BATS_TEST_TMPDIR/rpm.list"
		[ -s "$BATS_TEST_TMPDIR/deb.list" ] || fail "$deb: no file outside the documentation"
		run diff -u --label "$deb" --label "$(basename "$rpm")" \
			"$BATS_TEST_TMPDIR/deb.list" "$BATS_TEST_TMPDIR/rpm.list"
		[ "$status" -eq 0 ] || fail "$deb and $(basename "$rpm") differ (mode path):
$output"
	done
	# Each build id link leads to an ELF file of the same package.
	local names link to bad=
	names=$(rpm -qlp "$CLI_RPM")
	while read -r link to; do
		[ -n "$to" ] || continue
		to=$(realpath -m "$(dirname "$link")/$to")
		grep -qx "$to" <<<"$names" || bad+=" $link->$to"
	done < <(rpm -qp --qf '[%{FILENAMES} %{FILELINKTOS}\n]' "$CLI_RPM" | grep '^/usr/lib/\.build-id/')
	[ -z "$bad" ] || fail "build id links to files the package does not hold:$bad"
	# The module's source byte for byte, but for the interpreter line
	# that the spec names without env.
	dpkg-deb -x "$DEBS/abpath-dkms_${VER}_all.deb" "$BATS_TEST_TMPDIR/deb"
	mkdir "$BATS_TEST_TMPDIR/rpm"
	rpm2cpio "$DKMS_RPM" | (cd "$BATS_TEST_TMPDIR/rpm" && cpio -idm --quiet)
	run -0 sed -n 1p "$BATS_TEST_TMPDIR/rpm/usr/src/abpath-$VER/module/klp-convert"
	assert_output '#!/usr/bin/python3'
	sed -i '1s|^#!/usr/bin/env python3$|#!/usr/bin/python3|' \
		"$BATS_TEST_TMPDIR/deb/usr/src/abpath-$VER/module/klp-convert"
	run diff -r "$BATS_TEST_TMPDIR/deb/usr/src" "$BATS_TEST_TMPDIR/rpm/usr/src"
	[ "$status" -eq 0 ] || fail "the module's source differs between the .deb and the RPM: $output"
	# Each RPM carries the licence where RPM distributions put it.
	run -0 rpm -qlp "$DKMS_RPM"
	assert_line --regexp '^/usr/share/licenses/abpath-dkms[^/]*/COPYING$'
	run -0 rpm -qlp "$CLI_RPM"
	assert_line --regexp '^/usr/share/licenses/abpath(-[0-9][^/]*)?/COPYING$'
}
