# The Ctrl-C test of 'abpath bench', shared by the host
# (tests/host/cli-bench-005-command.bats, the fake tree) and the VM
# (015-bench.bats, the real module): a shell loop that runs a bench three
# times, Ctrl-C'd in the first bench's run 3 of 8, must stop, because
# abpath prints the runs so far and then dies of SIGINT.
# shellcheck shell=bash

# ctrl_c_bench_loop ABPATH SECONDS [PREFIX...]: the loop, each run a
# 'sleep SECONDS', started by PREFIX (e.g. env --default-signal=INT).
# OUT and ERR name its output and standard error.  Job control gives the
# loop a process group of its own, which is what a terminal's Ctrl-C
# signals.  exit_reparent must be legacy before, and the caller checks
# that it is again after.
ctrl_c_bench_loop() {
	local abpath=$1 secs=$2 pid status=0 i
	shift 2
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	set -m
	"$@" bash -c 'for i in 1 2 3; do
			"$1" bench --path exit_reparent --runs 4 --warmup 0 -j -- sleep "$2"
			echo "the loop went on after $i"
		done' _ "$abpath" "$secs" >"$OUT" 2>"$ERR" &
	pid=$!
	set +m
	# Two runs and the bench's own work come before run 3: 60 s is a
	# bound no host reaches (docs/ci.md, "Time-bounded tests").
	for ((i = 0; i < 600; i++)); do
		grep -q 'run 3 of 8' "$ERR" && break
		sleep 0.1
	done
	echo "# run 3 began after $i polls of 0.1 s" >&3
	grep -q 'run 3 of 8' "$ERR" || fail "the bench never reached run 3: $(cat "$ERR")"
	kill -INT -- -"$pid"
	wait "$pid" || status=$?
	# abpath died of SIGINT, so bash did too: 128 + 2, and no next round.
	[ "$status" -eq 130 ] || fail "the loop exited with $status: $(cat "$ERR")"
	run -0 cat "$OUT"
	refute_output --partial 'the loop went on'
	run -0 jq -c '[.complete, (.samples | length >= 2)]' "$OUT"
	assert_output '[false,true]'
	grep -q 'abpath: bench: interrupted by SIGINT in run 3 of 8; restored exit_reparent to legacy' "$ERR" ||
		fail "stderr: $(cat "$ERR")"
}
