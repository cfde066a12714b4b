# The background toggler, shared by the VM bats suite (helper.bash) and
# the upstream runner (tests/upstream/run). Runs inside the test VM.
# shellcheck shell=bash

# start_toggler PATH|all [PERIOD]: flip PATH between legacy and optimized
# in the background until stop_toggler; "all" flips every path at once
# through /sys/kernel/abpath/mode. It waits PERIOD seconds (default
# 0.001) after every write: a flip is only a store, so a loop without a
# pause would keep a vCPU busy and starve the workload it flips under.
# The wait is a read that times out on a pipe nobody writes, not a fork
# of sleep(1).
start_toggler() {
	local f=/sys/kernel/abpath/$1/mode period=${2:-0.001}
	[ "$1" = all ] && f=/sys/kernel/abpath/mode
	(
		exec {nap}<> <(:)
		while :; do
			echo legacy >"$f"
			read -rt "$period" -u "$nap" _ || :
			echo optimized >"$f"
			read -rt "$period" -u "$nap" _ || :
		done
	) 2>/dev/null &
	TOGGLER=$!
}

stop_toggler() {
	[ -n "${TOGGLER:-}" ] || return 0
	kill "$TOGGLER" 2>/dev/null
	wait "$TOGGLER" 2>/dev/null || true
	TOGGLER=
	echo optimized >/sys/kernel/abpath/mode
}
