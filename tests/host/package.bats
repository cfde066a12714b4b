#!/usr/bin/env bats
# abpath's Debian packages (debian/, make deb): dpkg-buildpackage and
# lintian clean, one version everywhere, each package holding what it
# should and nothing else, and README's install block naming what make deb
# builds. tests/package/install-test installs them for real.

load ../suite/last-run

TOP=$BATS_TEST_DIRNAME/../..

setup_file() {
	export DEBS=$BATS_FILE_TMPDIR/deb
	"$TOP/tests/package/build" "$DEBS" >/dev/null 2>"$BATS_FILE_TMPDIR/build.err" ||
		{ cat "$BATS_FILE_TMPDIR/build.err" >&3; return 1; }
	export VER
	VER=$(cat "$TOP/VERSION")
}

@test "dpkg-buildpackage builds the source, abpath-dkms and abpath; lintian reports no error or warning" {
	for f in "abpath_$VER.dsc" "abpath_$VER.tar.xz" "abpath-dkms_${VER}_all.deb" "abpath_${VER}_amd64.deb"; do
		[ -s "$DEBS/$f" ] || fail "make deb left no $f"
	done
	run -1 grep -E '^[EW]: ' "$DEBS/lintian.log"
}

@test "one version: VERSION, debian/changelog, dkms.conf, both packages, the command" {
	run -0 dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version
	assert_output "$VER"
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

@test "abpath holds the command, its workloads, the man page and the completion, at /usr" {
	run -0 bash -c "dpkg-deb -c '$DEBS/abpath_${VER}_amd64.deb' | awk '\$1 !~ /^d/ { print \$6 }' | sort"
	assert_line ./usr/bin/abpath
	assert_line ./usr/share/man/man1/abpath.1.gz
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
