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

# refused [-u] [-n COUNT] FILE ERROR WORD...: one sysfs-write process writes
# every WORD to FILE (COUNT times each), each through its own open(2) (-u:
# as nobody); every write must fail with ERROR. A process per word cost
# 140 s of the stock suite under TCG; the writes themselves are what the
# kernel sees either way.
refused() {
	local as=() n=1
	[ "$1" != -u ] || { as=(as_nobody); shift; }
	[ "$1" != -n ] || { n=$2; shift 2; }
	local f=$1 err=$2
	shift 2
	local writes=$(($# * n))
	run ! "${as[@]}" "$T/sysfs-write" -n "$n" -- "$f" "$@"
	expect "$(grep -c ": $err\$" <<<"$output")" -eq "$writes" \
		"writes to $f refused with $err, of $writes (sysfs-write printed: $output)"
	expect "${#lines[@]}" -eq "$writes" "lines sysfs-write printed for $writes writes to $f"
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
		refused "$f" "Invalid argument" "${bad[@]}"
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
		# kernfs hands over the first page only; it is never a valid word.
		refused "$f" "Invalid argument" "$page" "${page}legacy" "legacy${page}"
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
	# Every bad word but '1', which is reset's one valid word.
	not_one=('2' '11' '1 ' ' 1' '1\n\n' '01')
	for w in "${bad[@]}"; do [ "$w" = 1 ] || not_one+=("$w"); done
	refused "$DBG/reset" "Invalid argument" "${not_one[@]}"
	refused "$SYS/reset" "Invalid argument" "${not_one[@]}"
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
	# Junk goes on for as long as the other writer flips, and at least
	# 100 times to each file: a batch of 20 per file per round.
	rounds=0
	while [ "$rounds" -lt 5 ] || kill -0 "$other" 2>/dev/null; do
		for f in "$SYS/mode" "$SYS/exit_reparent/mode"; do
			refused -n 20 "$f" "Invalid argument" legacyx
		done
		rounds=$((rounds + 1))
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
		refused -u "$f" "Permission denied" legacy optimized
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
