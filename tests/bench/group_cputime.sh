#!/bin/bash
# Issue 6's table: times() pounded by N threads, on this VM's vCPUs.
set -e
modprobe abpath
cpus=$(nproc)
for n in 2 4 8 16 32; do
	abpath bench pound-times --runs 3 -j -- -n "$n" -c 1000000 >"/results/group_cputime-smp$cpus-$n.json"
	jq -r --arg n "$n" --arg c "$cpus" '.summary as $s | $s.legacy.counters_mean.group_cputime as $l |
		"smp=\($c) threads=\($n) legacy \($s.legacy.gmean)s optimized \($s.optimized.gmean)s ratio \($s.ratio.value) [\($s.ratio.ci95[0]), \($s.ratio.ci95[1])] p=\($s.mann_whitney.p) rq_locked/call \($l.rq_locked / $l.calls) mism \($l.mismatches)"' \
		"/results/group_cputime-smp$cpus-$n.json"
done
