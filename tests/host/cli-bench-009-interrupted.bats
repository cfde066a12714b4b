#!/usr/bin/env bats
# An interrupted bench and what it leaves (#53): its own result, really
# stopped by a signal half way, read back by --from and --pool; files
# that are not a result, each refused with an error naming it; and the
# files abpath writes, each whole or as it was, however a signal falls.
# Against the fake tree and workload of cli-bench-002.bats.

load cli-helper

setup() {
	cli_setup
	fake_module
	fake_bench_tree
	STATE=$FAKE/sys/kernel/debug
	unset FAKE_PATH
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

	# A whole bench of the same command, as from another host.
	"$ABPATH" bench --path exit_reparent --runs 2 --warmup 0 \
		--export-json "$whole" -- sh -c 'sleep 0.1' >/dev/null 2>&1
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
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	local t=$BATS_TEST_TMPDIR f vg=(valgrind -q --error-exitcode=99 --leak-check=no)
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
