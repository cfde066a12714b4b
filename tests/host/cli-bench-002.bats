#!/usr/bin/env bats
# abpath bench against the fake sysfs/debugfs tree, with a fake workload
# (cli-bench-workload.sh) whose value doubles in legacy mode: the ABBA
# order, the counters, the statistics, restoring the mode on every exit
# path, and the errors.

load cli-helper

setup() {
	bench_setup
	cp "$BATS_TEST_DIRNAME/cli-bench-workload.sh" "$ABPATH_WORKLOAD_DIR/custom"
}

@test "bench -j: both modes, counters, results and statistics" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit
	jq_ok '.workload == "forkexit" and .path == "exit_reparent" and
		.paths == ["exit_reparent"] and .metric == "fake_latency" and
		.unit == "us" and .lower_is_better == true and .args == [] and
		.runs_per_mode == 6 and .warmup_per_mode == 1'
	jq_ok '.samples | length == 14'
	# The workload saw the mode bench says it ran in.
	jq_ok 'all(.samples[]; .results.mode_seen == .mode)'
	jq_ok 'all(.samples[]; .counters.exit_reparent.calls == 100)'
	jq_ok 'all(.samples[] | select(.mode == "legacy");
		.counters.exit_reparent.ns_total == 50000 and
		.counters.exit_reparent.ns_max == 900)'
	jq_ok 'all(.samples[] | select(.mode == "optimized");
		.counters.exit_reparent.ns_total == 20000 and
		.counters.exit_reparent.ns_max == 300)'
	jq_ok '.summary.legacy.n == 6 and .summary.optimized.n == 6'
	jq_ok '.summary.legacy | (.mean - 2 | fabs) < 1e-9 and .median == 2 and
		.min == 1.94 and .max == 2.06 and .sd > 0 and
		(.gmean - 1.99953322439006 | fabs) < 1e-9 and
		.gmean_ci95[0] < .gmean and .gmean < .gmean_ci95[1]'
	jq_ok '.summary.optimized | (.mean - 1 | fabs) < 1e-9 and
		.min == 0.97 and .max == 1.03'
	jq_ok '.summary.legacy.counters_mean.exit_reparent ==
		{"calls": 100, "ns_total": 50000, "ns_max": 900, "mismatches": 0}'
	# Six against six, fully separated: the smallest exact p, 2/C(12,6).
	jq_ok '.summary.mann_whitney | .method == "exact-conditional" and
		.u == 36 and (.p - 2/924 | fabs) < 1e-9 and .p_min == .p'
	# Provenance: where and when, and the schema --from checks.
	jq_ok '.schema == "abpath-bench/3" and
		(.provenance | .abpath_version != "" and .kernel != "" and
		 .backend == "patched" and .cpus >= 1 and .host != "" and
		 (.time | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$")))'
	jq_ok '.summary.warnings == [] and .summary.invalid_runs == []
		and ([.samples[] | .invalid == null] | all)'
	[[ $stderr == *"abpath: bench: run 1 of 14 (legacy, warm-up)"* ]]
	[[ $stderr == *"abpath: bench: run 14 of 14 (legacy)"* ]]
	assert_equal "$(mode_of exit_reparent)" optimized
}

@test "bench -j: the provenance has the watchdog's budgets and whether the kernel's log was read" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0
	# None in a tree without the module's parameters; no kernel log to
	# read here, and the result says so and why.
	jq_ok ".provenance.watchdog_us == null
		and .provenance.kernel_log == \"unread: $ABPATH_KMSG: No such file or directory\"
		and ([.samples[] | has(\"kernel_reports\")] | any | not)"
	mkdir -p "$FAKE/sys/module/abpath/parameters"
	echo 100000,1000000,100000,100000 >"$FAKE/sys/module/abpath/parameters/watchdog_us"
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0
	jq_ok '.provenance.watchdog_us == "100000,1000000,100000,100000"'
}

@test "bench: the ABBA order, warm-ups first, is in the raw samples" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --warmup 2 --runs 4
	local L=legacy O=optimized
	jq_ok ".order == [\"$L\",\"$O\",\"$O\",\"$L\",
		\"$L\",\"$O\",\"$O\",\"$L\",\"$L\",\"$O\",\"$O\",\"$L\"]"
	jq_ok '[.samples[].mode] == .order'
	jq_ok '[.samples[].index] == [range(1; 13)]'
	jq_ok '[.samples[].warmup] == [true,true,true,true] + [range(8) | false]'
	jq_ok '.summary.legacy.n == 4 and .summary.optimized.n == 4'
	# The workload's own call counter confirms the execution order.
	jq_ok '[.samples[].results.call] == [range(1; 13)]'
}

@test "bench: the ratio of geometric means is about 2, with a Welch CI around 2" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit
	# scipy: ttest_ind(log(L), log(O), equal_var=False) on the fake runs.
	jq_ok '.summary.ratio | (.value - 2 | fabs) < 1e-6 and
		(.ci95[0] - 1.94001753763774 | fabs) < 1e-9 and
		(.ci95[1] - 2.06183703105622 | fabs) < 1e-9 and
		.method == "welch-t-log" and (.df - 10 | fabs) < 1e-6'
	# The fake's jitter repeats in every ABBA pair: the paired ratio is exact.
	jq_ok '.summary.paired | .pairs == 6 and (.value - 2 | fabs) < 1e-6'
	jq_ok '.summary.verdict | startswith("legacy is 2.00x slower (95% CI 1.94–2.06), p=0.002")'
}

@test "bench: the verdict follows lower_is_better" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit -- --higher
	jq_ok '.lower_is_better == false and .unit == "ops/s"'
	# Legacy does twice the ops per second here: it is the faster one.
	jq_ok '.summary.verdict | startswith("legacy is 2.00x faster (95% CI ")'
	# Two runs per mode can never reach p < 0.05: inconclusive, not
	# "no significant difference", and a warning.
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2
	jq_ok '.summary.mann_whitney | .p > 0.3 and .p_min > 0.3'
	jq_ok '.summary.verdict | startswith("inconclusive: 2 legacy and 2 optimized runs cannot reach p < 0.05 (the smallest possible is 0.33)")'
	jq_ok '.summary.warnings | length == 1'
	[[ $stderr == *"abpath: warning: 2 legacy and 2 optimized runs: below 4 per mode"* ]] ||
		fail "no warning below 4 runs per mode in: $stderr"
	# 3+3, fully separated: the exact p is its smallest possible, 0.1.
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 3
	assert_line --regexp '^  verdict: +inconclusive: 3 legacy and 3 optimized runs cannot reach p < 0\.05 \(the smallest possible is 0\.10\); legacy/optimized 2\.[0-9]+ \(95% CI '
	run -0 awk '/^  mann_whitney:$/ { on = 1; next } on && /^    / { print; next } { on = 0 }' <<<"$output"
	assert_line --regexp '^    u: +9\.000$'
	assert_line --regexp '^    p: +0\.1000$'
	assert_line --regexp '^    method: +exact-conditional$'
}

@test "bench: text output is a compact table with the verdict" {
	run -0 --separate-stderr "$ABPATH" bench forkexit -- --scale 3
	assert_line --regexp '^workload: +forkexit$'
	assert_line --regexp '^args: +--scale 3$'
	assert_line --regexp '^path: +exit_reparent$'
	# A row per run, a column per mode, each counter under its path.
	assert_line --regexp '^ +1  legacy +yes +6\.000  -$'
	assert_line --regexp '^  median +6\.000 +3\.000$'
	assert_line --regexp '^  counters_mean$'
	assert_line --regexp '^    exit_reparent$'
	assert_line --regexp '^      calls +100 +100$'
	assert_line --regexp '^  verdict: +legacy is 2\.00x slower \(95% CI 1\.9[0-9]–2\.0[0-9]\), p=0\.002$'
	assert_line --regexp '^    method: +exact-conditional$'
	# What only a program reads stays in the JSON.
	refute_line --partial 'schema'
	refute_line --partial 'mode_seen'
}

@test "bench: arguments after -- reach the workload, -j and all" {
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 2 --warmup 0 -j -- --scale 3
	jq_ok '.args == ["--scale", "3"] and .summary.legacy.median > 5.5'
	# Words after -- are never abpath's, even ones that look like it.
	run -1 --separate-stderr "$ABPATH" bench forkexit -- --runs 3
	[[ $stderr == *"fake: unknown argument --runs"* ]]
}

@test "bench: a path in legacy mode is left in legacy mode" {
	echo '[legacy] optimized' >"$ABPATH_SYSFS/exit_reparent/mode"
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 2 --warmup 0
	assert_equal "$(mode_of exit_reparent)" legacy
}

@test "bench --path all switches every path, and restores each" {
	echo '[legacy] optimized' >"$ABPATH_SYSFS/timer_fastpath/mode"
	export FAKE_PATH=timer_softirq
	run -0 --separate-stderr "$ABPATH" bench -j custom --path all --runs 2 --warmup 0
	jq_ok '.path == "all" and (.paths | length == 4)'
	jq_ok 'all(.samples[]; .counters | keys | length == 4)'
	jq_ok 'all(.samples[]; [.counters[].calls] == [100,100,100,100])'
	jq_ok '.summary.legacy.counters_mean.group_cputime.calls == 100'
	assert_equal "$(mode_of timer_fastpath)" legacy
	local p
	for p in group_cputime exit_reparent timer_softirq; do
		assert_equal "$(mode_of $p)" optimized
	done
}

@test "bench: a counter reset during a run has no delta" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0 -- --reset-ns
	jq_ok '.samples[0].counters.exit_reparent | .ns_total == null and .calls == 100'
	jq_ok '.samples[1].counters.exit_reparent.ns_total == null'
	jq_ok '.samples[2].counters.exit_reparent.ns_total == 0'
}

# Runs 1 L, 2 O, 3 O, 4 L, 5 L, 6 O: legacy's values are 2, 1.94 and
# 2.06 in its calls 1, 2 and 3 (runs 1, 4 and 5).
@test "bench: a run during which the watchdog reverted the path is invalid, named, and in no statistic" {
	printf 'exit_reparent legacy watchdog_reverts 0\nexit_reparent optimized watchdog_reverts 0\n' \
		>>"$ABPATH_DEBUGFS/stats"
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 3 --warmup 0 -- --revert-at 4
	local why="the watchdog sent exit_reparent back to optimized during the run (a legacy call over its budget, module parameter watchdog_us)"
	jq_ok ".samples[3].invalid == \"$why\""
	jq_ok '([.samples[] | select(.index != 4) | .invalid == null] | all)
		and .summary.invalid_runs == [4]
		and .summary.legacy.n == 2 and .summary.optimized.n == 3
		and .summary.legacy.min == 2 and .summary.legacy.max == 2.06
		and .summary.paired.pairs == 2
		and (.summary.warnings | index("1 run was invalid and left out of the statistics (see invalid_runs)"))'
	[[ $stderr == *"abpath: bench: run 4 of 6 (legacy) is invalid, left out of the statistics: $why"* ]] ||
		fail "stderr: $stderr"
	# The text names it too, and --from reads it back out of the statistics.
	jq . <<<"$output" >"$BATS_TEST_TMPDIR/saved.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/saved.json"
	assert_line --regexp "^ +4  legacy +no +[0-9.]+  $(sed 's/[][().*^$+?{}|\\]/\\&/g' <<<"$why")\$"
	assert_line --regexp '^  invalid_runs: +4$'
	assert_line --regexp '^  n  +2  +3$'
}

@test "bench: a mismatch or a mode someone else switched makes a run invalid" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0 -- --mismatch-at 1
	jq_ok '.samples[0].invalid == "exit_reparent counted 1 mismatch in legacy mode: its cross-check disagreed with the stock code"
		and .summary.invalid_runs == [1] and .summary.legacy.n == 1'
	# The fake counts its calls from here again.
	rm -f "$ABPATH_DEBUGFS"/../fake.*
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0 -- --switch-at 3
	jq_ok '.samples[2].invalid == "exit_reparent was legacy at the end of the run, not optimized: something else switched it"
		and .summary.invalid_runs == [3] and .summary.optimized.n == 1'
}

@test "bench: with every legacy run invalid there is nothing to compare, and it fails" {
	printf 'exit_reparent legacy watchdog_reverts 0\n' >>"$ABPATH_DEBUGFS/stats"
	run -1 --separate-stderr "$ABPATH" bench forkexit --runs 2 --warmup 0 -- --revert
	[[ $stderr == *"run 1 of 4 (legacy) is invalid"*"run 4 of 4 (legacy) is invalid"* ]] || fail "stderr: $stderr"
	[[ $stderr == *"abpath: error: no valid measured legacy run, so nothing to compare: every one was invalid (the report names why)"* ]] ||
		fail "stderr: $stderr"
	assert_line --partial 'inconclusive: a mode has no valid measured run'
	assert_equal "$(mode_of exit_reparent)" optimized
}

# Starts a bench whose runs sleep, and waits until the first one runs.
start_slow_bench() {
	"$ABPATH" bench forkexit -- --sleep 60 >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err" 3>&- &
	BENCH_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e $STATE/fake.calls ]] && break
		sleep 0.1
	done
	[[ -e $STATE/fake.calls ]] || fail "the workload never started"
	assert_equal "$(mode_of exit_reparent)" legacy
}

# signalled_slow_bench SIGNAL STATUS: a slow bench sent SIGNAL in its
# first run dies with STATUS, its workload terminated and the mode
# restored, and says so.
signalled_slow_bench() {
	start_slow_bench
	kill -"$1" "$BENCH_PID"
	local rc=0
	wait "$BENCH_PID" || rc=$?
	assert_equal "$rc" "$2"
	assert_equal "$(mode_of exit_reparent)" optimized
	[[ -e $STATE/fake.terminated ]] || fail "SIG$1: the workload got no SIGTERM"
	grep -q "interrupted by SIG$1 in run 1 of 14; restored exit_reparent to optimized" \
		"$BATS_TEST_TMPDIR/err" || fail "SIG$1: $(cat "$BATS_TEST_TMPDIR/err")"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" ''
}

@test "bench: SIGINT kills the workload and restores the mode (130)" {
	signalled_slow_bench INT 130
}

@test "bench: SIGTERM kills the workload and restores the mode too (143)" {
	signalled_slow_bench TERM 143
}

@test "bench: a failing workload stops the bench with exit 1" {
	run -1 --separate-stderr "$ABPATH" bench forkexit -- --fail
	[[ $stderr == *"abpath: error: run 1 of 14 (legacy, warm-up): forkexit exited with status 1"* ]]
	[[ $stderr == *"simulated failure in call 1"* ]]
	assert_equal "$output" ''
	assert_equal "$(mode_of exit_reparent)" optimized

	# In the middle of the bench, with the path in the other mode.
	rm -f "$STATE"/fake.*
	run -1 --separate-stderr "$ABPATH" bench forkexit -- --fail-at 6
	[[ $stderr == *"run 6 of 14 (legacy): forkexit exited with status 1"* ]]
	[[ $stderr != *"run 7 of 14"* ]]
	assert_equal "$(mode_of exit_reparent)" optimized

	run -1 --separate-stderr "$ABPATH" bench forkexit -- --bad-check
	[[ $stderr == *"reported a failed check (checks.passed is false)"* ]]
}

@test "bench: a workload without a JSON report is a failed run" {
	printf '#!/bin/sh\necho not json\necho oops >&2\n' >"$ABPATH_WORKLOAD_DIR/forkexit"
	run -1 --separate-stderr "$ABPATH" bench forkexit
	[[ $stderr == *"run 1 of 14 (legacy, warm-up): forkexit printed no JSON report"* ]]
	[[ $stderr == *"  oops"* ]]
	assert_equal "$(mode_of exit_reparent)" optimized
}

@test "bench: usage errors exit 2" {
	assert_usage_error bench
	assert_usage_error bench forkexit --runs 1
	assert_usage_error bench forkexit --runs x
	assert_usage_error bench forkexit --warmup -1
	assert_usage_error bench forkexit --path nosuchpath
	[[ $stderr == *"exit_reparent, timer_softirq, all"* ]]
	assert_usage_error bench forkexit --plot out.pdf
	assert_usage_error bench forkexit extra
	assert_usage_error bench forkexit --bogus
	assert_usage_error bench nosuchworkload --path exit_reparent
	[[ $stderr == *"unknown workload 'nosuchworkload'"* ]]
	# No built-in default for an unknown workload's path.
	assert_usage_error bench custom
	[[ $stderr == *"choose one with --path"* ]]
	assert_equal "$(mode_of exit_reparent)" optimized
	[[ ! -e $STATE/fake.calls ]] || fail "a usage error ran the workload"
}

@test "bench: errors before the first run touch nothing" {
	run -1 --separate-stderr env PATH=/nonexistent "$ABPATH" bench forkexit --plot "$BATS_TEST_TMPDIR/p.svg"
	assert_equal "$stderr" 'abpath: error: --plot needs gnuplot (apt-get install gnuplot-nox)'
	rm -rf "$ABPATH_SYSFS"
	run -1 --separate-stderr "$ABPATH" bench forkexit
	[[ $stderr == *"module abpath is not loaded"* ]]
	[[ ! -e $STATE/fake.calls ]] || fail "the workload ran"
}

@test "bench --plot writes an SVG and a PNG with gnuplot" {
	command -v gnuplot >/dev/null || skip "gnuplot not installed"
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 2 --plot "$BATS_TEST_TMPDIR/b.svg"
	grep -q '<svg' "$BATS_TEST_TMPDIR/b.svg"
	grep -q 'inconclusive: 2 legacy and 2 optimized runs' "$BATS_TEST_TMPDIR/b.svg"
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 2 --plot "$BATS_TEST_TMPDIR/b.png"
	assert_equal "$(head -c 4 "$BATS_TEST_TMPDIR/b.png" | tail -c 3)" PNG
}

@test "bench: help, man page and completion cover it" {
	run -0 "$ABPATH" --help
	assert_line --regexp '^  bench +A/B-benchmark a workload'
	local opt
	for opt in $("$ABPATH" bench --help | grep -o -- '--[a-z]\+'); do
		grep -q -- "\\\\-\\\\-${opt#--}" "$TOP/userspace/abpath-bench.1" ||
			fail "$opt missing from abpath-bench.1"
	done
	grep -q '^\.B bench ' "$TOP/userspace/abpath.1"
	run -0 bash -c '
		source "$1"
		complete_line() {
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=(); _abpath; echo "${COMPREPLY[*]}"
		}
		complete_line "$2" b
		complete_line "$2" bench ""
		complete_line "$2" bench forkexit --path ""
		complete_line "$2" bench forkexit -- ""
	' _ "$TOP/userspace/abpath.bash-completion" "$ABPATH"
	assert_line --index 0 'bench'
	assert_line --index 1 'custom forkexit'
	# The paths the (fake) module exports, as 'abpath paths' lists them.
	assert_line --index 2 "${CLI_PATHS[*]} all"
	# Nothing is offered after "--": those words are the workload's.
	assert_equal "${#lines[@]}" 3
}
