#!/usr/bin/env bats
# softirq-rate: the /proc/softirqs parser, on fake files.

load wl-common

setup_file() {
	wl_build
}

setup() {
	SIRQ="$WL_DIR/softirq-rate"
	FAKE="$BATS_TEST_TMPDIR/softirqs"
	cat >"$FAKE" <<'F'
                    CPU0       CPU1       CPU2       CPU3       
          HI:          0          1          0          0
       TIMER:     123456         78    4294967295          9
      NET_TX:          4          0          0          0
       SCHED:      22566      22975          7          8
F
}

@test "--dump reads the TIMER column of every CPU" {
	run -0 "$SIRQ" --softirqs "$FAKE" --dump -j
	jq -e '.results.cpus == [0, 1, 2, 3]
		and .results.timer == [123456, 78, 4294967295, 9]
		and .value == 123456 + 78 + 4294967295 + 9
		and .params.scenario == "dump"' <<<"$output"
	run -0 "$SIRQ" --softirqs "$FAKE" --dump
	assert_output --partial "timer=[123456,78,4294967295,9]"
}

@test "sparse CPU numbers in the header are kept" {
	printf '   CPU0  CPU5\nTIMER: 1 2\n' >"$FAKE"
	run -0 "$SIRQ" --softirqs "$FAKE" --dump -j
	jq -e '.results.cpus == [0, 5] and .results.timer == [1, 2]' <<<"$output"
}

@test "a run on a static file sees no softirqs and still reports per CPU" {
	# Only online CPUs count; the host has at least CPU0.
	run -0 "$SIRQ" --softirqs "$FAKE" -S idle -t 0.05 -j
	wl_json_ok softirq-rate "$output"
	jq -e '.value == 0 and .results.cpus[0] == 0 and .results.per_cpu[0] == 0
		and .checks.monotonic' <<<"$output"
}

@test "malformed files fail with exit 1 and say why" {
	local -A bad=(
		[no-timer]=$'  CPU0 CPU1\n  HI: 0 0\n'
		[short]=$'  CPU0 CPU1\nTIMER: 5\n'
		[long]=$'  CPU0 CPU1\nTIMER: 5 6 7\n'
		[header]=$'  CPU0 foo\nTIMER: 5 6\n'
		[no-cpus]=$'\nTIMER: 5 6\n'
		[empty]=''
	)
	for k in "${!bad[@]}"; do
		printf '%s' "${bad[$k]}" >"$FAKE"
		run -1 --separate-stderr "$SIRQ" --softirqs "$FAKE" --dump
		[[ $stderr == "softirq-rate: error: $FAKE: "* ]] || fail "$k: $stderr"
	done
	run -1 --separate-stderr "$SIRQ" --softirqs "$BATS_TEST_TMPDIR/missing" -t 0.01
	[[ $stderr == *"No such file or directory"* ]] || fail "$stderr"
}

@test "strings in the JSON are escaped" {
	local odd="$BATS_TEST_TMPDIR/a\"b\\c	d"
	cp "$FAKE" "$odd"
	run -0 "$SIRQ" --softirqs "$odd" --dump -j
	[ "$(jq -r .params.softirqs <<<"$output")" = "$odd" ]
}
