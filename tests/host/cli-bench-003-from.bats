#!/usr/bin/env bats
# abpath bench --from FILE: a result saved with 'abpath bench -j' gives the
# same report again, text or JSON, and its plot, without running anything
# and without the module.  The bench itself runs against the fake tree
# with the fake workload of cli-bench-002.bats (cli-bench-workload.sh).

load cli-helper

setup() {
	bench_setup
	SAVED=$BATS_TEST_TMPDIR/saved.json
}

# The fake workload's values depend on how often it ran: start over.
forget_runs() {
	rm -f "$STATE"/fake.*
}

# A report without its provenance: two runs differ there only.
without_provenance() {
	awk '/^provenance:/ { skip = 1; next } skip && /^  / { next } { skip = 0; print }' <<<"$1"
}

# The provenance --from must print for the saved file.
assert_provenance_of() {
	local k v
	for k in abpath_version kernel cpus host time; do
		v=$(jq -r ".provenance.$k" "$1" | sed 's/[][().*^$+?{}|\\]/\\&/g')
		assert_line --regexp "^  $k: +$v\$"
	done
}

# The fake module and workloads go away: --from must not need them.
remove_module() {
	forget_runs
	rm -rf "$ABPATH_SYSFS" "$ABPATH_DEBUGFS" "$ABPATH_WORKLOAD_DIR"
}

@test "bench --from: the text report of a saved result is the bench's own" {
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 4 -- --scale 3
	local report=$output
	forget_runs
	"$ABPATH" bench -j forkexit --runs 4 -- --scale 3 >"$SAVED" 2>/dev/null
	remove_module
	run -0 --separate-stderr "$ABPATH" bench --from "$SAVED"
	assert_equal "$(without_provenance "$output")" "$(without_provenance "$report")"
	assert_provenance_of "$SAVED"
	assert_equal "$stderr" ''
	assert_line --regexp '^workload: +forkexit$'
	assert_line --regexp '^args: +--scale 3$'
	assert_line --regexp '^  verdict: +legacy is 2\.00x slower'
	[[ ! -e $STATE/fake.calls ]] || fail "--from ran the workload"
}

@test "bench --from -j: the saved JSON again, recomputed from the samples" {
	"$ABPATH" bench -j forkexit --runs 3 --warmup 2 >"$SAVED" 2>/dev/null
	remove_module
	run -0 --separate-stderr "$ABPATH" bench --from "$SAVED" -j
	assert_equal "$output" "$(cat "$SAVED")"
	# The global -j works too, and "-" reads standard input.
	run -0 --separate-stderr bash -c '"$1" -j bench --from - <"$2"' _ "$ABPATH" "$SAVED"
	assert_equal "$output" "$(cat "$SAVED")"
	# The summary is computed again, not copied: a doctored one is ignored.
	jq -c '.summary.ratio.value = 99 | .summary.verdict = "doctored"' "$SAVED" \
		>"$BATS_TEST_TMPDIR/doctored.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/doctored.json" -j
	assert_equal "$output" "$(cat "$SAVED")"
}

@test "bench --from: --path all and a counter reset survive the round trip" {
	export FAKE_PATH=timer_softirq
	cp "$BATS_TEST_DIRNAME/cli-bench-workload.sh" "$ABPATH_WORKLOAD_DIR/custom"
	run -0 --separate-stderr "$ABPATH" bench custom --path all --runs 2 --warmup 0 -- --reset-ns
	local report=$output
	forget_runs
	"$ABPATH" bench -j custom --path all --runs 2 --warmup 0 -- --reset-ns >"$SAVED" 2>/dev/null
	remove_module
	run -0 --separate-stderr "$ABPATH" bench --from "$SAVED"
	assert_equal "$(without_provenance "$output")" "$(without_provenance "$report")"
	assert_provenance_of "$SAVED"
	assert_line --regexp '^    timer_softirq$'
	run -0 --separate-stderr "$ABPATH" bench --from "$SAVED" -j
	assert_equal "$output" "$(cat "$SAVED")"
}

@test "bench --from --plot: an SVG and a PNG from the saved runs" {
	command -v gnuplot >/dev/null || skip "gnuplot not installed"
	"$ABPATH" bench -j forkexit >"$SAVED" 2>/dev/null
	remove_module
	run -0 --separate-stderr "$ABPATH" bench --from "$SAVED" --plot "$BATS_TEST_TMPDIR/f.svg"
	[[ -s $BATS_TEST_TMPDIR/f.svg ]] || fail "no SVG"
	grep -q '<svg' "$BATS_TEST_TMPDIR/f.svg"
	grep -q 'legacy is 2.00x slower' "$BATS_TEST_TMPDIR/f.svg"
	grep -q 'warm-up (not counted)' "$BATS_TEST_TMPDIR/f.svg"
	assert_line --regexp '^  verdict: +legacy is 2\.00x slower'
	run -0 --separate-stderr "$ABPATH" bench --from "$SAVED" -j --plot "$BATS_TEST_TMPDIR/f.png"
	assert_equal "$(head -c 4 "$BATS_TEST_TMPDIR/f.png" | tail -c 3)" PNG
	assert_equal "$output" "$(cat "$SAVED")"
}

@test "bench --from: files that are not a result fail with exit 1" {
	run -1 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/none.json"
	assert_equal "$stderr" "abpath: error: cannot read $BATS_TEST_TMPDIR/none.json: No such file or directory"
	echo '{"workload": ' >"$SAVED"
	run -1 --separate-stderr "$ABPATH" bench --from "$SAVED"
	assert_equal "$stderr" "abpath: error: $SAVED: truncated: its JSON stops unfinished at byte 14 (line 2)"
	echo '{"status": "ok"}' >"$SAVED"
	run -1 --separate-stderr "$ABPATH" bench --from "$SAVED"
	[[ $stderr == *"$SAVED: not an abpath bench result: neither \"samples\""* ]] || fail "$stderr"
	echo '{"workload": "w", "path": "p", "runs_per_mode": 2, "warmup_per_mode": 0,
		"samples": [{"mode": "fast", "value": 1}]}' >"$SAVED"
	run -1 --separate-stderr "$ABPATH" bench --from "$SAVED"
	[[ $stderr == *"a sample without a \"mode\" (legacy or optimized)"* ]] || fail "$stderr"
	assert_equal "$output" ''
	# A schema this abpath does not know is refused, and says which it reads.
	"$ABPATH" bench -j forkexit --runs 2 --warmup 0 2>/dev/null |
		jq -c '.schema = "abpath-bench/9"' >"$SAVED"
	run -1 --separate-stderr "$ABPATH" bench --from "$SAVED"
	assert_equal "$stderr" "abpath: error: $SAVED: schema abpath-bench/9 is not one this abpath ($("$ABPATH" --version | cut -d' ' -f2)) reads: abpath-bench/1, abpath-bench/2, abpath-bench/3, abpath-bench/4 or abpath-bench/5"
	assert_equal "$output" ''
	# Version 1 (no schema, no provenance) has the same runs: it is read.
	jq -c 'del(.schema, .provenance)' "$SAVED" >"$BATS_TEST_TMPDIR/v1.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/v1.json"
	assert_line --regexp '^  verdict: +inconclusive: 2 legacy and 2 optimized runs'
	assert_line --regexp '^provenance: +-$'
	# Version 2 (no "invalid") too: every run counts.
	jq -c '.schema = "abpath-bench/2" | del(.samples[].invalid, .summary.invalid_runs)' \
		"$SAVED" >"$BATS_TEST_TMPDIR/v2.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/v2.json" -j
	run -0 jq -e '.summary.legacy.n == 2 and .summary.invalid_runs == []' <<<"$output"
	run -1 --separate-stderr env PATH=/nonexistent "$ABPATH" bench --from "$SAVED" --plot "$BATS_TEST_TMPDIR/p.svg"
	assert_equal "$stderr" 'abpath: error: --plot needs gnuplot (apt-get install gnuplot-nox)'
	# Options of the other forms do not go with --from.
	assert_usage_error bench --from "$SAVED" forkexit
	assert_usage_error bench --from "$SAVED" --path exit_reparent
	assert_usage_error bench --from "$SAVED" --warmup 0
	assert_usage_error bench --from "$SAVED" -- -N 3
	assert_usage_error bench --from "$SAVED" --quick
}
