#!/usr/bin/env bats
# An interrupted bench and what it leaves (#53): its own result, really
# stopped by a signal half way, read back by --from and --pool; files
# that are not a result, each refused with an error naming it; and the
# files abpath writes, each whole or as it was, however a signal falls.
# Against the fake tree and workload of cli-bench-002.bats.

load cli-helper

setup() {
	bench_setup
}

# interrupted_result FILE: the issue's bench, a command of 10 runs per
# mode and a warm-up, stopped by SIGINT in run 8 of 22: 7 runs made, 2
# warm-ups, then legacy, optimized, optimized, legacy, legacy (ABBA).
interrupted_result() {
	local err=$BATS_TEST_TMPDIR/interrupted.err pid status=0 i
	"$ABPATH" bench --path exit_reparent --runs 10 --warmup 1 \
		--export-json "$1" -- sh -c 'sleep 0.1' >/dev/null 2>"$err" 3>&- &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q 'run 8 of 22' "$err" && break
		sleep 0.05
	done
	kill -INT "$pid"
	wait "$pid" || status=$?
	[ "$status" -eq 130 ] || fail "the bench exited with $status, not 130: $(cat "$err")"
	grep -q 'interrupted by SIGINT in run 8 of 22' "$err" || fail "$(cat "$err")"
	run -0 jq -c '[.complete, (.samples | length), .runs_per_mode, .warmup_per_mode]' "$1"
	assert_output '[false,7,10,1]'
}

@test "an interrupted bench's own file: --from and --pool report the runs it has" {
	# Not $i: bats-assert's loops set it.
	local int=$BATS_TEST_TMPDIR/i.json whole=$BATS_TEST_TMPDIR/a.json
	local held='after 7 of 22 runs: it holds 3 legacy and 2 optimized measured runs of the 10 per mode planned, and 2 warm-ups'
	interrupted_result "$int"
	run -0 --separate-stderr "$ABPATH" bench --from "$int"
	assert_line --regexp '^complete: +no$'
	assert_line --regexp "^interrupted: +$held\$"
	assert_equal "$(grep -cE '^ +[0-9]+ +(legacy|optimized) +(yes|no) ' <<<"$output")" 7
	assert_line --regexp '^  n +3 +2$'
	run -0 --separate-stderr "$ABPATH" bench --from "$int" -j
	run -0 jq -c '[.complete, .interrupted, (.samples | length)]' <<<"$output"
	assert_output "[false,\"$held\",7]"
	run -0 --separate-stderr "$ABPATH" bench --from "$int" --export-markdown -
	assert_line --partial "; incomplete: interrupted $held"

	# A whole bench of the same command, as from another host: named
	# so, or one that starts in the second the other ended would be the
	# same run twice to --pool (same host, kernel and time).
	"$ABPATH" bench -j --path exit_reparent --runs 2 --warmup 0 \
		-- sh -c 'sleep 0.1' 2>/dev/null | jq '.provenance.host = "other"' >"$whole"
	run -0 --separate-stderr "$ABPATH" bench --pool --from "$whole" --from "$int"
	assert_equal "$stderr" "abpath: warning: $int: an interrupted bench (\"complete\": false), pooled with the runs it has: $held"
	assert_line --regexp '^  i +.* +3 +2 +no +'
	assert_line --regexp '^  verdict: .*; interrupted, pooled with the runs it has: i$'
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "$whole" --from "$int"
	run -0 jq -c '[.hosts[] | [.host, .complete, .n_legacy, .n_optimized]]' <<<"$output"
	assert_output '[["a",true,2,2],["i",false,3,2]]'
}

# not_a_result FILE MESSAGE: --from and --pool refuse FILE with exit 1,
# MESSAGE the whole of stderr, nothing on stdout and nothing written.
not_a_result() {
	local d=$BATS_TEST_TMPDIR/out before
	mkdir -p "$d"
	echo previous >"$d/e.json"
	before=$(ls -A "$d")
	run -1 --separate-stderr "$ABPATH" bench --from "$1" \
		--export-json "$d/e.json" --export-markdown "$d/e.md"
	assert_equal "$stderr" "abpath: error: $2"
	assert_equal "$output" ''
	assert_equal "$(ls -A "$d")" "$before"
	assert_equal "$(cat "$d/e.json")" previous
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$GOOD" --from "$1" \
		--export-markdown "$d/e.md"
	assert_equal "$stderr" "abpath: error: $2"
	assert_equal "$output" ''
	assert_equal "$(ls -A "$d")" "$before"
}

@test "--from: a directory, an empty, truncated, binary or foreign file: an error naming it" {
	local t=$BATS_TEST_TMPDIR size
	GOOD=$t/good.json
	"$ABPATH" bench forkexit --runs 2 --warmup 0 --export-json "$GOOD" >/dev/null 2>&1
	size=$(wc -c <"$GOOD")
	((size > 4096)) || fail "$GOOD has $size bytes: too few to cut at 4096"
	mkdir "$t/dir"
	not_a_result "$t/dir" "$t/dir is a directory, not a result file (abpath bench -j, or a suite's history.json)"
	: >"$t/empty.json"
	not_a_result "$t/empty.json" "$t/empty.json: an empty file, not an abpath result"
	printf ' \n\n' >"$t/blank.json"
	not_a_result "$t/blank.json" "$t/blank.json: an empty file, not an abpath result"
	# Cut at a page, as a torn write left it.
	head -c 4096 "$GOOD" >"$t/cut.json"
	size=$(wc -l <"$t/cut.json")
	not_a_result "$t/cut.json" "$t/cut.json: truncated: its JSON stops unfinished at byte 4096 (line $((size + 1)))"
	# Valid JSON, another program's.
	echo '{"name": "left-pad", "version": "1.3.0", "dependencies": {}}' >"$t/package.json"
	not_a_result "$t/package.json" "$t/package.json: not an abpath bench result: neither \"samples\" (abpath bench -j) nor \"experiments\" or \"points\" (abpath bench --suite)"
	echo '[1, 2, 3]' >"$t/array.json"
	not_a_result "$t/array.json" "$t/array.json: not an abpath bench result: not a JSON object"
	# Binary: a program, a gzipped result, an image's first bytes.
	head -c 65536 "$ABPATH" >"$t/elf"
	not_a_result "$t/elf" "$t/elf: not an abpath result: a binary file, not JSON text"
	gzip -c "$GOOD" >"$t/good.json.gz"
	not_a_result "$t/good.json.gz" "$t/good.json.gz: not an abpath result: a binary file, not JSON text"
	printf '\x89PNG\r\n\x1a\n' >"$t/image.png"
	not_a_result "$t/image.png" "$t/image.png: not an abpath result: a binary file, not JSON text (line 1: unable to decode byte 0x89)"
	# Text that is not JSON, and JSON with more after it.
	printf 'host01 legacy 1 2 3\n' >"$t/text.json"
	not_a_result "$t/text.json" "$t/text.json: not an abpath result: not JSON, line 1: '[' or '{' expected near 'host'"
	printf '{"samples": []} {}\n' >"$t/two.json"
	not_a_result "$t/two.json" "$t/two.json: not an abpath result: not JSON, line 1: end of file expected near '{'"
	not_a_result "$t/none.json" "cannot read $t/none.json: No such file or directory"
	not_a_result /dev/null "/dev/null: an empty file, not an abpath result"
	# An endless stream of NULs: refused at the first, not read to the end.
	not_a_result /dev/zero "/dev/zero: not an abpath result: a binary file, not JSON text"
	# Standard input, named as such.
	run -1 --separate-stderr "$ABPATH" bench --from - </dev/null
	assert_equal "$stderr" "abpath: error: standard input: an empty file, not an abpath result"
}

@test "--from and --pool read nothing past an end, and free what they read (valgrind)" {
	command -v valgrind >/dev/null || fail "no valgrind: tests/bin/deps.sh host installs it"
	local t=$BATS_TEST_TMPDIR f vg=(valgrind -q --error-exitcode=99 --leak-check=no)
	# Against build/asan (ABPATH_SANITIZED), ASan checks the same reads,
	# and valgrind cannot run a binary built with it.
	[ "${ABPATH_SANITIZED:-0}" = 0 ] || vg=()
	interrupted_result "$t/i.json"
	# Another host's, in the same second as far as the provenance goes.
	"$ABPATH" bench -j --path exit_reparent --runs 2 --warmup 0 -- sh -c 'sleep 0.1' 2>/dev/null |
		jq '.provenance.host = "other"' >"$t/a.json"
	run -0 --separate-stderr "${vg[@]}" "$ABPATH" bench --from "$t/i.json"
	run -0 --separate-stderr "${vg[@]}" "$ABPATH" bench --pool --from "$t/a.json" --from "$t/i.json"
	mkdir "$t/dir"
	: >"$t/empty"
	head -c 3000 "$t/i.json" >"$t/cut"
	head -c 8192 "$ABPATH" >"$t/elf"
	echo '{"version": 1}' >"$t/other"
	for f in dir empty cut elf other; do
		run -1 --separate-stderr "${vg[@]}" "$ABPATH" bench --from "$t/$f"
	done
	run -1 --separate-stderr "${vg[@]}" "$ABPATH" bench --pool --from "$t/a.json" --from "$t/cut"
}

# temporaries_in DIR: the names a write in DIR left half done, if any.
temporaries_in() {
	find "$1" -maxdepth 1 -name '.*.??????' -printf '%f\n'
}

@test "a file written replaces the old one whole: its mode, a symlink's target, devices, a failed write" {
	local t=$BATS_TEST_TMPDIR r=$BATS_TEST_TMPDIR/r.json
	"$ABPATH" bench forkexit --runs 4 --warmup 0 --export-json "$r" >/dev/null 2>&1
	echo old >"$t/out.json"
	chmod 640 "$t/out.json"
	mkdir "$t/real"
	echo old >"$t/real/target.md"
	ln -s real/target.md "$t/link.md"
	run -0 --separate-stderr "$ABPATH" bench --from "$r" --export-json "$t/out.json" \
		--export-markdown "$t/link.md" --export-csv "$t/new.csv"
	cmp "$r" "$t/out.json" || fail "out.json is not the result again: $(cat "$t/out.json")"
	assert_equal "$(stat -c %a "$t/out.json")" 640
	[[ -L $t/link.md ]] || fail "link.md is no longer a symlink"
	run -0 head -1 "$t/real/target.md"
	assert_output --partial '`forkexit`, path exit_reparent'
	assert_equal "$(stat -c %a "$t/new.csv")" "$(printf '%o' $((0666 & ~$(umask))))"
	# Not a regular file: written to, never replaced.
	run -0 --separate-stderr "$ABPATH" bench --from "$r" --export-json /dev/null
	[[ -c /dev/null ]] || fail "/dev/null is no longer a device"
	run -0 --separate-stderr "$ABPATH" bench --from "$r" --export-csv /dev/stdout
	assert_line --regexp '^index,mode,warmup,fake_latency,'
	# Past the file size limit: the write fails, the old file stays.
	echo old >"$t/out.json"
	run -1 --separate-stderr bash -c 'trap "" XFSZ; ulimit -f 2; exec "$@"' _ \
		"$ABPATH" bench --from "$r" --export-json "$t/out.json"
	assert_equal "$stderr" "abpath: error: writing $t/out.json: File too large"
	assert_equal "$(cat "$t/out.json")" old
	assert_equal "$(temporaries_in "$t")" ''
	assert_equal "$(temporaries_in "$t/real")" ''
}

@test "a file is written beside its name first: a directory that takes none is an error" {
	local t=$BATS_TEST_TMPDIR r=$BATS_TEST_TMPDIR/r.json who=()
	"$ABPATH" bench forkexit --runs 4 --warmup 0 --export-json "$r" >/dev/null 2>&1
	mkdir "$t/ro"
	echo old >"$t/ro/out.json"
	chmod 666 "$t/ro/out.json"
	chmod 555 "$t/ro"
	# root writes anywhere: be nobody then.
	if ((EUID == 0)); then
		open_tmpdir_to_all
		chmod o+r "$r"
		who=(as_nobody)
	fi
	run -1 --separate-stderr "${who[@]}" "$ABPATH" bench --from "$r" --export-json "$t/ro/out.json"
	assert_equal "$stderr" "abpath: error: cannot write $t/ro/out.json: Permission denied (a temporary file beside it, renamed over it when whole)"
	assert_equal "$(cat "$t/ro/out.json")" old
	run -1 --separate-stderr "$ABPATH" bench --from "$r" --export-json "$t/none/out.json"
	assert_equal "$stderr" "abpath: error: cannot write $t/none/out.json: No such file or directory"
	run -1 --separate-stderr "$ABPATH" bench --from "$r" --export-json "$t/ro"
	assert_equal "$stderr" "abpath: error: cannot write $t/ro: Is a directory"
}

# A bench with every export, and a plot where gnuplot is installed.
EXPORTS=(--export-json r.json --export-markdown r.md --export-csv r.csv)

# whole_or_old DIR PREV STATUS: DIR's r.* are all PREV's (or absent where
# PREV has none: no run had finished), or all the whole new result's:
# r.json parses and --from gives the Markdown and CSV beside it again,
# byte for byte, and the plot is closed.  Counts the files in NEW or OLD,
# what the bench got to in EARLY (before a run had finished), CUT
# (between runs: an incomplete result), LATE (a whole bench, and the
# signal while it wrote its files, acted on after) and DONE (before the
# signal), and in BAD every file that is neither, each named; of them,
# NOJQ r.json that jq cannot parse and NOFROM those --from refuses.
whole_or_old() {
	local d=$1 prev=$2 status=$3 f files=(r.json r.md r.csv ${PLOT:+r.svg})
	if [[ -e $d/r.json ]] && ! cmp -s "$d/r.json" "$prev/r.json"; then
		NEW=$((NEW + ${#files[@]}))
		if ! jq -e '.samples | length > 0' "$d/r.json" >/dev/null 2>&1; then
			BAD=$((BAD + 1)) NOJQ=$((NOJQ + 1))
			echo "# $d: r.json is not JSON with samples (jq)" >&3
		elif ! (cd "$d" && exec "$ABPATH" bench --from r.json --export-json j2 \
			--export-markdown m2 --export-csv c2) >/dev/null 2>&1; then
			BAD=$((BAD + 1)) NOFROM=$((NOFROM + 1))
			echo "# $d: bench --from r.json fails" >&3
		elif ! cmp -s "$d/r.md" "$d/m2" || ! cmp -s "$d/r.csv" "$d/c2"; then
			BAD=$((BAD + 1))
			echo "# $d: r.md or r.csv is not r.json's" >&3
		fi
		if [[ -n $PLOT ]] && ! grep -q '</svg>' "$d/r.svg" 2>/dev/null; then
			BAD=$((BAD + 1))
			echo "# $d: r.svg is not whole" >&3
		fi
		if ((status == 0)); then
			DONE=$((DONE + 1))
		elif jq -e .complete "$d/r.json" >/dev/null; then
			LATE=$((LATE + 1))
		else
			CUT=$((CUT + 1))
		fi
	else
		EARLY=$((EARLY + 1))
		for f in "${files[@]}"; do
			[[ -e $d/$f ]] && OLD=$((OLD + 1))
			if ! cmp -s "$d/$f" "$prev/$f" && [[ -e $d/$f || -e $prev/$f ]]; then
				BAD=$((BAD + 1))
				echo "# $d: $f is neither the old one nor a new result's" >&3
			fi
		done
	fi
	if [[ -n $(temporaries_in "$d") ]]; then
		BAD=$((BAD + 1))
		echo "# $d: a temporary was left: $(temporaries_in "$d")" >&3
	fi
}

@test "a bench stopped at random moments leaves each file whole or as it was" {
	# ABPATH_INTERRUPTS=200 for a longer trial.
	local n=${ABPATH_INTERRUPTS:-20} k d t0 took ms sig status
	local sigs=(INT TERM HUP) prev=$BATS_TEST_TMPDIR/prev none=$BATS_TEST_TMPDIR/none
	PLOT=
	command -v gnuplot >/dev/null && PLOT=1
	NEW=0 OLD=0 BAD=0 NOJQ=0 NOFROM=0 EARLY=0 CUT=0 LATE=0 DONE=0
	# One whole bench: the old files, and how long a bench takes.
	mkdir "$prev" "$none"
	t0=$(date +%s%N)
	(cd "$prev" && "$ABPATH" bench forkexit --runs 2 --warmup 1 "${EXPORTS[@]}" \
		${PLOT:+--plot r.svg} >/dev/null 2>&1) || fail "the first bench failed"
	took=$((($(date +%s%N) - t0) / 1000000))
	for ((k = 1; k <= n; k++)); do
		d=$BATS_TEST_TMPDIR/run$k
		mkdir "$d"
		# Every other time over the files of an earlier bench.
		((k % 2)) && cp "$prev"/r.* "$d"
		rm -f "$STATE"/fake.*
		# Anywhere from before the first run to just past the end.
		ms=$((RANDOM * RANDOM % (took * 11 / 10 + 1)))
		sig=${sigs[RANDOM % 3]}
		(cd "$d" && exec "$ABPATH" bench forkexit --runs 2 --warmup 1 "${EXPORTS[@]}" \
			${PLOT:+--plot r.svg}) >/dev/null 2>"$d/err" 3>&- &
		sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
		kill -"$sig" $! 2>/dev/null || true
		status=0
		wait $! || status=$?
		case $status in
		0 | 129 | 130 | 143) ;;
		*) fail "run $k: SIG$sig after $ms ms: exit $status: $(cat "$d/err")" ;;
		esac
		rm -f "$d/err"
		whole_or_old "$d" "$( ((k % 2)) && echo "$prev" || echo "$none")" "$status"
	done
	echo "# $n signals over a $took ms bench: $EARLY before a run had finished, $CUT during the runs, $LATE while the files were written, $DONE after; $((NEW + OLD)) files left ($NEW new, $OLD old), $BAD neither whole nor as they were; of the new r.json, $NOJQ not JSON to jq, $NOFROM refused by --from" >&3
	assert_equal "$BAD" 0
}
