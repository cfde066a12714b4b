#!/bin/bash
# Each legacy arm at its largest size, busy on every vCPU (runs inside the
# VM; make check-full's manycpu stage boots it with --smp 8):
#
#   timer_fastpath + group_cputime  THREADS busy threads under a 1 ms
#                                   ITIMER_PROF (itimer-threads)
#   exit_reparent                   IDLE idle tasks while every CPU forks
#                                   and exits (forkexit)
#   group_cputime                   times() from every CPU, by 4096
#                                   threads of one process (pound-times)
#   timer_softirq                   4096 timer threads, a third of them
#                                   timer-wheel timers, beside a busy
#                                   thread on every CPU (softirq-rate)
#
#   legacy-at-scale.sh [THREADS [IDLE [SECONDS]]]   (8000 8000 20)
#
# The watchdog keeps its default budgets, and every call is timed
# (sample_shift 0), so the longest legacy call is the module's ns_max and
# the watchdog judges each one. Per arm and path it prints the longest
# legacy call, the watchdog's reverts and their kernel log lines, the
# stall and lockup reports, and how the machine answered afterwards (a
# sysfs read and a fork). Exits 1 if the machine did not answer, a stall
# or lockup was reported, a legacy cross-check disagreed, or a revert
# went unsaid in the kernel log; tests/vm/run fails the run on any
# kernel report as well. The raw tables and kernel log go to
# /results/legacy-at-scale/.
set -u
threads=${1:-8000}
idle=${2:-8000}
secs=${3:-20}
WL=/usr/local/libexec/abpath
SYS=/sys/kernel/abpath
DBG=/sys/kernel/debug/abpath
PARAM=/sys/module/abpath/parameters
out=/results/legacy-at-scale
mkdir -p "$out"
cpus=$(nproc)
fail=0
# A backstop only, so that one arm that never ends still leaves the
# others' results: far past what any arm took (docs/ci.md).
backstop=1800
stalls='rcu_.* detected stall|rcu: INFO|soft lockup|hard LOCKUP|blocked for more than|hung_task'

# softirq-rate's 4096 timers are as many file descriptors.
ulimit -n 16384
modprobe abpath || exit 1
echo 0 >"$PARAM/sample_shift"
budgets=$(cat "$PARAM/watchdog_us")
echo "# legacy-at-scale: $(uname -r), $cpus vCPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo), backend $(cat "$SYS/backend"); watchdog_us $budgets; sample_shift 0"

n=0
tap() { # tap STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

# counter PATH MODE NAME
counter() {
	awk -v p="$1" -v m="$2" -v c="$3" '$1 == p && $2 == m && $3 == c { print $4 }' "$DBG/stats"
}

# answers: the machine's answer after an arm, in ms: a sysfs read, then a
# fork and exec of true; "no" if either failed.
answers() {
	local t0 t1
	t0=${EPOCHREALTIME/./}
	grep -qE '^(legacy|optimized|mixed)$' "$SYS/mode" && /bin/true || { echo no; return; }
	t1=${EPOCHREALTIME/./}
	echo $(((t1 - t0) / 1000))
}

# arm NAME "PATH..." CMD...: the arm's paths legacy, CMD (workloads in
# the background are started by CMD itself), then the record.
arm() {
	local name=$1 paths=$2 t0 rc p mark lines ans reverts said max budget
	shift 2
	echo 1 >"$DBG/reset"
	echo optimized >"$SYS/mode"
	for p in $paths; do echo legacy >"$SYS/$p/mode"; done
	mark="abpath-tests: legacy-at-scale $name begin"
	echo "<6>$mark" >/dev/kmsg
	t0=$(date +%s)
	timeout -k 10 "$backstop" "$@" >"$out/$name.out" 2>&1
	rc=$?
	ans=$(answers)
	dmesg | sed -n "/$mark/,\$p" >"$out/$name.dmesg"
	lines=$(grep -acE "$stalls" "$out/$name.dmesg")
	echo "# $name: $* -> exit $rc in $(($(date +%s) - t0))s; the machine answered in ${ans} ms; stall or lockup reports: $lines"
	for p in $paths; do
		max=$(counter "$p" legacy ns_max)
		reverts=$(counter "$p" legacy watchdog_reverts)
		said=$(grep -ac "abpath: $p: a legacy call took" "$out/$name.dmesg")
		budget=$(echo "$budgets" | cut -d, -f"$(($(grep -n "^$p\$" "$out/paths" | cut -d: -f1)))")
		printf '# %s: %-14s legacy calls %s, longest %d us (budget %s us), watchdog reverts %s (kernel log lines %s), mode now %s, mismatches %s, timer_fastpath slow paths %s\n' \
			"$name" "$p" "$(counter "$p" legacy calls)" "$((max / 1000))" "$budget" \
			"$reverts" "$said" "$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$SYS/$p/mode")" \
			"$(counter "$p" legacy mismatches)" "$(counter timer_fastpath legacy slow_paths)"
		echo "$name $p $(counter "$p" legacy calls) $max $budget $reverts $said $rc $ans $lines" >>"$out/table"
		tap "$([ "$(counter "$p" legacy mismatches)" = 0 ]; echo $?)" "$name: $p: 0 mismatches"
		tap "$([ "$reverts" -eq 0 ] || [ "$said" -ge 1 ]; echo $?)" \
			"$name: $p: $reverts watchdog reverts, $said said in the kernel log"
	done
	tap "$([ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; echo $?)" \
		"$name: the workload ended by itself (exit $rc; a check of its own that failed is in $out/$name.out)"
	tap "$([ "$ans" != no ]; echo $?)" "$name: the machine answered afterwards (sysfs and fork: $ans ms)"
	tap "$([ "$lines" -eq 0 ]; echo $?)" "$name: no stall or lockup report ($lines)"
	[ "$lines" -eq 0 ] || grep -aE "$stalls" "$out/$name.dmesg" | head -5 | sed 's/^/# /'
	echo optimized >"$SYS/mode"
}

# on_every_cpu CMD...: CMD once per vCPU, at once; the last failure's status.
on_every_cpu() {
	local pids=() rc=0 i
	for ((i = 0; i < cpus; i++)); do "$@" >/dev/null & pids+=($!); done
	for i in "${pids[@]}"; do wait "$i" || rc=$?; done
	return "$rc"
}

# forkexit_all: IDLE idle tasks (one forkexit holds them) while every
# vCPU forks and exits.
forkexit_all() {
	local rc=0 big
	"$WL/forkexit" -N "$idle" -i 400 >/dev/null &
	big=$!
	on_every_cpu "$WL/forkexit" -i 400 || rc=$?
	wait "$big" || rc=$?
	return "$rc"
}
export -f on_every_cpu forkexit_all
export WL idle cpus

. "$(dirname "$0")/../suite/paths.bash"
module_paths >"$out/paths"
: >"$out/table"

arm itimer "timer_fastpath group_cputime" \
	"$WL/itimer-threads" -n "$threads" -I 1000 -t "$secs"
arm exit exit_reparent bash -c forkexit_all
arm times group_cputime "$WL/pound-times" -n 4096 -c $((4096 * 8))
arm softirq timer_softirq "$WL/softirq-rate" -S timers -k 4096 -P 1000 -t "$secs"
echo "1..$n"
echo "# legacy-at-scale: the table (arm path legacy_calls longest_ns budget_us reverts said exit answer_ms stall_reports) is in $out/table"
dmesg >"$out/dmesg"
exit "$fail"
