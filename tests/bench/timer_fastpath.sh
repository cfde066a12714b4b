#!/bin/bash
# Issue 5's table: the cost of an armed tick against the number of threads.
set -e
modprobe abpath
for n in 16 256 1024 4000; do
	abpath bench itimer-threads --runs 2 -j -- -n "$n" -t 2 --no-check >"/results/timer_fastpath-$n.json"
	jq -r --arg n "$n" '.summary as $s | [$s.legacy, $s.optimized] | map(.counters_mean.timer_fastpath) as [$l, $o] |
		"T=\($n) legacy ns/armed tick \($l.ns_total / $l.ticks_armed) optimized \($o.ns_total / $o.ticks_armed) threads/walk \($l.threads_walked / ($l.walks + 0.0001)) loops/s L \($s.legacy.median) O \($s.optimized.median) mism \($l.mismatches)"' "/results/timer_fastpath-$n.json"
done
