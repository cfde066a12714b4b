#!/bin/bash
# Inside the VM: the history suite fixed, then adaptive (#44), one after
# the other on one boot, each with its wall time.  On the host:
#
#   flock /tmp/abpath-heavy.lock tests/vm/run --mem 4096 --timeout 3600 \
#       --results results/adaptive -- bash /abpath/tests/bench/adaptive-compare.sh [SUITE ARGS]
#
# SUITE ARGS go to both (e.g. --quick); the fixed one takes --runs 4 (the
# suite's count), the adaptive one --runs auto --max-runs 8 (the suite's
# cap, also with --quick).  The watchdog budgets are make demo's
# (demo-budgets.bash says why).
set -e
modprobe abpath
. "$(dirname "$0")/demo-budgets.bash"
for mode in fixed auto; do
	runs=(--runs 4)
	[ $mode = auto ] && runs=(--runs auto --max-runs 8)
	echo "== abpath bench --suite history $* ${runs[*]}"
	t0=$(date +%s)
	abpath bench --suite history "$@" "${runs[@]}" --out "/results/$mode" >"/results/$mode.md"
	echo "$mode $(($(date +%s) - t0))" | tee -a /results/times.txt
done
