#!/bin/bash
# cyclictest with timer_softirq legacy (raise TIMER_SOFTIRQ on every tick)
# and optimized, one thread and one per vCPU (-S), the latency the -rt
# patch "timers: Don't wake ktimersoftd on every tick" was about (on -rt,
# where the raise wakes a thread; here, non-RT). A benchmark, not a test: it
# prints a markdown table (docs/upstream.md) and keeps the raw histograms.
#
#   cyclictest.sh [SECONDS]     default 30 per run -> /results/cyclictest/
#
# Runs interleave legacy/optimized so a drift in the host's load hits both.
set -euo pipefail
secs=${1:-30}
SYS=/sys/kernel/abpath
out=/results/cyclictest
mkdir -p "$out"
[ -d "$SYS" ] || modprobe abpath
# Every other path stays optimized: only the tick's softirq raise differs.
echo optimized >"$SYS/mode"
# The softirq raise never trips the watchdog, but keep it from reverting
# the path in the middle of a run all the same.
echo 0 >/sys/module/abpath/parameters/watchdog_us

# Histogram buckets are 1 us wide; TCG latencies reach milliseconds.
hist_us=4000
run() { # run MODE SMP(0|1)
	local mode=$1 smp=$2 f opts=()
	f=$out/$mode.txt
	if [ "$smp" = 1 ]; then
		opts=(-S)
		f=$out/$mode-S.txt
	fi
	echo "$mode" >"$SYS/timer_softirq/mode"
	echo 1 >/sys/kernel/debug/abpath/reset
	echo "cyclictest: timer_softirq $mode${opts:+ -S}, ${secs}s" >&2
	cyclictest -m -p 90 -i 1000 -D "$secs" -q --histogram="$hist_us" "${opts[@]}" >"$f" 2>"$f.err"
	awk '$1 == "timer_softirq" && $3 ~ /^(raised|ticks)$/ { print "# abpath", $2, $3, $4 }' \
		/sys/kernel/debug/abpath/stats >>"$f"
}
for smp in 0 1; do
	run optimized "$smp"
	run legacy "$smp"
done
echo optimized >"$SYS/mode"

# summary FILE: threads, min, avg (mean of the threads'), p99 (from the
# 1 µs buckets of every thread; ">hist_us" when it is in the overflow),
# max, the samples in the 22-70 us buckets, the samples over hist_us, all
# samples.
summary() {
	awk -v hist="$hist_us" '
	/^# Min Latencies:/ { for (i = 4; i <= NF; i++) { v = $i + 0; if (min == "" || v < min) min = v }; th = NF - 3 }
	/^# Avg Latencies:/ { for (i = 4; i <= NF; i++) { s += $i; k++ } }
	/^# Max Latencies:/ { for (i = 4; i <= NF; i++) if ($i + 0 > max) max = $i + 0 }
	/^# Histogram Overflows:/ { for (i = 4; i <= NF; i++) over += $i }
	/^[0-9]+ / { b = $1 + 0; for (i = 2; i <= NF; i++) { all += $i; n[b] += $i; if (b >= 22 && b <= 70) mid += $i } }
	END {
		p99 = ">" hist
		for (b = 0; b < hist; b++) { c += n[b]; if (c >= 0.99 * (all + over)) { p99 = b; break } }
		printf "%d %d %.0f %s %d %d %d %d\n", th, min, s / k, p99, max, mid, over, all + over
	}' "$1"
}

# On PREEMPT_RT each raise also wakes the CPU's ksoftirqd.
rt=no
[[ " $(uname -v) " == *" PREEMPT_RT "* ]] && rt=yes
echo "PREEMPT_RT: $rt"
echo
echo "| timer_softirq | threads | min µs | avg µs | p99 µs | max µs | samples 22–70 µs | over ${hist_us} µs | samples | TIMER_SOFTIRQ raised / ticks |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for smp in 0 1; do
	for mode in legacy optimized; do
		f=$out/$mode.txt sfx=
		[ "$smp" = 0 ] || { f=$out/$mode-S.txt; sfx=" (-S)"; }
		read -r th min avg p99 max mid over all < <(summary "$f")
		raised=$(awk '$4 == "raised" { r += $5 } $4 == "ticks" { t += $5 }
			END { printf "%d / %d", r, t }' "$f")
		echo "| $mode | $th$sfx | $min | $avg | $p99 | $max | $mid | $over | $all | $raised |"
	done
done | tee "$out/table.md"
