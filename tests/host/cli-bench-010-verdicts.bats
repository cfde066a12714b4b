#!/usr/bin/env bats
# What 'abpath bench' says, held to what it means (#54): properties of the
# statistics that any correct report has (swapping the modes inverts the
# ratio, scaling the times changes nothing, the order of the hosts changes
# nothing, a host given twice is refused), and every verdict word's error
# rate by simulation through the code that decides it
# (tests/tools/verdict-table: a quick run here, seed fixed; make check-full,
# ABPATH_FULL=1, runs the 20,000-replicate table of docs/benchmarks.md).
# --from and --pool run nothing, so no module is needed.

load cli-helper

setup() {
	cli_setup
}

# Each result of fleet $1 rewritten by jq filter $2 into $BATS_TEST_TMPDIR/$3,
# named as before; SWAPPED: their --from.
rewrite() {
	local f out=$BATS_TEST_TMPDIR/$3
	mkdir -p "$out"
	SWAPPED=()
	for f in "${FROM[@]}"; do
		[[ $f == --from ]] && continue
		jq "$2" "$f" >"$out/${f##*/}"
		SWAPPED+=(--from "$out/${f##*/}")
	done
}

# Compares pairs "what got want" of numbers to a relative 1e-12; prints
# each and fails on any apart.
close() {
	python3 - "$@" <<-'EOF'
		import sys
		a = sys.argv[1:]
		bad = 0
		for what, got, want in zip(a[0::3], a[1::3], a[2::3]):
		    g, w = float(got), float(want)
		    ok = abs(g - w) <= 1e-12 * max(1.0, abs(w))
		    bad += not ok
		    print("%-28s got %.17g want %.17g%s" % (what, g, w, "" if ok else "  <- differs"))
		sys.exit(1 if bad else 0)
	EOF
}

# close_jq GOT WANT [WHAT GOT_FILTER WANT_FILTER]...: close() on the numbers
# each pair of jq filters takes from the JSON documents GOT and WANT; a
# WANT_FILTER of "=" is GOT_FILTER again.
close_jq() {
	local got=$1 want=$2 args=() w
	shift 2
	while (($# >= 3)); do
		w=$3
		[[ $w == = ]] && w=$2
		args+=("$1" "$(jq "$2" <<<"$got")" "$(jq "$w" <<<"$want")")
		shift 3
	done
	(($# == 0)) || { fail "close_jq: $# arguments past the last triple: $*"; return; }
	close "${args[@]}"
}

SWAP='.samples |= map(.mode |= if . == "legacy" then "optimized" else "legacy" end)'

@test "property: swapping legacy and optimized inverts a bench's ratio and its interval" {
	local f=$BATS_TEST_DIRNAME/cli-bench-fixtures/workload.json a b
	jq "$SWAP" "$f" >"$BATS_TEST_TMPDIR/swapped.json"
	a=$("$ABPATH" -j bench --from "$f" 2>/dev/null)
	b=$("$ABPATH" -j bench --from "$BATS_TEST_TMPDIR/swapped.json" 2>/dev/null)
	run -0 close_jq "$b" "$a" ratio .summary.ratio.value '1 / .summary.ratio.value' \
		ci_lo '.summary.ratio.ci95[0]' '1 / .summary.ratio.ci95[1]' \
		ci_hi '.summary.ratio.ci95[1]' '1 / .summary.ratio.ci95[0]' \
		mann_whitney_p .summary.mann_whitney.p =
	# The verdict says the same factor, the other way.
	assert_equal "$(jq -r .summary.verdict <<<"$a" | sed 's/slower/SIDE/')" \
		"$(jq -r .summary.verdict <<<"$b" | sed 's/faster/SIDE/')"
}

@test "property: swapping legacy and optimized inverts the pool, its intervals and its findings" {
	fleet outlier8
	rewrite outlier8 "$SWAP" swapped
	local a b
	a=$("$ABPATH" -j bench --pool "${FROM[@]}" 2>/dev/null)
	b=$("$ABPATH" -j bench --pool "${SWAPPED[@]}" 2>/dev/null)
	run -0 close_jq "$b" "$a" ratio .pooled.ratio '1 / .pooled.ratio' \
		ci_lo '.pooled.ci95[0]' '1 / .pooled.ci95[1]' \
		ci_hi '.pooled.ci95[1]' '1 / .pooled.ci95[0]' \
		pi_lo '.pooled.prediction_pi95[0]' '1 / .pooled.prediction_pi95[1]' \
		tau2 .pooled.tau2 = \
		without_host05 '.pooled.without[0].ratio' '1 / .pooled.without[0].ratio'
	assert_equal "$(jq -c '.pooled.hosts_differ | [.legacy_better, .legacy_worse, .neither]' <<<"$b")" \
		"$(jq -c '.pooled.hosts_differ | [.legacy_worse, .legacy_better, .neither]' <<<"$a")"
	assert_equal "$(jq -c .pooled.outliers <<<"$b")" "$(jq -c .pooled.outliers <<<"$a")"
}

@test "property: scaling every time leaves the ratio, the pool and the verdicts unchanged" {
	local f=$BATS_TEST_DIRNAME/cli-bench-fixtures/workload.json a b s
	a=$("$ABPATH" -j bench --from "$f" 2>/dev/null)
	for s in 1000 0.001 3; do
		jq --argjson s "$s" '.samples[].value *= $s' "$f" >"$BATS_TEST_TMPDIR/scaled.json"
		b=$("$ABPATH" -j bench --from "$BATS_TEST_TMPDIR/scaled.json" 2>/dev/null)
		run -0 close_jq "$b" "$a" "ratio x$s" .summary.ratio.value = \
			"ci_lo x$s" '.summary.ratio.ci95[0]' = \
			"ci_hi x$s" '.summary.ratio.ci95[1]' =
		assert_equal "$(jq -r .summary.verdict <<<"$b")" "$(jq -r .summary.verdict <<<"$a")"
	done
	fleet k10
	a=$("$ABPATH" -j bench --pool "${FROM[@]}" 2>/dev/null)
	rewrite k10 '.samples[].value *= 1000' scaled
	b=$("$ABPATH" -j bench --pool "${SWAPPED[@]}" 2>/dev/null)
	run -0 close_jq "$b" "$a" ratio .pooled.ratio = \
		ci_lo '.pooled.ci95[0]' = \
		pi_hi '.pooled.prediction_pi95[1]' =
	assert_equal "$(jq -r .pooled.verdict <<<"$b")" "$(jq -r .pooled.verdict <<<"$a")"
}

@test "property: permuting the hosts leaves the pool unchanged" {
	fleet k10
	local a b i perm=()
	a=$("$ABPATH" -j bench --pool "${FROM[@]}" 2>/dev/null)
	# Reversed, then every second host first.
	for ((i = ${#FROM[@]} - 1; i > 0; i -= 2)); do perm+=(--from "${FROM[i]}"); done
	b=$("$ABPATH" -j bench --pool "${perm[@]}" 2>/dev/null)
	run -0 close_jq "$b" "$a" ratio .pooled.ratio = \
		ci_lo '.pooled.ci95[0]' = \
		ci_hi '.pooled.ci95[1]' = \
		tau2 .pooled.tau2 = \
		q .pooled.q = \
		pi_lo '.pooled.prediction_pi95[0]' =
	# Each host's own numbers and flags travel with it.
	assert_equal "$(jq -c '[.hosts[] | [.host, .weight, .p_holm, .differs, .outlier]] | sort' <<<"$b")" \
		"$(jq -c '[.hosts[] | [.host, .weight, .p_holm, .differs, .outlier]] | sort' <<<"$a")"
	assert_equal "$(jq -c '.pooled | [.hosts_differ, .outliers]' <<<"$b")" \
		"$(jq -c '.pooled | [.hosts_differ, .outliers]' <<<"$a")"
}

@test "property: a host given twice is refused, however its copy is named or its runs ordered" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3
	jq '.samples |= (.[0:2] + (.[2:] | reverse))' "$d/host03.json" >"$BATS_TEST_TMPDIR/again.json"
	run -1 --separate-stderr "$ABPATH" bench --pool "${FROM[@]}" --from "$BATS_TEST_TMPDIR/again.json"
	[[ $stderr == "abpath: error: $d/host03.json and $BATS_TEST_TMPDIR/again.json are one run twice: the same "* ]] ||
		fail "stderr: $stderr"
	assert_equal "$output" ''
}

@test "ties are decided by the runs: a host whose legacy runs are its optimized runs reordered ties" {
	fleet k3
	local d=$BATS_TEST_TMPDIR/k3
	# Legacy's runs become optimized's, in another order: no difference.
	jq '([.samples[] | select(.mode == "optimized" and (.warmup | not) and (.invalid == null)) | .value]) as $o
		| .samples |= map(select(.mode == "optimized" or .warmup))
		| .samples += [$o | reverse | .[] | {"mode": "legacy", "warmup": false, "value": .}]
		| .samples |= [foreach .[] as $s (0; . + 1; $s + {"index": .})]' \
		"$d/host02.json" >"$BATS_TEST_TMPDIR/tie.json"
	run -0 --separate-stderr "$ABPATH" -j bench --pool --from "$d/host01.json" \
		--from "$BATS_TEST_TMPDIR/tie.json" --from "$d/host03.json"
	assert_equal "$(jq -c '[.hosts[1].log_ratio, .hosts[1].differs, .pooled.sign_test.ties, .pooled.hosts_differ.neither]' <<<"$output")" \
		'[0,false,1,1]'
	assert_equal "$(jq -r .pooled.verdict <<<"$output" | cut -d';' -f1)" \
		"per host: legacy slower on 2 of 3 hosts, faster on 0, no difference shown on 1 (each host's own 95% interval, Holm over 3)"
}

@test "every verdict word holds its error rate: the quick verdict table" {
	local opts=(--quick)
	# make check-full: the whole table, 20,000 replicates a row.
	[[ ${ABPATH_FULL:-0} == 1 ]] && opts=()
	run -0 "$TOP/tests/tools/verdict-table" "${opts[@]}"
	refute_output --partial FAIL
	if [[ ${ABPATH_FULL:-0} != 1 ]]; then
		assert_line --regexp '^PASS: 0 of [0-9]+ rows fail$'
		assert_line --regexp '^unlike the others +no outlier, 10 hosts, τ 2 SE '
	fi
}

@test "the verdict table can fail: a false-flag rate held to a bound below what it is" {
	# An error rate bound of 0.1% where the flags' is 1-5%: rows fail.
	run -1 "$TOP/userspace/bench/verdict-sim" --reps 500 --max-hosts 10 --alpha-bound 0.001 flags
	assert_line --regexp '^FAIL: [1-9][0-9]* of [0-9]+ rows fail$'
}
