#!/usr/bin/env bats
# Every file abpath exposes, against every kind of bad write: each fails
# (EINVAL, or EACCES for the wrong user) and the state is unchanged.

load helper

setup() {
	common_setup
	# A mixed state, so "unchanged" is not just "still the default".
	write_file "$SYS/timer_fastpath/mode" legacy
}

mode_files() {
	echo "$SYS/mode"
	for p in "${PATHS[@]}"; do echo "$SYS/$p/mode"; done
}

state() {
	cat "$SYS/mode" "$SYS"/*/mode
}

# Each is a sysfs-write DATA argument (C escapes).
bad=(
	' ' '\n' '\t' '\n\n' ' \n'
	'legacy ' ' legacy' 'legacy\t' '\tlegacy' 'legacy\n\n' 'legacy\r\n' 'legacy\r'
	'Legacy' 'LEGACY' 'lEGACY' 'Optimized' 'OPTIMIZED'
	'l' 'leg' 'legac' 'o' 'optim' 'optimize'
	'legacyy' 'legacy1' 'optimizedx' 'optimized\\n' 'legacy optimized' 'legacy,optimized'
	'mixed' 'all' '1' '0' 'on' 'off' 'true' '-1'
	'legacy\0' 'leg\0acy' '\0legacy' '\xff\xfe' '\x01\x02legacy' 'legacy\x7f' '\xc3\xa9'
)

@test "mode files: malformed words, whitespace, case, prefixes, suffixes, binary" {
	before=$(state)
	while read -r f; do
		for w in "${bad[@]}"; do
			run ! "$T/sysfs-write" -- "$f" "$w"
			assert_output --partial "Invalid argument"
		done
		# A bad write that switched a mode would still show here.
		expect "$(state)" = "$before" "the modes after bad writes to $f"
	done < <(mode_files)
}

@test "a zero-length write is a no-op (kernfs answers 0 and never calls abpath)" {
	before=$(state)
	while read -r f; do
		run -0 "$T/sysfs-write" -- "$f" ''
	done < <(mode_files)
	expect "$(state)" = "$before" "the modes after zero-length writes"
}

@test "mode files: a page of junk, or more, is EINVAL" {
	before=$(state)
	page=$(printf 'x%.0s' {1..4096})
	while read -r f; do
		run ! "$T/sysfs-write" -- "$f" "$page"
		assert_output --partial "Invalid argument"
		# kernfs hands over the first page only; it is never a valid word.
		run ! "$T/sysfs-write" -- "$f" "${page}legacy"
		assert_output --partial "Invalid argument"
		run ! "$T/sysfs-write" -- "$f" "legacy${page}"
		assert_output --partial "Invalid argument"
	done < <(mode_files)
	expect "$(state)" = "$before" "the modes after writes of a page or more"
}

@test "read-only files refuse writes; reset takes only 1, debugfs's at offset 0" {
	before=$(state)
	for f in "$SYS/version" "$SYS/backend" "$SYS"/*/site "$DBG/stats" \
		"$DBG"/hist/*; do
		run ! "$T/sysfs-write" -- "$f" '1'
	done
	if [ "$BACKEND" = patched ]; then
		run ! "$T/sysfs-write" -- "$HOOKS" '1'
	fi
	for w in "${bad[@]}" '2' '11' '1 ' ' 1' '1\n\n' '01'; do
		[ "$w" = '1' ] && continue
		run ! "$T/sysfs-write" -- "$DBG/reset" "$w"
		assert_output --partial "Invalid argument"
		run ! "$T/sysfs-write" -- "$SYS/reset" "$w"
		assert_output --partial "Invalid argument"
	done
	run ! "$T/sysfs-write" -o 1 -- "$DBG/reset" '1'
	assert_output --partial "Invalid argument"
	expect "$(state)" = "$before" "the modes after writes to read-only files and reset"
	run -0 cat "$SYS/version"
	assert_output "$(cat /abpath/VERSION)"
}

@test "concurrent writers: valid flips race junk, every junk write fails, a valid state remains" {
	start_toggler exit_reparent
	(for _ in $(seq 300); do echo optimized >"$SYS/mode"; echo legacy >"$SYS/mode"; done) 2>/dev/null &
	other=$!
	for _ in $(seq 100); do
		for f in "$SYS/mode" "$SYS/exit_reparent/mode"; do
			run ! "$T/sysfs-write" -- "$f" 'legacyx'
			assert_output --partial "Invalid argument"
		done
	done
	wait "$other"
	stop_toggler
	run -0 cat "$SYS/mode"
	assert_output --regexp '^(legacy|optimized|mixed)$'
	for p in "${PATHS[@]}"; do
		run -0 cat "$SYS/$p/mode"
		assert_output --regexp '^(\[legacy\] optimized|legacy \[optimized\])$'
	done
}

@test "as nobody: every write is denied and debugfs is unreadable" {
	before=$(state)
	while read -r f; do
		for w in legacy optimized; do
			run ! as_nobody "$T/sysfs-write" -- "$f" "$w"
			assert_output --partial "Permission denied"
		done
	done < <(mode_files)
	run ! as_nobody "$T/sysfs-write" -- "$DBG/reset" 1
	run ! as_nobody "$T/sysfs-write" -- "$SYS/reset" 1
	assert_output --partial "Permission denied"
	run ! as_nobody "$T/sysfs-write" -- "$DBG/inject" exit_reparent
	expect "$(cat "$DBG/inject")" = "$(printf '%s 0\n' group_cputime timer_fastpath exit_reparent)" "debugfs inject after a write as nobody"
	for f in "$DBG/stats" "$DBG"/hist/* "$DBG/reset" "$DBG/inject" "$HOOKS"; do
		run ! as_nobody cat "$f"
	done
	expect "$(state)" = "$before" "the modes after writes as nobody"
}
