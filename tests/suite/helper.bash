# Shared by the VM bats suite (tests/suite/*.bats), the smoke and the
# package test; runs inside the test VM.
# shellcheck shell=bash

load "${BASH_SOURCE[0]%/*}/last-run"

SYS=/sys/kernel/abpath
DBG=/sys/kernel/debug/abpath
PARAM=/sys/module/abpath/parameters
HOOKS=/sys/kernel/debug/abpath_hooks
TRACING=/sys/kernel/tracing
. "${BASH_SOURCE[0]%/*}/paths.bash"
mapfile -t PATHS < <(module_paths)
# An empty list would pass every loop over the paths.
[ "${#PATHS[@]}" -gt 0 ] || { echo "helper.bash: no ABPATH_PATH() line in $PATHS_H" >&2; return 1; }
# The backend this kernel takes: the hook patch leaves its debugfs file
# whether the module is loaded or not; Debian's own kernel has none.
if [ -e "$HOOKS" ]; then BACKEND=patched; else BACKEND=stock; fi
WL=${ABPATH_WORKLOAD_DIR:-/usr/local/libexec/abpath}

# per_path VALUE [PATH PATH_VALUE]: a per-path parameter's line
# (watchdog_us, sample_shift), VALUE for every path in the table's order
# and PATH_VALUE for PATH.
per_path() {
	local p v=()
	for p in "${PATHS[@]}"; do
		if [ "$p" = "${2:-}" ]; then v+=("$3"); else v+=("$1"); fi
	done
	(IFS=,; echo "${v[*]}")
}

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

# setup() { counting_setup; } in a file whose tests compare counters:
# common_setup, and every counter from zero.
counting_setup() {
	common_setup
	write_file "$DBG/reset" 1
}

# The default teardown: what last-run.bash's does, and a toggler a failed
# test left running stopped (stop_toggler is a no-op without one), and
# the console given back warnings a failed test held (release_warnings
# is a no-op without them).
teardown() {
	common_teardown
	stop_toggler
	release_warnings
}

# A watchdog revert a test provokes on purpose is a warning, which the
# kernel also prints on the console, where CI's log would show it as if
# something had gone wrong. hold_warnings PATH keeps warnings off the
# console (errors and worse still reach it); release_warnings puts the
# console back, prints each revert of PATH logged meanwhile as expected
# (on fd 3, in the TAP), and writes every other warning logged meanwhile
# onto the console as the kernel logged it, so that tests/vm/run's
# verdict, which reads the console, sees what it would have.
hold_warnings() {
	HELD_PATH=$1
	HELD_AFTER=$(dmesg | sed -n '$s/^\[ *\([0-9.]*\)\].*/\1/p')
	read -r CONSOLE_LEVEL _ </proc/sys/kernel/printk
	echo 4 >/proc/sys/kernel/printk
}

release_warnings() {
	[ -n "${CONSOLE_LEVEL:-}" ] || return 0
	echo "$CONSOLE_LEVEL" >/proc/sys/kernel/printk
	CONSOLE_LEVEL=
	local line
	while IFS= read -r line; do
		case $line in
		*"] abpath: $HELD_PATH: a legacy call took "*)
			echo "# expected, the revert this test provoked: ${line#*] }" >&3 ;;
		*) echo "$line" >/dev/console ;;
		esac
	done < <(dmesg -r | awk -v after="${HELD_AFTER:-0}" '
		# <facility * 8 + level>[time] text: the warnings, of any facility.
		/^<[0-9]+>\[/ {
			p = $0; sub(/^</, "", p); sub(/>.*/, "", p)
			t = $0; sub(/^<[0-9]+>\[ */, "", t); sub(/\].*/, "", t)
			if (p % 8 == 4 && t + 0 > after + 0) { sub(/^<[0-9]+>/, ""); print }
		}')
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

# The functions the stock backend attaches a path to (module/stock.c).
stock_functions() {
	case $1 in
	group_cputime) echo thread_group_cputime ;;
	timer_fastpath) echo run_posix_cpu_timers ;;
	exit_reparent) echo do_exit ;;
	timer_softirq) echo rcu_sched_clock_irq ;;
	registered) echo thread_group_cputime run_posix_cpu_timers \
		do_exit rcu_sched_clock_irq ;;
	esac
}

# hook_key PATH|registered: 1 while the backend's hook for PATH is live,
# else 0, from what the kernel keeps when the module is gone: the hook
# patch's static keys, or on the stock backend whether ftrace has an ops
# on one of the path's functions (nothing else traces them in the VM).
hook_key() {
	local f
	if [ "$BACKEND" = patched ]; then
		awk -v k="$1" '$1 == k { print $2 }' "$HOOKS"
		return
	fi
	for f in $(stock_functions "$1"); do
		if awk -v f="$f" '$1 == f { n++ } END { exit !n }' \
			"$TRACING/enabled_functions"; then
			echo 1
			return
		fi
	done
	echo 0
}

# True on a PREEMPT_RT kernel: mainline writes it into the version string
# (scripts/mkcompile_h), as it does PREEMPT_DYNAMIC.
preempt_rt() {
	[[ " $(uname -v) " == *" PREEMPT_RT "* ]]
}

# Whether the tick's TIMER_SOFTIRQ runs in a thread: on PREEMPT_RT, and
# from 6.13 with threadirqs, where the ktimers/N threads take it.
timer_softirq_threaded() {
	preempt_rt || grep -qsx 'ktimers/0' /proc/[0-9]*/comm
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# start_toggler PATH [PERIOD] / stop_toggler: flip PATH in the background.
. "${BASH_SOURCE[0]%/*}/toggler.bash"

# The command line as one would type it: words quoted only where needed.
cmdline() {
	local arg line=
	for arg; do
		[[ $arg =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]] || arg=${arg@Q}
		line+=" $arg"
	done
	echo "${line# }"
}

# run_or_say WHERE CMD...: run -0 CMD, and when it fails print what a
# failed run -0 keeps to itself: WHERE (what the test had set up: a path
# and its mode), the command line, its exit status and its output (stdout
# and stderr). bats shows a failed test's stderr under its "not ok" line.
run_or_say() {
	local where=$1
	shift
	run -0 "$@" && return 0
	{
		batslib_print_kv_single 7 where "$where" \
			command "$(cmdline "$@")" status "$status"
		batslib_print_kv_single_or_multi 7 output "${output:-(none)}"
	} | batslib_decorate "command failed" >&2
	RUN_SAID=$(last_run)
	return 1
}

# in_each_mode PATH CMD...: CMD must succeed with PATH optimized, legacy,
# and flipping between them, and the cross-checks must agree in both modes.
# The toggler is stopped before a failure is reported, so it never runs
# on into the next test.
in_each_mode() {
	local path=$1 mode rc
	shift
	for mode in optimized legacy toggling; do
		if [ "$mode" = toggling ]; then
			start_toggler "$path"
		else
			write_file "$SYS/$path/mode" "$mode"
		fi
		rc=0
		run_or_say "path $path, mode $mode" "$@" || rc=$?
		stop_toggler
		[ "$rc" -eq 0 ] || return "$rc"
	done
	for mode in legacy optimized; do
		expect "$(counter "$path" $mode mismatches)" -eq 0 \
			"$path $mode mismatches after the optimized, legacy and toggling runs" ||
			return
	done
}

# expect A OP B [WHAT]: [ A OP B ] for test(1)'s -eq -ne -lt -le -gt -ge
# = !=, which on failure prints "WHAT: expected A OP B" with the values
# it compared, where a bare [ ] says only which line failed. Strings,
# and numbers that are not integers (an empty counter read), are quoted,
# so that an empty one still shows.
expect() {
	local a=$1 op=$2 b=$3 what=${4:+$4: } rc=0
	case $op in
	-eq | -ne | -lt | -le | -gt | -ge | = | !=) ;;
	*) fail "expect: '$op' is not one of -eq -ne -lt -le -gt -ge = !="; return ;;
	esac
	[ "$a" "$op" "$b" ] 2>/dev/null || rc=$?
	[ "$rc" -ne 0 ] || return 0
	if ! batslib_is_single_line "$a" "$b"; then
		echo "${what}expected A $op B"
		batslib_print_kv_single_or_multi 1 A "$a" B "$b"
	elif [ "$rc" -eq 1 ] && [ "${op#-}" != "$op" ]; then
		echo "${what}expected $a $op $b"
	elif [ "$rc" -eq 1 ]; then
		echo "${what}expected '$a' $op '$b'"
	else
		echo "${what}expected '$a' $op '$b': not both integers"
	fi >&2
	return 1
}
