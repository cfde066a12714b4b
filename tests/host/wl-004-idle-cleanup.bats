#!/usr/bin/env bats
# forkexit / thread-churn: the idle background tasks never outlive a run,
# whether it ends normally, by SIGINT/SIGTERM, or by SIGKILL.

load wl-common

setup_file() {
	wl_build
}

teardown() {
	# Never leave anything behind, even when a test failed half-way.
	[ -n "${PROG:-}" ] && pkill -KILL -x "${PROG##*/}" || true
	common_teardown
}

@test "forkexit: idle tasks are gone after a normal run" {
	PROG=$(wl_unique_copy forkexit)
	[ "$(wl_count "${PROG##*/}")" = 0 ]
	run -0 "$PROG" -N 40 -i 20 -j
	jq -e '.params.idle == 40 and .checks.passed' <<<"$output"
	[ "$(wl_count "${PROG##*/}")" = 0 ]
}

at_least() { # N: at least N processes named like $PROG
	(($(wl_count "${PROG##*/}") >= $1))
}

none_live() {
	(($(wl_count_live "${PROG##*/}") == 0))
}

# Starts PROG ARGS... in the background, waits until its N idle tasks
# are up (N+1 processes), and leaves its pid in $pid.
start_with_idle() { # N PROG ARGS...
	local n=$1
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	wl_wait_for 10 at_least $((n + 1)) ||
		fail "idle tasks did not come up: $(wl_count "${PROG##*/}")"
}

# Waits for $pid (not with run: that is a subshell) and sets $status.
wait_pid() {
	status=0
	wait "$pid" || status=$?
}

# killed_mid_run WORKLOAD N SIGNAL STATUS ARGS...: WORKLOAD -N N ARGS,
# sent SIGNAL once its N idle tasks are up, exits STATUS and leaves none.
killed_mid_run() {
	local n=$2 sig=$3 want=$4
	PROG=$(wl_unique_copy "$1")
	shift 4
	start_with_idle "$n" "$PROG" -N "$n" "$@"
	sleep 0.2
	kill -"$sig" "$pid"
	wait_pid
	[ "$status" = "$want" ] || fail "$sig: exit status $status, expected $want"
	[ "$(wl_count "${PROG##*/}")" = 0 ] ||
		fail "$sig: $(wl_count "${PROG##*/}") idle tasks left"
}

@test "forkexit: SIGINT mid-run removes every idle task" {
	killed_mid_run forkexit 30 INT 130 -i 1000000000
}

@test "forkexit: SIGTERM mid-run removes every idle task" {
	killed_mid_run forkexit 25 TERM 143 -i 1000000000
}

@test "forkexit: SIGKILL of the parent takes the idle tasks down too" {
	PROG=$(wl_unique_copy forkexit)
	start_with_idle 20 "$PROG" -N 20 -i 1000000000
	kill -KILL "$pid"
	wait_pid
	# PR_SET_PDEATHSIG: orphans die at once; init may reap them later.
	wl_wait_for 5 none_live ||
		fail "$(wl_count_live "${PROG##*/}") idle tasks survived"
}

@test "thread-churn: idle tasks are gone after a run and after SIGINT" {
	PROG=$(wl_unique_copy thread-churn)
	run -0 "$PROG" -N 20 -m 20
	[ "$(wl_count "${PROG##*/}")" = 0 ]
	killed_mid_run thread-churn 20 INT 130 -m 1000000000
}

@test "forkexit: failing to create the idle tasks is an error, not a hang" {
	# root ignores RLIMIT_NPROC: run as nobody with room for a few processes.
	[ "$(id -u)" = 0 ] || skip "needs root to switch to nobody"
	local dir
	dir=$(mktemp -d /tmp/wl-nproc.XXXXXX)
	chmod 755 "$dir"
	PROG="$dir/$(basename "$(wl_unique_copy forkexit)")"
	cp "$BATS_TEST_TMPDIR/${PROG##*/}" "$PROG"
	run -1 --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		bash -c "ulimit -u 8 && exec '$PROG' -N 50 -i 1"
	rm -rf "$dir"
	[[ $stderr =~ ^forkexit:\ error:\ could\ only\ create\ [0-9]+\ of\ 50\  ]] || fail "$stderr"
	[ "$(wl_count "${PROG##*/}")" = 0 ]
}
