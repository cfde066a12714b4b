# The background toggler, shared by the VM bats suite (helper.bash) and
# the upstream runner (tests/upstream/run). Runs inside the test VM.
# shellcheck shell=bash

# start_toggler PATH|all [PERIOD]: flip PATH between legacy and optimized
# in the background until stop_toggler; "all" flips every path at once
# through /sys/kernel/abpath/mode. Without PERIOD as fast as the shell
# can; with it, sleep PERIOD seconds after every write.
start_toggler() {
	local f=/sys/kernel/abpath/$1/mode period=${2:-}
	[ "$1" = all ] && f=/sys/kernel/abpath/mode
	(
		while :; do
			echo legacy >"$f"
			[ -z "$period" ] || sleep "$period"
			echo optimized >"$f"
			[ -z "$period" ] || sleep "$period"
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
