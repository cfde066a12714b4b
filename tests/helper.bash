# Shared by the VM bats suite (tests/*.bats); runs inside the test VM.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

SYS=/sys/kernel/abpath
DBG=/sys/kernel/debug/abpath
PARAM=/sys/module/abpath/parameters
HOOKS=/sys/kernel/debug/abpath_hooks
PATHS=(group_cputime timer_fastpath exit_reparent timer_softirq)
WL=${ABPATH_WORKLOAD_DIR:-/usr/local/libexec/abpath}

load_module() {
	[ -d "$SYS" ] || modprobe abpath "$@"
}

unload_module() {
	if [ -d /sys/module/abpath ]; then
		rmmod abpath
	fi
}

# Every test starts with the module loaded in optimized mode, so one
# test's leftovers never change another's outcome, and with the watchdog
# off: a legacy call can overrun 10 ms here for reasons that are not its
# own (a TCG vCPU descheduled by the host, softirq work at IRQ exit on the
# debug kernel), and a revert would quietly run the rest of a legacy test
# in optimized. 012-watchdog.bats sets its own budgets.
common_setup() {
	load_module
	echo optimized >"$SYS/mode"
	echo 0 >"$PARAM/watchdog_us"
}

# The active mode of a path, from "legacy [optimized]".
active_mode() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "$SYS/$1/mode"
}

# counter PATH MODE NAME [FILE]: one value from debugfs stats, or from a
# snapshot of it when counters must be compared at one instant.
counter() {
	awk -v p="$1" -v m="$2" -v c="$3" \
		'$1 == p && $2 == m && $3 == c { print $4; f = 1 } END { exit !f }' \
		"${4:-$DBG/stats}"
}

T=/usr/local/libexec/abpath-tests

# write_file FILE DATA: one write(2) of DATA (C escapes: \n \0 \xHH); the
# errno text ("Invalid argument", ...) lands in $output under run.
write_file() {
	"$T/sysfs-write" -- "$1" "$2"
}

# A hook key's state (0/1) from the kernel's own debugfs file, which stays
# when the module is gone.
hook_key() {
	awk -v k="$1" '$1 == k { print $2 }' "$HOOKS"
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# start_toggler PATH [PERIOD] / stop_toggler: flip PATH in the background.
. "${BASH_SOURCE[0]%/*}/toggler.bash"

# in_each_mode PATH CMD...: CMD must succeed with PATH optimized, legacy,
# and flipping between them, and the legacy cross-checks must agree.
in_each_mode() {
	local path=$1
	shift
	write_file "$SYS/$path/mode" optimized
	run -0 "$@"
	write_file "$SYS/$path/mode" legacy
	run -0 "$@"
	start_toggler "$path"
	run -0 "$@"
	stop_toggler
	[ "$(counter "$path" legacy mismatches)" -eq 0 ]
}
