#!/usr/bin/env bats
# abpath bench --pool (#41): one bench's results from several hosts, pooled.
# The hosts' results are made at test time from the maths fixtures
# (fixtures/pool/*.txt) by tests/tools/pool-fixture, so the runs come from
# one place, and the pooled numbers are held to statsmodels' on the same
# runs (tests/tools/pool-check.py --expected).  Each file also carries a
# warm-up per mode and, on the first host, an invalid run, a thousand
# times the rest: counted, they would move every number.  --pool runs
# nothing, so no module is needed, but for the microcode in a bench's
# provenance.

load cli-helper

CHECK=$TOP/tests/tools/pool-check.py
TEXT_JSON=$BATS_TEST_DIRNAME/cli-bench-text-json.py

setup() {
	cli_setup
}

need_statsmodels() {
	/usr/bin/python3 -c 'import statsmodels.stats.meta_analysis' 2>/dev/null ||
		skip "python3-statsmodels is not installed (tests/deps.sh host)"
}

# abpath's -j of fixture $1 against statsmodels' numbers for the same runs:
# prints each quantity compared and its |difference|, fails above 1e-6.
agrees_with_statsmodels() {
	local got want
	fleet "$1"
	got=$("$ABPATH" -j bench --pool "${FROM[@]}") || fail "abpath bench --pool $1 failed"
	want=$(/usr/bin/python3 "$CHECK" --expected welch-floor "$POOL_FIXTURES/$1.txt") ||
		fail "pool-check.py --expected failed on $1"
	run -0 /usr/bin/python3 - "$got" "$want" <<-'EOF'
		import json, math, sys
		got, want = json.loads(sys.argv[1]), json.loads(sys.argv[2])
		p = got["pooled"]
		pairs = [("mu", p["log_ratio"], want["mu"]),
		         ("lo", p["log_ci95"][0], want["lo"]), ("hi", p["log_ci95"][1], want["hi"]),
		         ("ratio", p["ratio"], want["ratio"]),
		         ("ratio_lo", p["ci95"][0], want["ratio_lo"]),
		         ("ratio_hi", p["ci95"][1], want["ratio_hi"]),
		         ("se", p["se"], want["se"]), ("tau2", p["tau2"], want["tau2"]),
		         ("tau", p["tau"], math.sqrt(want["tau2"])), ("Q", p["q"], want["q"]),
		         ("I2", p["i2"], want["i2"] or 0.0), ("sign_p", p["sign_test"]["p"], want["sign_p"])]
		if want["k"] >= p["prediction_min_hosts"]:
		    pairs += [("pi_lo", p["prediction_pi95"][0], math.exp(want["pi_lo"])),
		              ("pi_hi", p["prediction_pi95"][1], math.exp(want["pi_hi"]))]
		elif p["prediction_pi95"] is not None:
		    pairs += [("prediction below its hosts", None, 0)]
		for h, w in zip(got["hosts"], want["hosts"]):
		    pairs += [("%s.%s" % (h["host"], k), h[g], w[k]) for g, k in
		              (("log_ratio", "y"), ("variance", "v"), ("df", "df"), ("weight", "weight"),
		               ("p_holm", "p_holm"))]
		    if h["differs"] != w["differs"]:
		        pairs += [("%s.differs %s, want %s" % (h["host"], h["differs"], w["differs"]), None, 0)]
		without = {x["host"]: x for x in p["without"] or []}
		for w in want["hosts"]:
		    if w["name"] in without:
		        x = without[w["name"]]
		        pairs += [("%s.without" % w["name"], x["ratio"], math.exp(w["without"][0])),
		                  ("%s.without_lo" % w["name"], x["ci95"][0], math.exp(w["without"][1])),
		                  ("%s.without_hi" % w["name"], x["ci95"][1], math.exp(w["without"][2]))]
		if sorted(without) != sorted(p["outliers"] or []):
		    pairs += [("without %s, outliers %s" % (sorted(without), p["outliers"]), None, 0)]
		bad = 0
		for what, g, w in pairs:
		    d = abs(g - w) if g is not None else math.inf
		    bad += not d <= 1e-6
		    print("%-20s abpath %.12g statsmodels %.12g |diff| %.2g" % (what, g if g is not None else math.nan, w, d))
		names = [h["host"] for h in got["hosts"]]
		if names != [w["name"] for w in want["hosts"]]:
		    print("hosts %s, want %s" % (names, [w["name"] for w in want["hosts"]])); bad += 1
		flags = [h["outlier"] for h in got["hosts"]]
		if flags != [w["outlier"] for w in want["hosts"]]:
		    print("outliers %s, want %s" % (flags, [w["outlier"] for w in want["hosts"]])); bad += 1
		if (p["sign_test"]["above_1"], p["sign_test"]["below_1"]) != (want["above"], want["below"]):
		    print("sign counts differ"); bad += 1
		print("compared %d numbers, %d differ" % (len(pairs), bad))
		sys.exit(1 if bad else 0)
	EOF
	assert_line --regexp '^compared [0-9]+ numbers, 0 differ$'
}

@test "bench --pool -j: the pooled numbers are statsmodels' (2, 3, 5, 8, 10 hosts)" {
	need_statsmodels
	agrees_with_statsmodels k2
	agrees_with_statsmodels k3
	agrees_with_statsmodels homogeneous
	assert_line --regexp '^pi_lo '
	agrees_with_statsmodels outlier8
	agrees_with_statsmodels k10
	assert_line --regexp '^host10\.weight '
}

@test "bench --pool: each host's ratio, interval, p and runs are its own report's" {
	fleet outlier8
	run -0 --separate-stderr "$ABPATH" -j bench --pool "${FROM[@]}"
	local pooled=$output h own
	for h in host01 host05; do
		own=$("$ABPATH" -j bench --from "$BATS_TEST_TMPDIR/outlier8/$h.json" 2>/dev/null)
		assert_equal "$(jq -c --arg h "$h" '.hosts[] | select(.host == $h) |
			[.ratio, .ci95, .p, .n_legacy, .n_optimized]' <<<"$pooled")" \
			"$(jq -c '.summary | [.ratio.value, .ratio.ci95, .mann_whitney.p,
			.legacy.n, .optimized.n]' <<<"$own")"
	done
	# Neither the warm-ups nor host01's invalid run are among them.
	assert_equal "$(jq -c '.hosts[0] | [.n_legacy, .n_optimized]' <<<"$pooled")" '[7,8]'
}

@test "bench --pool: the outlier of outlier8 is named in text and JSON, no other host" {
	fleet outlier8
	run -0 --separate-stderr "$ABPATH" -j bench --pool "${FROM[@]}"
	assert_equal "$(jq -c '.pooled.outliers' <<<"$output")" '["host05"]'
	assert_equal "$(jq -c '[.hosts[] | select(.outlier) | .host]' <<<"$output")" '["host05"]'
	assert_equal "$(jq '[.hosts[] | select(.outlier == false)] | length' <<<"$output")" 7
	run -0 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}"
	assert_line --regexp '^  host05 .* yes$'
	assert_equal "$(grep -c '^  host0[1-8] .* no$' <<<"$output")" 7
	assert_line --regexp '^  outliers: +host05$'
	assert_line --regexp '^    host05 +1\.775 +1\.700–1\.854$'
	assert_line --regexp '^  verdict: +per host: legacy slower on each of the 8 hosts \(each host.s own 95% interval, Holm over 8\); mean over hosts: legacy slower, pooled legacy/optimized 1\.68 \(95% CI 1\.49–1\.90\) \(simulated coverage ≥ 0\.92 at 8 hosts\); a new host: 95% prediction interval 1\.12–2\.54 \(simulated coverage ≥ 0\.87 at 8 hosts\); unlike the others \(Bonferroni over 8\): host05, without it pooled legacy/optimized 1\.77 \(95% CI 1\.70–1\.85\)$'
}

@test "bench --pool: text and JSON are one tree" {
	local f
	for f in outlier8 k2; do
		fleet $f
		"$ABPATH" bench --pool "${FROM[@]}" >"$BATS_TEST_TMPDIR/$f.text"
		"$ABPATH" -j bench --pool "${FROM[@]}" >"$BATS_TEST_TMPDIR/$f.json"
		run -0 python3 "$TEXT_JSON" "$BATS_TEST_TMPDIR/$f.text" "$BATS_TEST_TMPDIR/$f.json"
		assert_line --regexp '^compared [0-9]+ values: ([3-9][0-9]|[0-9]{3,}) numbers, [0-9]+ words; 0 differ$'
	done
}

@test "bench --pool: no prediction interval below 5 hosts, no flags below 4; 2 hosts say their coverage" {
	fleet k2
	run -0 --separate-stderr "$ABPATH" -j bench --pool "${FROM[@]}"
	assert_equal "$(jq -c '[.pooled.hosts, .pooled.prediction_pi95, .pooled.outliers,
		([.hosts[].outlier] | unique)]' <<<"$output")" '[2,null,null,[null]]'
	run -0 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}"
	assert_line --regexp '^  prediction_pi95: +-$'
	assert_line --regexp '^  verdict: .* \(simulated coverage ≥ 0\.95 at 2 hosts, t with 1 df\); a new host: too few hosts for a prediction interval \(2; it needs 5\)$'
	assert_equal "$(jq .pooled.ci95_coverage <<<"$("$ABPATH" -j bench --pool "${FROM[@]}")")" 0.95
	fleet k3
	run -0 --separate-stderr "$ABPATH" -j bench --pool "${FROM[@]}"
	assert_equal "$(jq -c '.pooled | [.prediction_pi95, .prediction_coverage, .prediction_min_hosts, .outliers]' <<<"$output")" \
		'[null,null,5,null]'
	# From 5 hosts on there is one, around the mean, with its coverage.
	fleet homogeneous
	run -0 --separate-stderr "$ABPATH" -j bench --pool "${FROM[@]}"
	assert_equal "$(jq '.pooled | .hosts == 5 and .prediction_pi95[0] < .ci95[0] and
		.ci95[1] < .prediction_pi95[1] and .prediction_coverage > 0.8' <<<"$output")" true
}

@test "bench --pool --export-markdown: the per-host table and the verdict" {
	fleet outlier8
	run -0 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" \
		--export-markdown "$BATS_TEST_TMPDIR/pool.md"
	local md
	md=$(<"$BATS_TEST_TMPDIR/pool.md")
	grep -q '^| host | kernel | CPU | CPUs | microcode | governor |' <<<"$md" || fail "no table header: $md"
	assert_equal "$(grep -c '^| host0[1-8] | 6\.1\.0-2[0-7]-amd64 | Fake CPU host0[1-8] @ 2\.[0-7]GHz | [246] | 0x500360[0-7] | performance | ' <<<"$md")" 8
	grep -q '^| host05 | .* | 1\.20 (95% CI 1\.16–1\.25) | .* | \*\*yes\*\* |$' <<<"$md" || fail "host05's row: $md"
	grep -q '^\*\*per host: legacy slower on each of the 8 hosts .*unlike the others (Bonferroni over 8): host05, without it pooled legacy/optimized 1\.77 (95% CI 1\.70–1\.85)\*\*$' <<<"$md" || fail "$md"
	# To standard output, after the report.
	run -0 --separate-stderr "$ABPATH" -j bench --pool "${FROM[@]}" --export-markdown -
	assert_equal "$(head -n 1 <<<"$output" | jq -r .pooled.outliers[0])" host05
	assert_line --index 1 '`forkexit -N 2000`, path exit_reparent; fake_latency (us, lower is better): 8 hosts pooled'
}

@test "bench --pool: hosts are named by file or LABEL=; provenance.host only where it tells them apart" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "lab=$d/host01.json" \
		--from "$d/host02.json" --from "$d/host03.json"
	assert_equal "$(jq -c '[.hosts[].host]' <<<"$output")" '["lab","host02","host03"]'
	# A fleet's VMs all call themselves abpath-vm: no column for that.
	run -0 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}"
	refute_output --partial hostname
	refute_output --partial abpath-vm
	jq '.provenance.host = "box-a"' "$d/host01.json" >"$BATS_TEST_TMPDIR/a.json"
	jq '.provenance.host = "box-b"' "$d/host02.json" >"$BATS_TEST_TMPDIR/b.json"
	run -0 --separate-stderr "$ABPATH" bench --pool --from "$BATS_TEST_TMPDIR/a.json" \
		--from "$BATS_TEST_TMPDIR/b.json"
	assert_line --regexp '^  host +cpus .* hostname$'
	assert_line --regexp '^  a +2 .* box-a$'
}

@test "bench --pool refuses results of different benches, naming both" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3
	jq '.path = "group_cputime"' "$d/host02.json" >"$BATS_TEST_TMPDIR/path.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$d/host01.json" --from "$BATS_TEST_TMPDIR/path.json"
	assert_equal "$stderr" "abpath: error: $d/host01.json and $BATS_TEST_TMPDIR/path.json are results of different benches: path 'exit_reparent' in $d/host01.json, 'group_cputime' in $BATS_TEST_TMPDIR/path.json; --pool pools one bench over hosts"
	assert_equal "$output" ''
	jq '.command = true | .args = ["sleep", "1"]' "$d/host03.json" >"$BATS_TEST_TMPDIR/cmd.json"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$BATS_TEST_TMPDIR/cmd.json"
	assert_equal "$stderr" "abpath: error: $d/host01.json and $BATS_TEST_TMPDIR/cmd.json are results of different benches: workload or command 'forkexit -N 2000' in $d/host01.json, 'sleep 1' in $BATS_TEST_TMPDIR/cmd.json; --pool pools one bench over hosts"
	assert_equal "$output" ''
	jq '.args = ["-N", "4000"]' "$d/host02.json" >"$BATS_TEST_TMPDIR/args.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$d/host01.json" --from "$BATS_TEST_TMPDIR/args.json"
	[[ $stderr == *"'forkexit -N 2000' in $d/host01.json, 'forkexit -N 4000' in"* ]] || fail "$stderr"
	jq '.metric = "other"' "$d/host02.json" >"$BATS_TEST_TMPDIR/metric.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$d/host01.json" --from "$BATS_TEST_TMPDIR/metric.json"
	[[ $stderr == *"metric 'fake_latency' in $d/host01.json, 'other' in"* ]] || fail "$stderr"
	jq '.schema = "abpath-bench/2" | del(.samples[].invalid)' "$d/host02.json" >"$BATS_TEST_TMPDIR/v2.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$d/host01.json" --from "$BATS_TEST_TMPDIR/v2.json"
	[[ $stderr == *"schema 'abpath-bench/3' in $d/host01.json, 'abpath-bench/2' in"* ]] || fail "$stderr"
	assert_equal "$output" ''
}

@test "bench --pool refuses one host twice, files not abpath's, and too few runs" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3
	mkdir "$BATS_TEST_TMPDIR/again"
	cp "$d/host01.json" "$BATS_TEST_TMPDIR/again/"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$BATS_TEST_TMPDIR/again/host01.json"
	assert_equal "$stderr" "abpath: error: $d/host01.json and $BATS_TEST_TMPDIR/again/host01.json both name host 'host01': one result per host (two hosts? name them apart: --from LABEL=FILE)"
	# Named apart, the same run is still one host: its runs say so.
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "other=$BATS_TEST_TMPDIR/again/host01.json"
	assert_equal "$stderr" "abpath: error: $d/host01.json and $BATS_TEST_TMPDIR/again/host01.json are one run twice: the same 8 legacy and 6 optimized runs, value for value (a copy under another name?); --pool takes each host's bench once"
	assert_equal "$output" ''
	echo '{"a":1}' >"$BATS_TEST_TMPDIR/foreign.json"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$BATS_TEST_TMPDIR/foreign.json"
	assert_equal "$stderr" "abpath: error: $BATS_TEST_TMPDIR/foreign.json: not an abpath bench result: neither \"samples\" (abpath bench -j) nor \"experiments\" or \"points\" (abpath bench --suite)"
	echo 'host01 legacy 1 2 3' >"$BATS_TEST_TMPDIR/text.json"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$BATS_TEST_TMPDIR/text.json"
	[[ $stderr == "abpath: error: $BATS_TEST_TMPDIR/text.json: not an abpath result: not JSON, line 1: "* ]] || fail "$stderr"
	echo '{"schema": "abpath-bench/3", "suite": "history", "experiments": []}' >"$BATS_TEST_TMPDIR/suite.json"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$BATS_TEST_TMPDIR/suite.json"
	assert_equal "$stderr" "abpath: error: $BATS_TEST_TMPDIR/suite.json is a suite's result: --pool pools plain bench results ('abpath bench -j')"
	# One valid optimized run: no variance to weigh the host by.
	jq '.samples |= map(select(.mode == "legacy" or .warmup)) + [{"mode": "optimized", "value": 1}]' \
		"$d/host02.json" >"$BATS_TEST_TMPDIR/few.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$d/host01.json" --from "$BATS_TEST_TMPDIR/few.json"
	assert_equal "$stderr" "abpath: error: $BATS_TEST_TMPDIR/few.json: 4 valid legacy and 1 valid optimized runs: pooling needs two or more of each"
}

@test "bench --pool: a copy is one run twice by its runs, whatever its name and provenance" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3 copy=$BATS_TEST_TMPDIR/copy.json
	# Another name, another time and boot, the runs in another order:
	# still the same runs, value for value.
	jq '.provenance.time = "2026-02-02T00:00:00Z" | .provenance.boot_id = "b" |
		.samples |= reverse' "$d/host02.json" >"$copy"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$copy"
	assert_equal "$stderr" "abpath: error: $d/host02.json and $copy are one run twice: the same 4 legacy and 8 optimized runs, value for value (a copy under another name?); --pool takes each host's bench once"
	assert_equal "$output" ''
	# One run apart: another bench.
	jq '(.samples | map(.warmup) | index(false)) as $i | .samples[$i].value *= 1.0001' \
		"$copy" >"$BATS_TEST_TMPDIR/near.json"
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "$d/host02.json" --from "$BATS_TEST_TMPDIR/near.json"
	assert_equal "$(jq .pooled.hosts <<<"$output")" 2
}

@test "bench --pool: two benches started in the same second on VMs of one image are two hosts" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3 a=$BATS_TEST_TMPDIR/vm-a.json b=$BATS_TEST_TMPDIR/vm-b.json
	# One image: the same host name, kernel build and second; each VM its
	# own boot, and its own runs.
	jq '.provenance |= (.host = "abpath-vm" | .kernel_version = "#1 SMP" |
		.time = "2026-03-03T10:00:00Z" | .time_nsec = 123456789 |
		.boot_id = "1d2f")' "$d/host01.json" >"$a"
	jq '.provenance |= (.host = "abpath-vm" | .kernel_version = "#1 SMP" |
		.time = "2026-03-03T10:00:00Z" | .time_nsec = 123999999 |
		.boot_id = "9e8c")' "$d/host02.json" >"$b"
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "$a" --from "$b"
	assert_equal "$(jq -c '[.pooled.hosts, [.machines[].time]]' <<<"$output")" \
		'[2,["2026-03-03T10:00:00Z","2026-03-03T10:00:00Z"]]'
	# Results from before boot_id and time_nsec: the same, by their runs.
	jq '.provenance |= del(.boot_id, .time_nsec)' "$a" >"$BATS_TEST_TMPDIR/old-a.json"
	jq '.provenance |= del(.boot_id, .time_nsec)' "$b" >"$BATS_TEST_TMPDIR/old-b.json"
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "$BATS_TEST_TMPDIR/old-a.json" \
		--from "$BATS_TEST_TMPDIR/old-b.json"
	assert_equal "$(jq .pooled.hosts <<<"$output")" 2
	# The same boot and nanosecond is one run, even if its runs were edited.
	jq '.provenance.boot_id = "1d2f" | .provenance.time_nsec = 123456789' "$b" \
		>"$BATS_TEST_TMPDIR/same.json"
	run -1 --separate-stderr "$ABPATH" bench --pool --from "$a" --from "$BATS_TEST_TMPDIR/same.json"
	assert_equal "$stderr" "abpath: error: $a and $BATS_TEST_TMPDIR/same.json are one run twice: the same boot (1d2f) and start (2026-03-03T10:00:00Z, to the nanosecond) in their provenance"
}

@test "bench: the provenance has the boot id and the start to the nanosecond" {
	fake_cpuinfo
	mkdir -p "$ABPATH_PROC/sys/kernel/random"
	echo 6c1f6a6e-0d3b-4c8e-9a57-2f0d6c1e9b11 >"$ABPATH_PROC/sys/kernel/random/boot_id"
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0
	assert_equal "$(jq -r .provenance.boot_id <<<"$output")" 6c1f6a6e-0d3b-4c8e-9a57-2f0d6c1e9b11
	# time_nsec: the nanoseconds past time's second.
	assert_equal "$(jq '.provenance.time_nsec | . >= 0 and . < 1e9 and . == floor' <<<"$output")" true
}

@test "bench --pool: one host, no --from, and options of the other forms are usage errors" {
	fleet k3
	assert_usage_error bench --pool --from "$BATS_TEST_TMPDIR/k3/host01.json"
	assert_usage_error bench --pool
	assert_usage_error bench --pool "${FROM[@]}" --runs 4
	assert_usage_error bench --pool "${FROM[@]}" -- sleep 1
	assert_usage_error bench --pool "${FROM[@]}" forkexit
	assert_usage_error bench --pool "${FROM[@]}" --suite history
	assert_usage_error bench --pool --suite history
	assert_usage_error bench --pool "${FROM[@]}" --plot "$BATS_TEST_TMPDIR/p.svg"
	assert_usage_error bench --pool "${FROM[@]}" --export-csv "$BATS_TEST_TMPDIR/p.csv"
	run -2 --separate-stderr "$ABPATH" bench --pool --from "$BATS_TEST_TMPDIR/k3/host01.json"
	[[ $stderr == "abpath: --pool needs results from two hosts or more: a --from FILE for each"* ]] || fail "$stderr"
}

# The fake bench tree, with a cpuinfo whose CPUs run two microcode
# revisions, one a prefix of the other.
fake_cpuinfo() {
	fake_module
	fake_bench_tree
	printf 'processor\t: %s\nmodel name\t: Fake CPU\nmicrocode\t: %s\n\n' \
		0 0x5003604 1 0x5003604 2 0x500360 3 0x5003604 >"$ABPATH_PROC/cpuinfo"
}

@test "bench: the provenance has the CPUs' microcode revisions, each once" {
	fake_cpuinfo
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0
	assert_equal "$(jq -r .provenance.microcode <<<"$output")" 0x5003604,0x500360
	run -0 --separate-stderr "$ABPATH" bench forkexit --runs 2 --warmup 0
	assert_line --regexp '^  microcode: +0x5003604,0x500360$'
	sed -i '/^microcode/d' "$ABPATH_PROC/cpuinfo"
	run -0 --separate-stderr "$ABPATH" bench -j forkexit --runs 2 --warmup 0
	assert_equal "$(jq -r .provenance.microcode <<<"$output")" none
}

@test "bench --pool: the machines carry CPUs, governor and microcode; an older file shows -" {
	fake_cpuinfo
	"$ABPATH" bench -j forkexit --runs 3 --warmup 0 >"$BATS_TEST_TMPDIR/one.json" 2>/dev/null
	# The fake workload measures the same every time: a second host
	# measures a little more, else its runs would be the first's.
	"$ABPATH" bench -j forkexit --runs 3 --warmup 0 2>/dev/null |
		jq 'del(.provenance.microcode) | .samples[].value *= 1.01' >"$BATS_TEST_TMPDIR/two.json"
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "$BATS_TEST_TMPDIR/one.json" \
		--from "$BATS_TEST_TMPDIR/two.json"
	assert_equal "$(jq -c '[.machines[] | [.host, .microcode, .cpufreq_governor, .cpus > 0]]' <<<"$output")" \
		'[["one","0x5003604,0x500360","none",true],["two",null,"none",true]]'
	assert_equal "$(jq -c '[.hosts[] | [.kernel != null, .cpu_model]]' <<<"$output")" \
		'[[true,"Fake CPU"],[true,"Fake CPU"]]'
	run -0 --separate-stderr "$ABPATH" bench --pool --from "$BATS_TEST_TMPDIR/one.json" \
		--from "$BATS_TEST_TMPDIR/two.json"
	assert_line --regexp '^  one +[0-9]+ +none +0x5003604,0x500360 '
	assert_line --regexp '^  two +[0-9]+ +none +- '
}
