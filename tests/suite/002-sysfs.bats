#!/usr/bin/env bats
# /sys/kernel/abpath: formats, valid writes, and every kind of bad write
# failing with EINVAL while nothing changes.

load helper

setup() {
	common_setup
}

@test "version, mode and every path's mode read in the documented format" {
	run -0 cat "$SYS/version"
	assert_output --regexp '^[0-9]+\.[0-9]+\.[0-9]+$'
	run -0 cat "$SYS/mode"
	assert_output optimized
	for p in "${PATHS[@]}"; do
		run -0 cat "$SYS/$p/mode"
		assert_output "legacy [optimized]"
	done
}

@test "one directory per path of the module's table, and no other" {
	local d dirs=()
	for d in "$SYS"/*/; do
		d=${d%/}
		dirs+=("${d##*/}")
	done
	assert_equal "$(printf '%s\n' "${dirs[@]}" | sort)" "$(printf '%s\n' "${PATHS[@]}" | sort)"
}

@test "permissions: modes 0644, version, backend, resolution and sites 0444, reset 0200" {
	run -0 stat -c '%a %n' "$SYS/mode" "$SYS/version" "$SYS/backend" \
		"$SYS/resolution" "$SYS/reset" "$SYS"/*/mode "$SYS"/*/site
	assert_line "644 $SYS/mode"
	assert_line "444 $SYS/version"
	assert_line "444 $SYS/backend"
	assert_line "444 $SYS/resolution"
	assert_line "200 $SYS/reset"
	for p in "${PATHS[@]}"; do
		assert_line "644 $SYS/$p/mode"
		assert_line "444 $SYS/$p/site"
	done
}

@test "backend names how the paths are attached, and each path its site" {
	run -0 cat "$SYS/backend"
	assert_output "$BACKEND"
	# The hook patch exports what it needs; the stock backend on x86-64
	# reaches the rest through livepatch relocations (module/ksym.h).
	run -0 cat "$SYS/resolution"
	case $BACKEND/$(uname -m) in
	patched/*) assert_output exports ;;
	stock/x86_64) assert_output livepatch ;;
	stock/aarch64) assert_output kallsyms ;;
	*) fail "no resolution known for the $BACKEND backend on $(uname -m)" ;;
	esac
	for p in "${PATHS[@]}"; do
		run -0 cat "$SYS/$p/site"
		assert_output --regexp '^[a-z_]+\(\)'
		assert_equal "${#lines[@]}" 1
	done
	run -0 cat "$SYS/exit_reparent/site"
	assert_output --partial 'read_lock(tasklist_lock)'
}

@test "optimized is accepted with and without one trailing newline" {
	for f in "$SYS/mode" "$SYS"/*/mode; do
		run -0 write_file "$f" 'optimized'
		run -0 write_file "$f" 'optimized\n'
	done
	run -0 cat "$SYS/mode"
	assert_output optimized
}

@test "each path switches alone, and the global mode shows mixed" {
	for p in "${PATHS[@]}"; do
		run -0 write_file "$SYS/$p/mode" 'legacy\n'
		run -0 cat "$SYS/$p/mode"
		assert_output "[legacy] optimized"
		for q in "${PATHS[@]}"; do
			[ "$q" = "$p" ] || expect "$(active_mode "$q")" = optimized "$q with $p legacy"
		done
		run -0 cat "$SYS/mode"
		assert_output mixed
		run -0 write_file "$SYS/$p/mode" 'optimized'
		run -0 cat "$SYS/$p/mode"
		assert_output "legacy [optimized]"
	done
}

@test "the global mode sets every path" {
	run -0 write_file "$SYS/mode" 'legacy'
	for p in "${PATHS[@]}"; do
		expect "$(active_mode "$p")" = legacy "$p after global legacy"
	done
	run -0 cat "$SYS/mode"
	assert_output legacy
	run -0 write_file "$SYS/mode" 'optimized\n'
	for p in "${PATHS[@]}"; do
		expect "$(active_mode "$p")" = optimized "$p after global optimized"
	done
}

bad_writes=(
	'\n'			# empty line, what "echo >" writes
	'LEGACY'
	'Optimized'
	'legacy x'
	'optimized x'
	'optimized\n\n'
	' optimized'
	'optimize'
	'optimizedx'
	'1'
	'0'
	'legacy\0optimized'
)

@test "bad writes fail with EINVAL and change nothing" {
	junk=$(printf 'x%.0s' {1..4096})
	# A mixed state, so "unchanged" is not just "still the default".
	write_file "$SYS/timer_softirq/mode" legacy
	for f in "$SYS/mode" "$SYS"/*/mode; do
		before=$(cat "$f")
		for w in "${bad_writes[@]}" "$junk"; do
			run ! write_file "$f" "$w"
			assert_output --partial "Invalid argument"
			expect "$(cat "$f")" = "$before" "$f after writing '$w'"
		done
	done
}

@test "version is read-only" {
	run ! write_file "$SYS/version" '9.9.9'
	run -0 cat "$SYS/version"
	assert_output "$(cat /abpath/VERSION)"
}

@test "a non-root user can read the modes but not write them" {
	run -0 as_nobody cat "$SYS/mode"
	assert_output optimized
	for f in "$SYS/mode" "$SYS"/*/mode; do
		run ! as_nobody sh -c "echo optimized > $f"
		assert_output --partial "Permission denied"
	done
}

@test "debugfs is root-only" {
	run ! as_nobody cat "$DBG/stats"
	run ! as_nobody sh -c "echo 1 > $DBG/reset"
}
