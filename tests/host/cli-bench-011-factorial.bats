#!/usr/bin/env bats
# abpath bench --factorial against the fake sysfs/debugfs tree, with a fake
# workload (cli-bench-factorial-workload.sh) that multiplies its value by
# a factor for each path in legacy ($FAKE_EFFECTS) and each pair both in
# legacy ($FAKE_INTERACTIONS): the design (every cell once a replicate, in
# a random order the result records), the modes set and checked around
# every run, the effects found again, and every bad input refused before
# anything runs.

load cli-helper

setup() {
	bench_setup
	cp "$BATS_TEST_DIRNAME/cli-bench-factorial-workload.sh" \
		"$ABPATH_WORKLOAD_DIR/forkexit"
	unset FAKE_EFFECTS FAKE_INTERACTIONS FAKE_NOISE FAKE_SEED
}

# Every path's mode, one line: what a bad input must leave as it was.
all_modes() {
	local p
	for p in "${CLI_PATHS[@]}"; do printf '%s=%s ' "$p" "$(mode_of "$p")"; done
}

@test "make -C userspace test-factorial: the factorial's maths pass their unit tests" {
	run -0 make -s -C "$TOP/userspace" test-factorial
	assert_line --regexp '^1\.\.[0-9]+$'
	refute_line --regexp '^not ok'
	assert_line --partial "default replicates: 3 for 2 paths, 2 for 3 and 4 (got 3 2 2)"
	assert_line --partial "no run with A and B both legacy: -ERANGE"
}

@test "factorial of all four: 2 replicates of the 16 cells, each a random order, all recorded" {
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial all
	jq_ok '.schema == "abpath-bench/5" and .cells == 16 and .replicates == 2 and
		.factorial == ["group_cputime","timer_fastpath","exit_reparent","timer_softirq"] and
		.held == {} and .order == 2 and .complete'
	# 1 warm-up per mode, then every cell once in each block.
	jq_ok '.samples | length == 34'
	jq_ok '[.samples[] | select(.warmup) | .cell] == ["LLLL", "OOOO"]'
	jq_ok '.samples as $s | [1, 2] | all(. as $b |
		[$s[] | select(.block == $b) | .cell] | length == 16 and (unique | length) == 16)'
	jq_ok 'all(.samples[]; .cell | test("^[LO]{4}$"))'
	# A random order: two benches' orders differ (the chance that two
	# random orders of 2 x 16 cells agree is 1 in (16!)^2).
	local first
	first=$(jq -c '[.samples[] | .cell]' <<<"$output")
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial all
	[[ $(jq -c '[.samples[] | .cell]' <<<"$output") != "$first" ]] ||
		fail "two benches ran the cells in the same order: $first"
	jq_ok '.seed | type == "number"'
	# The fit: 32 runs, 1 + 1 block + 4 mains + 6 pairs, 20 df.
	jq_ok '.model.runs == 32 and .model.params == 12 and .model.residual_df == 20'
	jq_ok '.effects | length == 10'
	jq_ok '[.effects[] | .effect] | .[4] == "group_cputime × timer_fastpath"'
}

@test "factorial: the workload ran in each cell's modes, and the effects and the interaction come back" {
	export FAKE_EFFECTS=exit_reparent=2,group_cputime=1.5,timer_fastpath=1
	export FAKE_INTERACTIONS="exit_reparent,group_cputime=1.2"
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial all --runs 3
	echo "$output" >"$BATS_TEST_TMPDIR/r.json"
	# Each run's value is its cell's product of factors: the modes were set.
	python3 - "$BATS_TEST_TMPDIR/r.json" <<-'EOF'
		import json, math, sys
		r = json.load(open(sys.argv[1]))
		f = {"exit_reparent": 2, "group_cputime": 1.5}
		bad = 0
		for s in r["samples"]:
		    L = {p for p, c in zip(r["factorial"], s["cell"]) if c == "L"}
		    want = math.prod(f.get(p, 1) for p in L)
		    if {"exit_reparent", "group_cputime"} <= L:
		        want *= 1.2
		    # The fake's noise is exp(0.02 z): within 10 % at |z| < 4.7.
		    if abs(math.log(s["value"] / want)) > 0.1:
		        print("run %d cell %s: value %g, its cell's %g" % (s["index"], s["cell"], s["value"], want))
		        bad += 1
		e = {x["effect"]: x for x in r["effects"]}
		# Main effects average over the other paths' modes: group_cputime's is
		# sqrt(1.5 * 1.5 * 1.2), exit_reparent's sqrt(2 * 2 * 1.2).
		for name, want in [("exit_reparent", 2 * math.sqrt(1.2)), ("group_cputime", 1.5 * math.sqrt(1.2)),
		                   ("group_cputime × exit_reparent", 1.2), ("timer_softirq", 1)]:
		    lo, hi = e[name]["ci95"]
		    print("%-32s %.4f (%.4f-%.4f) true %.4f" % (name, e[name]["ratio"], lo, hi, want))
		    if abs(math.log(e[name]["ratio"] / want)) > 0.05:
		        bad += 1
		sys.exit(1 if bad else 0)
	EOF
	# The order of the cells is random, and so which run's noise each
	# cell gets: the digits vary, but not past these.
	jq_ok '.verdicts.exit_reparent | test("^legacy is 2\\.[12][0-9]*x slower")'
	jq_ok '.verdicts.group_cputime | test("^legacy is 1\\.6[0-9]*x slower")'
	jq_ok '.verdicts["group_cputime × exit_reparent"] | test("^together in legacy they cost 1\\.[12][0-9]*x more than their separate costs multiplied")'
	jq_ok '.effects[] | select(.effect == "exit_reparent") | .p_holm < 0.001'
	# Every path back to optimized, as it was.
	[[ $(all_modes) != *legacy* ]] || fail "a path left in legacy: $(all_modes)"
}

@test "factorial: text and JSON are one tree" {
	export FAKE_EFFECTS=exit_reparent=2 FAKE_SEED=7
	run -0 --separate-stderr "$ABPATH" bench forkexit --factorial exit_reparent,timer_fastpath
	[[ $output == *"factorial:"*"exit_reparent timer_fastpath"* ]] || fail "no factorial line: $output"
	[[ $output == *"held:"*"group_cputime: "*"optimized"*"timer_softirq: "*"optimized"* ]] ||
		fail "the held paths are not named: $output"
	[[ $output == *"replicates:"*" 3"* ]] || fail "not the default 3 replicates of 2 paths: $output"
	[[ $output =~ exit_reparent:\ +legacy\ is\ (1\.9|2\.)[0-9]*x\ slower ]] || fail "no verdict: $output"
	[[ $output == *"exit_reparent × timer_fastpath"* ]] || fail "no interaction: $output"
}

@test "factorial: a held path switched during a run makes that run invalid, left out of the fit" {
	# Call 5 is the third measured run (after 2 warm-ups).
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial exit_reparent,timer_fastpath \
		-- --switch-at 5 group_cputime
	jq_ok '.samples[4].invalid | test("group_cputime was legacy at the end of the run, not optimized")'
	jq_ok '[.samples[] | select(.invalid)] | length == 1'
	jq_ok '.model.runs == 11'
	# The bench restored the path it held to the mode it had.
	[[ $(mode_of group_cputime) == optimized ]] || fail "group_cputime left $(mode_of group_cputime)"
}

@test "factorial: --order 3 fits every interaction of 3 paths; --order 1 none" {
	local three=group_cputime,timer_fastpath,exit_reparent
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial $three --order 3 --runs 2
	jq_ok '(.effects | length) == 7 and .effects[6].effect == "group_cputime × timer_fastpath × exit_reparent"'
	# 16 runs, 1 + 1 block + 7 effects.
	jq_ok '.model.residual_df == 7'
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial $three --order 1 --runs 2
	jq_ok '(.effects | length) == 3 and .model.residual_df == 11'
}

@test "factorial: --export-json and --export-markdown" {
	run -0 --separate-stderr "$ABPATH" bench forkexit --factorial exit_reparent,group_cputime \
		--export-json "$BATS_TEST_TMPDIR/f.json" --export-markdown "$BATS_TEST_TMPDIR/f.md"
	jq -e '.schema == "abpath-bench/5" and (.effects | length) == 3' "$BATS_TEST_TMPDIR/f.json" >/dev/null ||
		fail "export-json: $(cat "$BATS_TEST_TMPDIR/f.json")"
	grep -q '^| effect | legacy/optimized | 95% CI | p | Holm p |$' "$BATS_TEST_TMPDIR/f.md" ||
		fail "export-markdown: $(cat "$BATS_TEST_TMPDIR/f.md")"
	grep -q '^- exit_reparent × group_cputime: ' "$BATS_TEST_TMPDIR/f.md" ||
		fail "export-markdown has no interaction verdict: $(cat "$BATS_TEST_TMPDIR/f.md")"
}

# The bad inputs: status, a part of the message, the arguments after
# 'abpath bench forkexit'. Each runs nothing and leaves every mode.
BAD_INPUTS=(
	"2|path 'exit_reparent' given twice|--factorial exit_reparent,exit_reparent"
	"2|unknown path 'nosuch'; valid paths:|--factorial exit_reparent,nosuch"
	"2|not --runs auto|--factorial all --runs auto"
	"2|needs two paths or more|--factorial exit_reparent"
	"2|expected paths separated by commas|--factorial exit_reparent,,group_cputime"
	"2|expected paths separated by commas|--factorial exit_reparent,"
	"2|all stands alone|--factorial all,exit_reparent"
	"2|not with --path|--factorial all --path exit_reparent"
	"2|--order 3: 2 paths have interactions up to order 2|--factorial exit_reparent,group_cputime --order 3"
	"2|--order goes with --factorial|--order 2"
	"2|at most 1000 replicates|--factorial all --runs 1001"
	"2|--max-runs and --precision go with --runs auto|--factorial all --max-runs 10"
	"2|not --export-csv|--factorial all --export-csv x.csv"
)

@test "factorial: every bad input is refused, runs nothing, changes no mode" {
	local row want msg args before
	before=$(all_modes)
	for row in "${BAD_INPUTS[@]}"; do
		IFS='|' read -r want msg args <<<"$row"
		# shellcheck disable=SC2086
		run --separate-stderr "$ABPATH" bench forkexit $args
		((status == want)) || fail "abpath bench forkexit $args: status $status, want $want: $stderr"
		[[ $stderr == *"$msg"* ]] || fail "abpath bench forkexit $args: stderr lacks '$msg': $stderr"
		[[ -z $output ]] || fail "abpath bench forkexit $args: stdout: $output"
		[[ ! -e $STATE/fake.calls ]] || fail "abpath bench forkexit $args ran the workload"
		[[ $(all_modes) == "$before" ]] || fail "abpath bench forkexit $args changed a mode: $(all_modes)"
	done
}

@test "factorial: more cells than the cap (16) is refused" {
	# A module with a fifth path, all would make 32 cells (not called
	# fifth_path: paths-lists.bats adds that name and counts the lists).
	mkdir -p "$ABPATH_SYSFS/extra_path"
	echo 'legacy [optimized]' >"$ABPATH_SYSFS/extra_path/mode"
	echo 'extra_path site' >"$ABPATH_SYSFS/extra_path/site"
	run -2 --separate-stderr "$ABPATH" bench forkexit --factorial all
	[[ $stderr == *"--factorial all: 5 paths make 32 cells; at most 16 (4 paths)"* ]] || fail "$stderr"
	run -2 --separate-stderr "$ABPATH" bench forkexit \
		--factorial group_cputime,timer_fastpath,exit_reparent,timer_softirq,extra_path
	[[ $stderr == *"5 paths make 32 cells; at most 16 (4 paths)"* ]] || fail "$stderr"
	[[ ! -e $STATE/fake.calls ]] || fail "the workload ran"
}

@test "factorial: a path that cannot run legacy on this kernel is refused before any run" {
	echo 'unavailable: no hook site on this kernel' >"$ABPATH_SYSFS/timer_softirq/site"
	run -1 --separate-stderr "$ABPATH" bench forkexit --factorial all
	[[ $stderr == *"--factorial: timer_softirq cannot run legacy on this kernel (unavailable: no hook site on this kernel); nothing was run"* ]] ||
		fail "$stderr"
	[[ -z $output ]] || fail "stdout: $output"
	[[ ! -e $STATE/fake.calls ]] || fail "the workload ran"
	# Without it, the other three run.
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial group_cputime,timer_fastpath,exit_reparent
	jq_ok '.cells == 8 and .replicates == 2 and .held == {"timer_softirq": "optimized"}'
}

need_statsmodels() {
	/usr/bin/python3 -c 'import statsmodels.formula.api' 2>/dev/null ||
		skip "python3-statsmodels is not installed (tests/bin/deps.sh host)"
}

@test "factorial: the fit agrees with statsmodels' OLS and ANOVA to 1e-9 on four datasets (tests/tools/factorial-check.py)" {
	need_statsmodels
	local d=$BATS_TEST_TMPDIR
	export FAKE_EFFECTS=exit_reparent=2,group_cputime=1.5 FAKE_INTERACTIONS="exit_reparent,group_cputime=1.2"
	FAKE_SEED=1 "$ABPATH" -j bench forkexit --factorial all >"$d/a.json" 2>/dev/null
	FAKE_SEED=2 "$ABPATH" -j bench forkexit --factorial all --order 4 --runs 2 >"$d/b.json" 2>/dev/null
	# Unbalanced: run 6 (a measured run) is invalid, so one cell has a run
	# fewer (the fake counts calls from its first, so start again).
	rm -f "$STATE/fake.calls"
	FAKE_SEED=4 "$ABPATH" -j bench forkexit --factorial exit_reparent,group_cputime --runs 4 \
		-- --switch-at 6 timer_softirq >"$d/c.json" 2>/dev/null
	jq -e '[.samples[] | select(.invalid)] | length == 1' "$d/c.json" >/dev/null ||
		fail "c.json has not one invalid run"
	# An A/A factorial, noisy, main effects only: no effect at all.
	unset FAKE_EFFECTS FAKE_INTERACTIONS
	FAKE_SEED=3 FAKE_NOISE=0.2 "$ABPATH" -j bench forkexit --factorial group_cputime,timer_fastpath,exit_reparent \
		--order 1 >"$d/d.json" 2>/dev/null
	run -0 "$TOP/tests/tools/factorial-check.py" "$d"/[a-d].json
	echo "$output"
	# The check can fail: one coefficient off by 1e-8 is caught.
	jq '.effects[0].coef += 1e-8' "$d/a.json" >"$d/bad.json"
	run -1 "$TOP/tests/tools/factorial-check.py" "$d/bad.json"
	[[ $output == *"coef "*"<- over 1e-09"* ]] || fail "the check missed a coefficient off by 1e-8: $output"
}

@test "simulated factorials: each effect's interval covers, and Holm holds the family-wise error (tests/tools/factorial-sim)" {
	# CI: 2,000 benches a design, so the window is 0.95 +- 4 SE; make
	# check-full (ABPATH_FULL=1): the 20,000 of docs/benchmarks.md, held
	# to 0.94-0.96 and 0.05.
	local opts=(--reps 2000 --min-cov 0.93 --max-cov 0.97 --max-fwer 0.06)
	[[ ${ABPATH_FULL:-0} == 1 ]] && opts=()
	run -0 nice -n 19 "$TOP/tests/tools/factorial-sim" "${opts[@]}"
	echo "$output"
	assert_line --regexp '^PASS: 0 of 5 designs fail'
	# All four paths at the default 2 replicates: a main effect's interval
	# is well under the width of a one-path 4 + 4 bench's (0.43 in theory).
	local w
	w=$(awk '$1 == "4:2:2" { print $NF == "4+4" ? $(NF - 2) : "none" }' <<<"$output")
	awk -v w="$w" 'BEGIN { exit !(w > 0.35 && w < 0.5) }' ||
		fail "4:2:2's width ratio $w is not 0.35-0.5"
}

@test "the factorial simulation can fail: a family-wise bound below what Holm gives" {
	run -1 "$TOP/tests/tools/factorial-sim" --reps 500 --design 4:2:2 --max-fwer 0.001
	assert_line --partial "<- above"
	assert_line --regexp '^FAIL: 1 of 1 designs fail'
}

@test "factorial: --from reads the result back, text and JSON as the bench printed them" {
	export FAKE_EFFECTS=exit_reparent=2
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial exit_reparent,group_cputime,timer_softirq \
		--export-markdown "$BATS_TEST_TMPDIR/run.md"
	echo "$output" >"$BATS_TEST_TMPDIR/saved.json"
	local json=$output
	run -0 --separate-stderr "$ABPATH" bench -j --from "$BATS_TEST_TMPDIR/saved.json"
	[[ $output == "$json" ]] || fail "--from -j differs: $(diff <(jq . <<<"$json") <(jq . <<<"$output"))"
	[[ -z $stderr ]] || fail "stderr: $stderr"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/saved.json" \
		--export-markdown "$BATS_TEST_TMPDIR/from.md"
	[[ $output =~ exit_reparent:\ +legacy\ is\ (1\.9|2\.)[0-9]*x\ slower ]] || fail "text: $output"
	cmp "$BATS_TEST_TMPDIR/run.md" "$BATS_TEST_TMPDIR/from.md" ||
		fail "the Markdown differs: $(diff "$BATS_TEST_TMPDIR/run.md" "$BATS_TEST_TMPDIR/from.md")"
	# What is not a factorial's run is named, and nothing is printed.
	jq '.samples[3].cell = "LOX"' "$BATS_TEST_TMPDIR/saved.json" >"$BATS_TEST_TMPDIR/bad.json"
	run -1 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/bad.json"
	[[ $stderr == *"not an abpath factorial result: a run without a \"cell\" of L and O"* ]] || fail "$stderr"
	[[ -z $output ]] || fail "stdout: $output"
	jq '.factorial = ["exit_reparent", "exit_reparent"]' "$BATS_TEST_TMPDIR/saved.json" >"$BATS_TEST_TMPDIR/bad.json"
	run -1 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/bad.json"
	[[ $stderr == *"a path in \"factorial\" twice"* ]] || fail "$stderr"
	jq '.samples[5].block = 9' "$BATS_TEST_TMPDIR/saved.json" >"$BATS_TEST_TMPDIR/bad.json"
	run -1 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/bad.json"
	[[ $stderr == *"a \"block\" within its replicates"* ]] || fail "$stderr"
}

@test "factorial --plot: an interaction plot for each pair of paths, from the bench and from --from" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	export FAKE_EFFECTS=exit_reparent=2,group_cputime=1.5 FAKE_INTERACTIONS="exit_reparent,group_cputime=1.2"
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --factorial exit_reparent,group_cputime,timer_softirq \
		--plot "$BATS_TEST_TMPDIR/i.svg"
	echo "$output" >"$BATS_TEST_TMPDIR/saved.json"
	local pair
	for pair in exit_reparent-group_cputime exit_reparent-timer_softirq group_cputime-timer_softirq; do
		grep -q '<svg' "$BATS_TEST_TMPDIR/i-$pair.svg" || fail "no SVG for $pair"
		[[ $stderr == *"wrote $BATS_TEST_TMPDIR/i-$pair.svg"* ]] || fail "not said: $stderr"
	done
	# The plot's title names the pair and its interaction ratio.
	grep -q 'exit_reparent × group_cputime, interaction 1\.[12]' "$BATS_TEST_TMPDIR/i-exit_reparent-group_cputime.svg" ||
		fail "title: $(grep -o '<title>[^<]*' "$BATS_TEST_TMPDIR/i-exit_reparent-group_cputime.svg" | head -3)"
	[[ ! -e $BATS_TEST_TMPDIR/i.svg ]] || fail "a plot under the bare name"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/saved.json" --plot "$BATS_TEST_TMPDIR/f.png"
	for pair in exit_reparent-group_cputime exit_reparent-timer_softirq group_cputime-timer_softirq; do
		[[ $(head -c 4 "$BATS_TEST_TMPDIR/f-$pair.png" | od -An -c | tr -d ' ') == 211PNG ]] ||
			fail "no PNG for $pair"
	done
}

@test "factorial --pool: each effect pooled over hosts; other kinds of result, other factorials and one run twice refused" {
	export FAKE_EFFECTS=exit_reparent=2,group_cputime=1.5 FAKE_INTERACTIONS="exit_reparent,group_cputime=1.2"
	local h from=()
	for h in 1 2 3; do
		FAKE_SEED=$h "$ABPATH" -j bench forkexit --factorial exit_reparent,group_cputime \
			>"$BATS_TEST_TMPDIR/host$h.json" 2>/dev/null
		from+=(--from "$BATS_TEST_TMPDIR/host$h.json")
	done
	run -0 --separate-stderr "$ABPATH" bench -j --pool "${from[@]}"
	jq_ok '.schema == "abpath-pool-factorial/1" and (.hosts | length) == 3 and
		[.hosts[].host] == ["host1", "host2", "host3"]'
	jq_ok '(.effects | length) == 3 and [.effects[].effect] ==
		["exit_reparent", "group_cputime", "exit_reparent × group_cputime"]'
	# The truth: exit_reparent 2 sqrt(1.2), group_cputime 1.5 sqrt(1.2),
	# the pair 1.2: the pool's estimate is within 8 % of each (six of its
	# standard errors for the pair, noise 0.02 and 12 runs a host), and
	# among the hosts' own.
	jq_ok '[.effects[].ratio] as $r | [2.1909, 1.6432, 1.2] as $t |
		all(range(3); ($r[.] / $t[.] | log | fabs) < 0.08)'
	jq_ok 'all(.effects[]; .ratio >= (.host_ratios | min) and .ratio <= (.host_ratios | max))'
	jq_ok '.verdicts.exit_reparent | test("^over the 3 hosts, legacy is 2\\.[0-9]+x slower \\(95% CI 2\\.[0-9]+–2\\.[0-9]+\\)$")'
	jq_ok '.verdicts["exit_reparent × group_cputime"] | test("^over the 3 hosts, together in legacy they cost 1\\.[0-9]+x more")'
	run -0 --separate-stderr "$ABPATH" bench --pool "${from[@]}"
	[[ $output == *"exit_reparent × group_cputime"* ]] || fail "text: $output"
	# One run twice.
	run -1 --separate-stderr "$ABPATH" bench --pool "${from[@]}" --from "a=$BATS_TEST_TMPDIR/host1.json"
	[[ $stderr == *"are one run twice"* ]] || fail "$stderr"
	# Another factorial.
	FAKE_SEED=9 "$ABPATH" -j bench forkexit --factorial exit_reparent,timer_softirq >"$BATS_TEST_TMPDIR/other.json" 2>/dev/null
	run -1 --separate-stderr "$ABPATH" bench --pool "${from[@]}" --from "$BATS_TEST_TMPDIR/other.json"
	[[ $stderr == *"are not one factorial's results: the paths (or their order) differ"* ]] || fail "$stderr"
	[[ -z $output ]] || fail "stdout: $output"
	# A one-path bench's result beside a factorial's, either way round.
	cp "$BATS_TEST_DIRNAME/cli-bench-workload.sh" "$ABPATH_WORKLOAD_DIR/forkexit"
	"$ABPATH" -j bench forkexit >"$BATS_TEST_TMPDIR/one.json" 2>/dev/null
	run -1 --separate-stderr "$ABPATH" bench --pool "${from[@]}" --from "$BATS_TEST_TMPDIR/one.json"
	[[ $stderr == *"one.json is not a factorial's result"* ]] || fail "$stderr"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$BATS_TEST_TMPDIR/one.json" "${from[@]}"
	[[ $stderr == *"is a factorial's result and"*"one.json is not"* ]] || fail "$stderr"
}

@test "factorial of a command (-- COMMAND): its wall time per cell, no --path needed" {
	run -0 --separate-stderr "$ABPATH" bench -j --factorial exit_reparent,group_cputime --runs 2 -- sh -c 'exit 0'
	jq_ok '.command and .workload == "command" and .args == ["sh", "-c", "exit 0"] and
		.metric == "wall" and .unit == "s" and .cells == 4 and .model.runs == 8'
	jq_ok 'all(.samples[]; .results.exit_status == 0)'
}

@test "factorial: SIGINT mid-bench reports the runs so far (complete: false), restores every mode, dies of it" {
	local d=$BATS_TEST_TMPDIR i rc=0
	# Five quick runs, then one that waits to be interrupted.
	"$ABPATH" bench -j --factorial exit_reparent,group_cputime -- sh -c \
		"n=\$(cat $d/n 2>/dev/null || echo 0); echo \$((n + 1)) >$d/n; [ \$n -ge 5 ] && exec sleep 60; exit 0" \
		>"$d/out" 2>"$d/err" 3>&- &
	local pid=$!
	for ((i = 0; i < 300; i++)); do
		[[ $(cat "$d/n" 2>/dev/null) == 6 ]] && break
		sleep 0.1
	done
	[[ $(cat "$d/n" 2>/dev/null) == 6 ]] || fail "the sixth run never started: $(cat "$d/err")"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	assert_equal "$rc" 130
	grep -q 'interrupted by SIGINT in run 6 of 14' "$d/err" || fail "$(cat "$d/err")"
	jq -e '.complete == false and (.samples | length) == 5 and .schema == "abpath-bench/5"' "$d/out" >/dev/null ||
		fail "the report: $(cat "$d/out")"
	# Three measured runs cannot fit 4 parameters: said, not a crash.
	jq -e '.model.error | test("cannot tell every effect")' "$d/out" >/dev/null || fail "model: $(jq -c .model "$d/out")"
	[[ $(all_modes) != *legacy* ]] || fail "a path left in legacy: $(all_modes)"
}
