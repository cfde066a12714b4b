#!/bin/bash
# timer_softirq per busy CPU, legacy vs optimized: TIMER softirqs, and the
# wake-ups and context switches of the CPU's softirq thread (ksoftirqd/N).
# On PREEMPT_RT a raise in hardirq wakes that thread, so legacy, which
# raises on every tick, should wake it about HZ times a second (the goal:
# at least 0.9 HZ) and optimized hardly ever (at most 0.1 HZ): the regime
# of the -rt patch "timers: Don't wake ktimersoftd on every tick". Then
# cyclictest's latency in both modes (tests/bench/cyclictest.sh).
#
#   tests/vm/run --kernel 6.12-rt --results DIR -- \
#       /abpath/tests/bench/rt-softirq.sh [RUNS [CYCLICTEST_SECONDS]]
#
# RUNS per mode (default 6), 2 s each; CYCLICTEST_SECONDS per cyclictest
# run (default 20; 0 leaves it out). Writes DIR/rt-softirq.json (the
# bench), DIR/rt-softirq.md and DIR/cyclictest/.
set -eu
runs=${1:-6} secs=${2:-20}
hz=250
out=/results
modprobe abpath
rt=no
[[ " $(uname -v) " == *" PREEMPT_RT "* ]] && rt=yes

abpath bench softirq-rate --path timer_softirq --runs "$runs" -j -- \
	-S busy -t 2 --hz "$hz" >"$out/rt-softirq.json"
{
	echo "PREEMPT_RT: $rt, HZ $hz, $(nproc) vCPUs, $runs runs of 2 s per mode (ABBA), every vCPU busy"
	echo
	echo "| mode | TIMER softirqs/s | /HZ | ksoftirqd wake-ups/s | /HZ | ksoftirqd switches/s | goal |"
	echo "|---|---:|---:|---:|---:|---:|---|"
	jq -r --argjson hz "$hz" '
		def r: . * 100 | round / 100;
		def mean: add / length;
		[.samples[] | select(.warmup | not)] as $s |
		("legacy", "optimized") as $m |
		[$s[] | select(.mode == $m) | .results] as $r |
		($r | map(.per_busy_cpu_s) | mean) as $t |
		($r | map(.softirq_thread.wakeups_per_busy_cpu_s) | mean) as $w |
		($r | map(.softirq_thread.switches_per_busy_cpu_s) | mean) as $c |
		(if $m == "legacy" then
			(if $w >= 0.9 * $hz then "met: ≥ 0.9 HZ" else "not met: ≥ 0.9 HZ" end)
		 else
			(if $w <= 0.1 * $hz then "met: ≤ 0.1 HZ" else "not met: ≤ 0.1 HZ" end)
		 end) as $goal |
		"| \($m) | \($t | r) | \($t / $hz | r) | \($w | r) | \($w / $hz | r) | \($c | r) | \($goal) |"
	' "$out/rt-softirq.json"
	jq -r 'def r: . * 1000 | round / 1000;
		.summary | "\nTIMER softirqs/s legacy/optimized \(.ratio.value | r) [\(.ratio.ci95[0] | r)–\(.ratio.ci95[1] | r)], Mann-Whitney p \(.mann_whitney.p | r)"' \
		"$out/rt-softirq.json"
} | tee "$out/rt-softirq.md"
[ "$secs" -gt 0 ] || exit 0
echo
bash /abpath/tests/bench/cyclictest.sh "$secs"
