#!/usr/bin/env bats
# abpath bench on any command (--path P -- CMD) against the fake tree:
# wall time as the metric, CPU times from wait4, counters, --prepare, the
# exports, the errors, and Ctrl-C: a partial report, then death by the
# same signal so that a shell loop around abpath stops.

load cli-helper
load ../suite/ctrl-c

setup() {
	bench_setup
}

# A command that sleeps 0.2 s in legacy mode and 0.05 s in optimized,
# reading the fake mode file as the fake workload does.
SLOWER='case $(cat "$ABPATH_SYSFS/exit_reparent/mode") in *legacy*) sleep 0.2 ;; *) sleep 0.05 ;; esac'

@test "command: wall time is the metric, CPU times and counters per run" {
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 4 \
		--warmup 0 -j -- sh -c "echo NOISE_\$((6 * 7)); $SLOWER"
	jq_ok '.workload == "command" and .command == true and
		.args[0:2] == ["sh", "-c"] and .metric == "wall" and
		.unit == "s" and .lower_is_better and .complete and
		(.samples | length == 8)'
	# Every run: the value is the wall time, CPU times add up.
	jq_ok 'all(.samples[]; .value == .results.wall_s and
		.results.user_s >= 0 and .results.sys_s >= 0 and
		((.results.cpu_s - .results.user_s - .results.sys_s) | fabs) < 1e-9 and
		.results.max_rss_kb > 0 and .counters.exit_reparent.calls == 0)'
	# The sleeps are what the wall clock saw; sleeping costs no CPU.
	jq_ok 'all(.samples[] | select(.mode == "legacy"); .value >= 0.2)'
	jq_ok 'all(.samples[] | select(.mode == "optimized");
		.value >= 0.05 and .value < 0.2)'
	jq_ok 'all(.samples[]; .results.cpu_s < .results.wall_s)'
	jq_ok '.summary.legacy.cpu_mean | has("user_s") and has("sys_s") and has("cpu_s")'
	jq_ok '.summary.ratio.value > 1.5 and .summary.ratio.ci95[0] > 1'
	jq_ok '.summary.verdict | startswith("legacy is ")'
	# The command's standard output never reaches ours.
	refute_output --partial NOISE_42
	assert_equal "$(mode_of exit_reparent)" optimized
}

@test "command: CPU time is the command's and its children's" {
	local BUSY='perl -MTime::HiRes=clock_gettime,CLOCK_PROCESS_CPUTIME_ID -e "1 while clock_gettime(CLOCK_PROCESS_CPUTIME_ID) < 0.1"'
	run -0 --separate-stderr "$ABPATH" bench --path group_cputime --runs 2 \
		--warmup 0 -j -- sh -c "$BUSY"
	# The grandchild burns until its own CPU clock reads 0.1 s, so the
	# figure is the same on a slow, a loaded or a fast host; a sleep of
	# the same wall time would cost under 0.01 s.
	jq_ok 'all(.samples[]; .results.cpu_s >= 0.1)'
}

@test "command: the text report names the command and shows CPU times" {
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 -- sh -c 'exit 0'
	assert_line --regexp '^command: +yes$'
	assert_line --regexp '^args: +sh -c exit 0$'
	assert_line --regexp '^metric: +wall$'
	assert_line --regexp '^unit: +s$'
	assert_line --regexp '^lower_is_better: +yes$'
	assert_line --regexp '^  cpu_mean$'
	assert_line --regexp '^    user_s +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^    cpu_s +[0-9.]+ +[0-9.]+$'
}

@test "command: needs --path, a command, and an existing workload name" {
	run -2 "$ABPATH" bench -- true
	assert_output --partial 'a command needs --path: abpath cannot tell which path it exercises'
	run -2 "$ABPATH" bench --path exit_reparent --
	assert_output --partial "no command after '--'"
	run -2 "$ABPATH" bench
	assert_output --partial 'or time a command: abpath bench --path P -- CMD'
	run -2 "$ABPATH" bench nope
	assert_line --index 0 "abpath: unknown workload 'nope'; see 'abpath workloads'"
	run -2 "$ABPATH" bench --path nope -- true
	assert_line --index 0 --partial "abpath: unknown path 'nope'; valid paths: "
	run -2 "$ABPATH" bench --path exit_reparent --prepare '' -- true
	assert_output --partial '--prepare needs a command'
	run -2 "$ABPATH" bench --path exit_reparent --export-csv '' -- true
	assert_output --partial 'need a file name'
}

@test "command: a failing command stops the bench and shows its stderr" {
	echo legacy >"$ABPATH_SYSFS/exit_reparent/mode"
	run -1 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		-- sh -c 'echo it broke >&2; exit 3'
	assert_equal "${lines[*]}" ""
	[[ $stderr == *"run 1 of 6 (legacy, warm-up): sh exited with status 3; its standard error:"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *"  it broke"* ]] || fail "stderr: $stderr"
	assert_equal "$(mode_of exit_reparent)" legacy
	run -1 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 -- no-such-command-x
	[[ $stderr == *"no-such-command-x exited with status 127"* ]] || fail "stderr: $stderr"
	[[ $stderr == *"cannot execute no-such-command-x: No such file or directory"* ]] ||
		fail "stderr: $stderr"
}

@test "--prepare runs before every run, untimed; a failing one stops the bench" {
	log=$BATS_TEST_TMPDIR/prepared
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 -j \
		--prepare "echo \"\$(cat \"\$ABPATH_SYSFS/exit_reparent/mode\")\" >>'$log'; sleep 0.3" -- true
	# 2 warm-ups and 4 measured runs, each prepared in its own mode.
	assert_equal "$(wc -l <"$log")" 6 || fail "stderr: $stderr"
	assert_equal "$(grep -c legacy "$log")" 3
	jq_ok '.prepare | startswith("echo ")'
	jq_ok 'all(.samples[]; .value < 0.3)'
	run -1 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--prepare 'echo cannot >&2; false' -- true
	[[ $stderr == *"run 1 of 6 (legacy, warm-up): --prepare 'echo cannot >&2; false' exited with status 1; its standard error:"* ]] ||
		fail "stderr: $stderr"
	[[ $stderr == *"  cannot"* ]] || fail "stderr: $stderr"
	assert_equal "$(mode_of exit_reparent)" optimized
}

@test "exports: Markdown summary and one CSV row per run, also from --from" {
	md=$BATS_TEST_TMPDIR/b.md csv=$BATS_TEST_TMPDIR/b.csv
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 1 -j --export-markdown "$md" --export-csv "$csv" -- sh -c "$SLOWER"
	json=$output
	run -0 head -1 "$csv"
	assert_output --regexp '^index,mode,warmup,wall,wall_s,user_s,sys_s,cpu_s,max_rss_kb,exit_status,exit_reparent\.calls,'
	assert_equal "$(wc -l <"$csv")" 7
	run -0 sed -n 2p "$csv"
	assert_output --regexp '^1,legacy,1,0\.[0-9]+,0\.[0-9]+,'
	# The CSV's values are the JSON's, every digit.
	assert_equal "$(cut -d, -f4 "$csv" | tail -n +2 | paste -sd' ')" \
		"$(jq -r '[.samples[].value | tostring] | join(" ")' <<<"$json")"
	run -0 cat "$md"
	assert_line --index 0 --regexp '^`sh -c .*`, path exit_reparent; wall \(s, lower is better\)$'
	assert_line --regexp '^\| mode \| runs \| geometric mean \| 95% CI \| median \| min \| max \| user s \| sys s \|$'
	assert_line --regexp '^\| legacy \| 2 \| 0\.2[0-9]* \| '
	assert_line --partial 'inconclusive: 2 legacy and 2 optimized runs cannot reach p < 0.05'
	assert_line --regexp '^Measured on kernel .*, abpath [0-9.]+\.$'
	# --from writes the same exports from the saved result.
	echo "$json" >"$BATS_TEST_TMPDIR/b.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/b.json" \
		--export-csv "$BATS_TEST_TMPDIR/c.csv" --export-markdown "$BATS_TEST_TMPDIR/c.md"
	run -0 diff "$csv" "$BATS_TEST_TMPDIR/c.csv"
	run -0 diff "$md" "$BATS_TEST_TMPDIR/c.md"
	run -2 "$ABPATH" bench --suite history --export-csv x.csv
	assert_output --partial 'do not apply to --suite'
}

@test "progress lines show the last value and the time left" {
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 -- sleep 0.1
	[[ $stderr == *"abpath: bench: run 1 of 6 (legacy, warm-up)"$'\n'* ]] || fail "stderr: $stderr"
	# The last value is sleep 0.1's wall time: at least 0.1 s, and more
	# by whatever a loaded host adds (0.2 s and over must not fail it).
	[[ $stderr =~ "run 2 of 6 (optimized, warm-up); last "(0\.[1-9][0-9]*|[1-9][0-9.]*)" s, about "[0-9]+" s left" ]] ||
		fail "stderr: $stderr"
}

@test "Ctrl-C: the runs so far, complete false, then death by SIGINT stops a shell loop" {
	echo legacy >"$ABPATH_SYSFS/exit_reparent/mode"
	# A shell started with SIGINT ignored cannot catch it (CI runs in the
	# background, where it is), so the loop starts with the default, as a
	# terminal's shell has it.
	ctrl_c_bench_loop "$ABPATH" 0.3 env --default-signal=INT
	run -0 jq -r .summary.verdict "$OUT"
	assert_output --regexp '^inconclusive: '
	assert_equal "$(mode_of exit_reparent)" legacy
}

@test "--export-json writes what -j prints, beside the text report" {
	js=$BATS_TEST_TMPDIR/b.json
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 --export-json "$js" -- sh -c "$SLOWER"
	assert_line --regexp '^  verdict: '
	run -0 jq -e '.schema == "abpath-bench/3" and .command and (.samples | length == 4)
		and .summary.legacy.n == 2' "$js"
	# The same result: -j of it through --from is the file, key for key
	# (the summary, recomputed from 15-digit samples, to its verdict).
	run -0 --separate-stderr "$ABPATH" bench --from "$js" -j
	assert_equal "$(jq -S 'del(.summary)' <<<"$output")" "$(jq -S 'del(.summary)' "$js")"
	assert_equal "$(jq -r .summary.verdict <<<"$output")" "$(jq -r .summary.verdict "$js")"
}

@test "a command's output is hidden, or on stderr with --show-output; stdout stays the report" {
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 -j -- sh -c 'echo OUT_$((6 * 7)); echo ERR_$((6 * 7)) >&2'
	# The words only the command's shell computes, never its arguments.
	[[ $output != *OUT_42* && $stderr != *OUT_42* && $stderr != *ERR_42* ]] ||
		fail "output not hidden: stdout: $output, stderr: $stderr"
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 -j --show-output -- sh -c 'echo OUT_$((6 * 7)); echo ERR_$((6 * 7)) >&2'
	run -0 jq -e '.complete' <<<"$output"
	[ "$(grep -c OUT_42 <<<"$stderr")" -eq 4 ] || fail "stderr: $stderr"
	[ "$(grep -c ERR_42 <<<"$stderr")" -eq 4 ] || fail "stderr: $stderr"
}

@test "a failing command stops the bench, unless --ignore-failure records it" {
	run -1 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 -- sh -c 'echo WHY >&2; exit 3'
	[[ $stderr == *"run 1 of 4 (legacy): sh exited with status 3; its standard error:"*"  WHY"*"add --ignore-failure"* ]] ||
		fail "stderr: $stderr"
	assert_equal "$(mode_of exit_reparent)" optimized
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 -j -i -- sh -c "$SLOWER; exit 3"
	jq_ok '([.samples[] | .results.exit_status == 3 and .results.signal == null] | all)
		and .summary.legacy.n == 2 and .summary.optimized.n == 2'
	[ "$(grep -c 'sh exited with status 3; going on (--ignore-failure)' <<<"$stderr")" -eq 4 ] ||
		fail "stderr: $stderr"
	run -0 --separate-stderr "$ABPATH" bench --path exit_reparent --runs 2 \
		--warmup 0 -j --ignore-failure -- sh -c 'kill -TERM $$'
	jq_ok '[.samples[] | .results.exit_status == null and .results.signal == 15] | all'
}

@test "--show-output and --ignore-failure are for a command, not a workload" {
	assert_usage_error bench forkexit --show-output
	assert_usage_error bench forkexit -i
	assert_usage_error bench --from x.json --ignore-failure
	assert_usage_error bench --path exit_reparent --export-json a --export-csv a -- true
}

@test "text tables line up by columns, with the intervals' en dash" {
	run -0 --separate-stderr env LC_ALL=C "$ABPATH" bench --path exit_reparent \
		--runs 2 --warmup 0 -- sh -c "$SLOWER"
	# Every row of the summary table ends in the same column (a heading,
	# a word alone, has no cells; the tests under the table are no rows).
	local rows
	rows=$(awk '/^summary:/ { on = 1; next } on && /^  [^ ]+:/ { exit }
		on && /^  / && NF > 1 { print; next } on && !/^  / { exit }' <<<"$output")
	[[ $rows == *–* ]] || fail "no interval in: $rows"
	run -0 bash -c 'while IFS= read -r l; do printf "%s\n" "$l" | LC_ALL=C.UTF-8 wc -m; done | sort -u | wc -l' <<<"$rows"
	assert_output 1
}
