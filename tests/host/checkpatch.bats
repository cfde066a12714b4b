#!/usr/bin/env bats
# The module and the hook patches pass the kernel's own style check,
# scripts/checkpatch.pl --strict, from the kernel source the build stage
# unpacks. Each whole .patch file goes in on standard input: given its
# name inside a git checkout, checkpatch would take a tracked file for a
# source file and read every empty context line as trailing whitespace.

bats_require_minimum_version 1.5.0

setup_file() {
	CHECKPATCH=${ABPATH_CACHE:-/var/cache/abpath}/linux-6.12/scripts/checkpatch.pl
	export CHECKPATCH
}

setup() {
	[ -f "$CHECKPATCH" ] ||
		skip "no kernel source at $CHECKPATCH: make kernel (or make check's build stage) unpacks it"
	TOP=$BATS_TEST_DIRNAME/../..
}

# clean OUTPUT-OF-CHECKPATCH: its totals line says nothing at all.
clean() {
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$1"; then
		echo "$1" | grep -E '^(ERROR|WARNING|CHECK|total):|^#' | head -20
		return 1
	fi
}

@test "checkpatch --strict: every file under module/ is clean" {
	local f out bad=0
	for f in "$TOP"/module/*.c "$TOP"/module/*.h; do
		out=$(perl "$CHECKPATCH" --strict --no-tree -f "$f" 2>&1)
		clean "$out" || { echo "in ${f#"$TOP"/}"; bad=1; }
	done
	[ "$bad" = 0 ]
}

@test "checkpatch --strict: each hook patch, read whole as a patch, is clean" {
	local p out bad=0 n=0
	for p in "$TOP"/patches/linux-*/*.patch; do
		n=$((n + 1))
		out=$(perl "$CHECKPATCH" --strict --no-tree - <"$p" 2>&1)
		clean "$out" || { echo "in ${p#"$TOP"/}"; bad=1; }
	done
	[ "$n" -ge 3 ] || { echo "only $n patches found"; false; }
	[ "$bad" = 0 ]
}

@test "checkpatch --strict: the check itself fails on a style error" {
	printf 'int f(void){return 0;}\n' >"$BATS_TEST_TMPDIR/bad.c"
	run perl "$CHECKPATCH" --strict --no-tree -f "$BATS_TEST_TMPDIR/bad.c"
	run ! clean "$output"
}
