#!/bin/bash
# The toggle storm (runs inside the VM): every path flipped FLIPS times
# (each write of legacy or optimized is one flip) while forkexit,
# thread-churn, itimer-threads, pound-times and softirq-rate run on every
# vCPU with their own checks on; then CYCLES load/unload cycles under the
# same load. Prints the totals; exits 1 if a workload failed a check, a
# legacy cross-check disagreed, a flipper's write failed, or the module
# state is off. tests/vm/run fails the run on any kernel splat.
#
#   toggle-storm.sh [FLIPS|SECSs] [CYCLES|SECSs]
#
# FLIPS per path and CYCLES (defaults 100000 and 200), or each phase's
# length in seconds ("120s"): a storm sized in time fits a CI budget on
# a slow day too, and says how many flips and cycles it got through.
set -u
flips=${1:-100000}
cycles=${2:-200}
flip_secs= cycle_secs=
[[ $flips == *s ]] && flip_secs=${flips%s} flips=
[[ $cycles == *s ]] && cycle_secs=${cycles%s} cycles=
WL=/usr/local/libexec/abpath
SYS=/sys/kernel/abpath
DBG=/sys/kernel/debug/abpath
# The module's table of its paths (tests/suite/paths.bash).
. "$(dirname "$0")/../suite/paths.bash"
mapfile -t PATHS < <(module_paths)
[ "${#PATHS[@]}" -gt 0 ] || { echo "toggle-storm: no ABPATH_PATH() line in $PATHS_H" >&2; exit 1; }
cpus=$(nproc)
fail=0
t0=$(date +%s)

modprobe abpath
echo 1 >"$DBG/reset"
# A budget that never trips: the storm is about flips, not reverts.
echo 0 >/sys/module/abpath/parameters/watchdog_us

# load: each workload loops with its checks on until the stop file appears;
# every run leaves a line in its .ok or .fail file.
stop=/tmp/storm.stop
rm -f "$stop" /tmp/storm.*.ok /tmp/storm.*.fail /tmp/storm.*.err
load() {
	local name=$1
	shift
	while [ ! -e "$stop" ]; do
		if "$WL/$name" "$@" >/dev/null 2>>"/tmp/storm.$name.err"; then
			echo >>"/tmp/storm.$name.ok"
		else
			echo "$name $*" >>"/tmp/storm.$name.fail"
			sleep 0.2
		fi
	done
}
pids=()
for _ in $(seq "$cpus"); do
	load forkexit -N 50 -i 200 & pids+=($!)
	load thread-churn -N 50 -m 200 & pids+=($!)
	load pound-times -c 50000 -n 2 & pids+=($!)
done
# Under this much load a process is charged CPU time by tick sampling and
# misses the ticks that fall while others run, so SIGPROF per CPU-second
# (against getrusage's exact runtime) reads low: keep the upper bound and
# a loose lower one here; tests/010 checks the rate exactly.
load itimer-threads -n "$cpus" -t 1 --tolerance 50 & pids+=($!)
load softirq-rate -S timers -t 1 & pids+=($!)

# flips: one flipper per path, legacy then optimized, all at once; each
# leaves its count in /tmp/storm.flips.PATH.
if [ -n "$flip_secs" ]; then
	pairs=-1 flip_end=$((SECONDS + flip_secs))
else
	pairs=$(((flips + 1) / 2)) flip_end=
fi
for p in "${PATHS[@]}"; do
	(
		f=$SYS/$p/mode
		for ((i = 0; i != pairs; i++)); do
			[ -z "$flip_end" ] || ((SECONDS < flip_end)) || break
			echo legacy >"$f" && echo optimized >"$f" ||
				{ echo $((2 * i)) >"/tmp/storm.flips.$p"; exit 1; }
		done
		echo $((2 * i)) >"/tmp/storm.flips.$p"
	) &
	flippers+=($!)
done
flipfail=0
for pid in "${flippers[@]}"; do
	wait "$pid" || flipfail=1
done
t_flips=$(($(date +%s) - t0))
flipped=
for p in "${PATHS[@]}"; do
	flipped+="$p $(cat "/tmp/storm.flips.$p" 2>/dev/null || echo ?), "
done
flipped=${flipped%, }

# mismatches: add the loaded module's mismatches (both modes) to mism[path].
declare -A mism=()
mismatches() {
	local path m
	while read -r path m; do
		mism[$path]=$((${mism[$path]:-0} + m))
	done < <(awk '$3 == "mismatches" { n[$1] += $4 } END { for (p in n) print p, n[p] }' "$DBG/stats")
}
legacy_calls=$(awk '$2 == "legacy" && $3 == "calls" { printf "%s %s, ", $1, $4 }' "$DBG/stats")

# cycles: unload and reload under the same load, half of them in legacy;
# each module's counters are read before it goes.
cyclefail=
cycle_end=
[ -z "$cycle_secs" ] || cycles=-1 cycle_end=$((SECONDS + cycle_secs))
for ((i = 0; i != cycles; i++)); do
	[ -z "$cycle_end" ] || ((SECONDS < cycle_end)) || break
	mismatches
	rmmod abpath || { cyclefail="rmmod failed in cycle $i"; break; }
	if ((i % 2)); then
		modprobe abpath mode=legacy watchdog_us=0
	else
		modprobe abpath
	fi || { cyclefail="modprobe failed in cycle $i"; break; }
done
mismatches
cycles=$i
t_cycles=$(($(date +%s) - t0 - t_flips))

touch "$stop"
for pid in "${pids[@]}"; do wait "$pid"; done

# The verdict, in TAP like the other suites.
n=0
tap() { # tap STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
workloads=(forkexit thread-churn pound-times itimer-threads softirq-rate)
echo "1..$((${#PATHS[@]} + ${#workloads[@]} + 3))"
tap "$flipfail" "storm: flips in ${t_flips}s ($flipped), every write accepted"
tap "$([ -z "$cyclefail" ]; echo $?)" "storm: $cycles load/unload cycles in ${t_cycles}s${cyclefail:+: $cyclefail}"
for p in "${PATHS[@]}"; do
	tap "$([ "${mism[$p]:-x}" = 0 ]; echo $?)" "storm: $p: ${mism[$p]:-unknown} mismatches"
done
for w in "${workloads[@]}"; do
	ok=$(cat "/tmp/storm.$w.ok" 2>/dev/null | wc -l)
	bad=$(cat "/tmp/storm.$w.fail" 2>/dev/null | wc -l)
	tap "$([ "$bad" -eq 0 ] && [ "$ok" -gt 0 ]; echo $?)" "storm: $w: $ok runs passed their checks, $bad failed"
	[ "$bad" -eq 0 ] || sed 's/^/# /' "/tmp/storm.$w.err" | grep -v '^# $' | head -5
done
# The last module is attached: registered with the hook patch, or on the
# stock backend (no hook patch) its handlers on ftrace's list.
attached() {
	if [ -e /sys/kernel/debug/abpath_hooks ]; then
		grep -qx 'registered 1' /sys/kernel/debug/abpath_hooks
	else
		grep -q '\[abpath\]' /sys/kernel/tracing/enabled_functions
	fi
}
state=$(cat "$SYS/mode" 2>/dev/null)
tap "$(attached && [[ $state =~ ^(legacy|optimized)$ ]]; echo $?)" \
	"storm: the last module is attached and reads ${state:-nothing}"
echo "# storm: flips per path: $flipped; $cycles load/unload cycles, $cpus vCPUs; legacy calls during the flips: ${legacy_calls%, }"
exit $fail
