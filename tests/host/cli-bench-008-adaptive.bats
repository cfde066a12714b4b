#!/usr/bin/env bats
# abpath bench --runs auto (#44): the stopping rule's unit tests
# (userspace/bench/test-sequential.c), its error rates by simulation
# through the real rule (tests/tools/seq-sim, small here; make check-full,
# ABPATH_FULL=1, runs the 20,000-bench grid of docs/benchmarks.md), and
# the CLI against the fake module of cli-helper.bash: the looks, each
# boundary, --from deriving the same looks, Ctrl-C, and bad input.

load cli-helper

FIXTURES=$BATS_TEST_DIRNAME/cli-bench-fixtures

setup() {
	cli_setup
	STATE=$FAKE/sys/kernel/debug
}

@test "make -C userspace test-sequential: the rule's unit tests pass" {
	run -0 make -s -C "$TOP/userspace" test-sequential
	assert_line --regexp '^1\.\.[0-9]+$'
	refute_line --regexp '^not ok'
	assert_line --partial "the looks' shares add up to alpha"
	assert_line --partial "the look's interval is Welch's at level 1 - its share"
}

@test "simulated A/A benches: abpath's rule says 'different' at most 6.5%, the naive rule at least 10%" {
	local opts=(--reps 4000 --ratio 1 --max-fp 0.065 --min-naive 0.10)
	[[ ${ABPATH_FULL:-0} == 1 ]] && opts=()
	run -0 nice -n 19 "$TOP/tests/tools/seq-sim" "${opts[@]}"
	assert_line --regexp '^PASS: 0 of [0-9]+ cells fail'
	# Each A/A row: abpath's 'different' share (column 3) and the naive
	# rule's (column 9), printed so that a failure shows them.
	local rows
	rows=$(awk '$2 == 1 { print $1, $3, $9 }' <<<"$output")
	[[ $(wc -l <<<"$rows") -eq 4 ]] || fail "A/A rows: $rows"
	awk '$2 > 0.065 || $3 < 0.10 { bad = 1 } END { exit bad }' <<<"$rows" ||
		fail "cv, abpath, naive: $rows"
}

@test "the simulation's verdict can fail: an A/A bound below what any rule gives" {
	run -1 "$TOP/tests/tools/seq-sim" --reps 1000 --ratio 1 --cv 0.1 --max-fp 0.001
	assert_line --partial "<- A/A 'different' too often"
	assert_line --regexp '^FAIL: 1 of 1 cells fail'
}

@test "--runs auto: a 2x effect stops at the first look, 4 runs per mode, with the rule's interval as the verdict" {
	fake_module
	fake_bench_tree
	run -0 --separate-stderr "$ABPATH" -j bench forkexit --runs auto
	jq -e '.schema == "abpath-bench/4" and (.samples | length) == 10 and
		.sequential.stopped_by == "different" and .sequential.looks_made == 1 and
		.sequential.looks[0].runs == 4 and .sequential.cap_runs == 20 and
		.sequential.ci == .sequential.looks[0].ci and
		.summary.ratio.unadjusted and .summary.paired.unadjusted and
		.summary.mann_whitney.unadjusted' <<<"$output" >/dev/null ||
		fail "$(jq -c '{schema, n: (.samples | length), sequential}' <<<"$output")"
	run -0 jq -r .summary.verdict <<<"$output"
	assert_output --regexp '^legacy is 2\.00x slower \(95% sequential CI [0-9.]+–[0-9.]+\): the interval excludes 1 \(1 look, 4 runs per mode\); a stop after 4 runs per mode overstates the ratio: in simulation it averaged up to 1\.50× the true one \(the interval holds\)$'
	[[ $stderr == *"look 1 at 4 runs per mode: legacy/optimized 2.00 (99.89% CI "*"): different"* ]] ||
		fail "stderr: $stderr"
	assert_equal "$(mode_of exit_reparent)" optimized
}

@test "--runs auto: an A/A bench goes to the cap; a wide margin makes it 'equivalent', a precision 'precise'" {
	fake_module
	fake_bench_tree
	run -0 --separate-stderr "$ABPATH" -j bench forkexit --runs auto --max-runs 8 -- --ratio 1
	run -0 jq -c '[.sequential.stopped_by, .sequential.looks_made, ([.samples[] | select(.warmup | not)] | length)]' <<<"$output"
	assert_output '["cap",3,16]'
	run -0 --separate-stderr "$ABPATH" -j bench forkexit --runs auto --margin 10% -- --ratio 1
	run -0 jq -r '.sequential.stopped_by + " " + .summary.verdict' <<<"$output"
	assert_output --regexp '^equivalent equivalent within ±10% \(0\.9091–1\.100\): legacy/optimized '
	run -0 --separate-stderr "$ABPATH" -j bench forkexit --runs auto --precision 20 -- --ratio 1
	run -0 jq -r '[.sequential.stopped_by, .sequential.precision, (.sequential.looks[-1].half_width <= 0.2)] | @tsv' <<<"$output"
	assert_output $'precise\t0.2\ttrue'
}

@test "--runs auto: an odd --max-runs is a whole block less, and said so" {
	fake_module
	fake_bench_tree
	run -0 --separate-stderr "$ABPATH" -j bench forkexit --runs auto --max-runs 5 -- --ratio 1
	[[ $stderr == *"--max-runs 5: the rule looks after whole ABBA blocks (2 runs per mode), so the cap is 4"* ]] ||
		fail "stderr: $stderr"
	run -0 jq -c '[.sequential.cap_runs, .runs_per_mode, .sequential.stopped_by]' <<<"$output"
	assert_output '[4,4,"cap"]'
}

@test "--runs auto: an invalid run is in its block, and --from derives the same looks and verdict" {
	fake_module
	fake_bench_tree
	# Call 5 is the third measured run, optimized: a cross-check mismatch.
	run -0 --separate-stderr "$ABPATH" -j bench forkexit --runs auto --max-runs 6 -- --ratio 1 --mismatch-at 5
	saved=$BATS_TEST_TMPDIR/auto.json
	echo "$output" >"$saved"
	run -0 jq -c '[.summary.invalid_runs, .sequential.looks[0].legacy_n, .sequential.looks[0].optimized_n, .sequential.looks_made]' "$saved"
	assert_output '[[5],4,3,2]'
	run -0 --separate-stderr "$ABPATH" -j bench --from "$saved"
	assert_equal "$(jq -c '[.sequential, .summary.verdict]' <<<"$output")" \
		"$(jq -c '[.sequential, .summary.verdict]' "$saved")"
}

@test "--from: the fixture's looks and verdict are derived again from its runs" {
	f=$FIXTURES/adaptive.json
	run -0 --separate-stderr "$ABPATH" -j bench --from "$f"
	assert_equal "$(jq -c '.sequential | del(.value_bias_max)' <<<"$output")" "$(jq -c .sequential "$f")"
	# What the fixture's abpath did not say: how far such a stop overstates.
	assert_equal "$(jq .sequential.value_bias_max <<<"$output")" 0.5
	# The fixture's own verdict printed its interval as 1.00–1.10 beside
	# "excludes 1" (#54): its low end is 1.00029, and now shows it.
	assert_equal "$(jq -r .summary.verdict <<<"$output")" \
		"legacy is 1.05x slower (95% sequential CI 1.0003–1.10): the interval excludes 1 (3 looks, 8 runs per mode); a stop after 8 runs per mode overstates the ratio: in simulation it averaged up to 1.50× the true one (the interval holds)"
	run -0 --separate-stderr "$ABPATH" bench --from "$f"
	assert_line --regexp '^  verdict: +legacy is 1\.05x slower \(95% sequential CI 1\.0003–1\.10\)'
	assert_line --regexp '^  ci: +1\.0003–1\.1041$'
	assert_line --regexp '^  stopped_by: +different$'
	run -0 --separate-stderr "$ABPATH" bench --from "$f" --export-markdown -
	assert_line --regexp 'Welch t on the logs, unadjusted for the looks of --runs auto\); Mann-Whitney p=[0-9.]+, unadjusted\.  \*\*legacy is 1\.05x slower \(95% sequential CI'
	# Runs after the stop: not a bench this rule ran; the looks end at it.
	jq '.samples += [.samples[-1] | .index += 1]' "$f" >"$BATS_TEST_TMPDIR/more.json"
	run -0 --separate-stderr "$ABPATH" -j bench --from "$BATS_TEST_TMPDIR/more.json"
	[[ $stderr == *"1 measured run after the rule stopped"* ]] || fail "stderr: $stderr"
	assert_equal "$(jq -c '.sequential.looks' <<<"$output")" "$(jq -c '.sequential.looks' "$f")"
}

@test "--pool refuses adaptive benches: their intervals are not adjusted for the rule" {
	f=$FIXTURES/adaptive.json
	jq '.provenance.host = "other"' "$f" >"$BATS_TEST_TMPDIR/other.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$f" --from "$BATS_TEST_TMPDIR/other.json"
	[[ $stderr == *"adaptive.json: an adaptive bench (--runs auto): the pooled interval does not adjust for its stopping rule; pool benches of a fixed count (--runs N)"* ]] ||
		fail "stderr: $stderr"
	assert_equal "$output" ''
}

@test "--runs auto, Ctrl-C: the looks so far, the last one's interval, complete false" {
	fake_module
	echo legacy >"$ABPATH_SYSFS/exit_reparent/mode"
	# The tenth run, in the third block, sends abpath the SIGINT a
	# terminal's Ctrl-C would: the first look came after the eighth.
	run -130 --separate-stderr "$ABPATH" -j bench --path exit_reparent --runs auto --warmup 0 -- \
		sh -c 'n=$(($(cat "$0" 2>/dev/null || echo 0) + 1)); echo $n >"$0"
			[ $n = 10 ] && kill -INT $PPID; exit 0' "$BATS_TEST_TMPDIR/count"
	out=$output
	run -0 jq -c '[.complete, .sequential.stopped_by, .sequential.looks_made, (.sequential.ci == .sequential.looks[0].ci)]' <<<"$out"
	assert_output '[false,"interrupted",1,true]'
	run -0 jq -r .summary.verdict <<<"$out"
	assert_output --regexp '^inconclusive: interrupted: legacy/optimized .* \(95% sequential CI .*\) \(1 look, 4 runs per mode\)$'
	assert_equal "$(mode_of exit_reparent)" legacy
}

@test "--runs auto: bad values and conflicting options are usage errors" {
	local bad
	for bad in "--precision 0" "--precision -5%" "--precision 100%" "--precision 5%%" \
		"--margin 0" "--margin abc" "--max-runs 1" "--max-runs 0" "--max-runs 1001"; do
		# shellcheck disable=SC2086
		assert_usage_error bench forkexit --runs auto $bad
		[[ $stderr == *"invalid ${bad%% *} '${bad#* }'"* ]] || fail "$bad: $stderr"
	done
	assert_usage_error bench forkexit --runs 6 --precision 5%
	[[ $stderr == *"--max-runs, --precision and --margin go with --runs auto, not with a number of runs"* ]] ||
		fail "$stderr"
	assert_usage_error bench forkexit --max-runs 10
	[[ $stderr == *"--max-runs, --precision and --margin go with --runs auto"* ]] || fail "$stderr"
	assert_usage_error bench --from "$FIXTURES/adaptive.json" --runs auto
	[[ $stderr == *"--runs and --warmup do not apply to --from"* ]] || fail "$stderr"
	assert_usage_error bench forkexit --runs autox
	[[ $stderr == *"invalid --runs 'autox'"* ]] || fail "$stderr"
}
