#!/bin/bash
# How many calls a second the watchdog and the cross-check see on
# group_cputime (its timed calls, one in 2^sample_shift per CPU and mode)
# under the workloads of its benchmarks, with the module's defaults. Runs
# inside the VM (plain TCG: seconds of wall time, not instructions).
#
#   sample-rate.sh [THREADS...]   (default 2 8)
set -e
WL=/usr/local/libexec/abpath
DBG=/sys/kernel/debug/abpath
SYS=/sys/kernel/abpath
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(2 8)
modprobe abpath
echo "sample_shift $(cat /sys/module/abpath/parameters/sample_shift)"
counter() { awk -v m="$1" -v c="$2" '$1 == "group_cputime" && $2 == m && $3 == c { print $4 }' "$DBG/stats"; }
for wl in pound-times pound-clock; do
	for n in "${threads[@]}"; do
		for mode in optimized legacy; do
			echo "$mode" >"$SYS/group_cputime/mode"
			echo 1 >"$DBG/reset"
			t0=$EPOCHREALTIME
			"$WL/$wl" -n "$n" -c 200000 >/dev/null
			t1=$EPOCHREALTIME
			calls=$(counter "$mode" calls) timed=$(counter "$mode" timed)
			awk -v w="$wl" -v n="$n" -v m="$mode" -v c="$calls" -v t="$timed" -v s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
				'BEGIN { printf "%s -n %d %s: %d calls, %d timed in %.2f s: %.0f timed calls/s\n", w, n, m, c, t, s, t / s }'
		done
	done
done
echo optimized >"$SYS/mode"
modprobe -r abpath
