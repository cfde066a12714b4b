#!/bin/bash
# Issue 4's table: fork+exit latency against the number of idle tasks.
set -e
modprobe abpath
for n in 200 1000 2000 4000; do
	abpath bench forkexit --runs 4 -j -- -N "$n" -i 300 >"/results/exit_reparent-$n.json"
	jq -r --arg n "$n" '"N=\($n) legacy \(.summary.legacy.gmean) optimized \(.summary.optimized.gmean) ratio \(.summary.ratio.value) [\(.summary.ratio.ci95[0]), \(.summary.ratio.ci95[1])] p=\(.summary.mann_whitney.p)"' "/results/exit_reparent-$n.json"
done
