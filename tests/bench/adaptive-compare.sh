#!/bin/bash
# Inside the VM: the history suite fixed, then adaptive (#44), one after
# the other on one boot, each with its wall time.  On the host:
#
#   flock /tmp/abpath-heavy.lock tests/vm/run --mem 4096 --timeout 7800 \
#       --results results/adaptive -- bash /abpath/tests/bench/adaptive-compare.sh [SUITE ARGS]
#
# The timeout is the whole boot's, and a VM killed by it returns nothing
# of /results: the fixed suite alone took 2,125 s here (2026-11-28), and
# the adaptive one, up to twice the runs per point, more than 2,075 s
# more (that run hit a 4,200 s timeout inside its last experiments).
# With --quick, 3600 is plenty.
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
