#!/bin/bash
# timer_fastpath's regime table: threads x ITIMER_PROF interval. Legacy is
# the 2.6.27 tick, whose slow path runs when a thread's share of the timer
# is used up, so how often it runs (slow paths per armed tick) should come
# out of the thread count and the interval: rare with few threads or a long
# interval, on every tick with many threads and a short one. Then the
# workload's throughput at 4000 threads, 10 ms, with enough runs for a CI.
#
#   tests/vm/run --results DIR -- /abpath/tests/bench/timer_fastpath.sh [RUNS [THREADS...]]
#
# RUNS per mode for the throughput (default 8; 0 leaves it out), THREADS
# the rows (default 2 16 64 256 1024 4000). Writes
# DIR/timer_fastpath-regime.md and one bench JSON per cell.
set -eu
runs=${1:-8}
shift || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(2 16 64 256 1024 4000)
out=/results
modprobe abpath
echo 0 >/sys/module/abpath/parameters/watchdog_us

cell() { # THREADS INTERVAL_US RUNS SECONDS
	abpath bench itimer-threads --path timer_fastpath --runs "$3" -j -- \
		-n "$1" -t "$4" -I "$2" --no-check >"$out/timer_fastpath-$1-$2.json"
}

{
	echo "| threads | interval | legacy slow paths/armed tick | legacy threads walked/slow path | legacy rebalance writes/slow path | legacy µs/slow path | legacy ns/armed tick | optimized ns/armed tick | loops/s legacy/optimized [95% CI] | legacy mismatches |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
	for n in "${threads[@]}"; do
		for i in 10000 100000 1000000; do
			cell "$n" "$i" 2 2
			jq -r --arg n "$n" --arg i "$((i / 1000)) ms" '
				def r: . * 1000 | round / 1000;
				.summary as $s | [$s.legacy, $s.optimized] |
				map(.counters_mean.timer_fastpath) as [$l, $o] |
				"| \($n) | \($i) | \($l.slow_paths / $l.ticks_armed | r) | \($l.threads_walked / ([$l.slow_paths, 1] | max) | r) | \($l.rebalance_writes / ([$l.slow_paths, 1] | max) | r) | \($l.slow_path_ns / ([$l.slow_paths, 1] | max) / 1000 | r) | \($l.ns_total / $l.ticks_armed | round) | \($o.ns_total / $o.ticks_armed | round) | \($s.ratio.value | r) [\($s.ratio.ci95[0] | r)–\($s.ratio.ci95[1] | r)] | \($l.mismatches) |"
			' "$out/timer_fastpath-$n-$i.json"
		done
	done
	[ "$runs" -gt 0 ] || exit 0
	echo
	cell 4000 10000 "$runs" 3
	jq -r '.summary as $s | "4000 threads, 10 ms, \($s.legacy.n)+\($s.optimized.n) runs (-t 3): loops/s legacy \($s.legacy.gmean) optimized \($s.optimized.gmean), legacy/optimized \($s.ratio.value) [\($s.ratio.ci95[0])–\($s.ratio.ci95[1])], Mann-Whitney p \($s.mann_whitney.p)"' \
		"$out/timer_fastpath-4000-10000.json"
} | tee "$out/timer_fastpath-regime.md"
