#!/bin/bash
# Inside the VM: one workload in which two paths matter and two do not,
# measured by a 2^4 factorial of all four paths and by four one-path
# benches of about the same runs, one after the other on one boot, each
# with its wall time.  On the host:
#
#   flock /tmp/abpath-heavy.lock tests/vm/run [--kernel stock-bookworm] \
#       --mem 2048 --timeout 2400 --results results/factorial \
#       -- bash /abpath/tests/bench/factorial-demo.sh [THREADS INTERVAL_US WORK]
#
# The workload: times() pounded by 8 threads (group_cputime) beside
# THREADS (32) threads doing WORK (20000) loops in all under an
# ITIMER_PROF of INTERVAL_US (1000) (timer_fastpath: it costs from about
# 2048 threads at 10 ms, benchmarks.md); neither
# forks a process that exits with children (exit_reparent) nor arms a
# timer-wheel timer (timer_softirq).  The factorial: 2 replicates of the
# 16 cells (32 runs, 1 warm-up per mode); the one-path benches: 4 + 4
# runs each (32 runs, 1 warm-up per mode each).
set -e
modprobe abpath
w=${ABPATH_WORKLOAD_DIR:-/usr/local/libexec/abpath}
n=${1:-32} interval=${2:-1000} work=${3:-20000}
# Thousands of threads: a legacy tick over the watchdog's budget is the
# effect measured, not a reason to send the path back (timer_fastpath.sh).
[ "$n" -le 256 ] || echo 0 >/sys/module/abpath/parameters/watchdog_us
cmd=(sh -c "$w/pound-times -n 8 -c 400000 -j >/dev/null & $w/itimer-threads -n $n -I $interval -W $work --no-check -j >/dev/null; wait")
t0=$(date +%s)
abpath bench -j --factorial all --runs 2 -- "${cmd[@]}" >/results/factorial.json
echo "factorial $(($(date +%s) - t0)) s" | tee /results/times.txt
for p in group_cputime timer_fastpath exit_reparent timer_softirq; do
	t0=$(date +%s)
	abpath bench -j --path "$p" --runs 4 -- "${cmd[@]}" >"/results/one-$p.json"
	echo "one-path $p $(($(date +%s) - t0)) s" | tee -a /results/times.txt
done
abpath bench --from /results/factorial.json | sed -n '/^effects/,$p'
for p in group_cputime timer_fastpath exit_reparent timer_softirq; do
	jq -r --arg p "$p" '"\($p): \(.summary.ratio.value) [\(.summary.ratio.ci95[0]), \(.summary.ratio.ci95[1])] \(.summary.verdict)"' "/results/one-$p.json"
done
