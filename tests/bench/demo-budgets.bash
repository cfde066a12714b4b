# make demo's watchdog budgets, for every run of the history suite in the
# VM (demo-suite.sh, adaptive-compare.sh). timer_fastpath's legacy slow
# path runs in the tick, serialized on siglock: under TCG it costs about
# two thirds of a 4 ms tick at 4000 threads, 12 ms at 12000 (40 ms seen
# once), which is the collapse the suite measures; it gets a budget of 1 s
# a call, far below the 20 s of a soft lockup, so the watchdog still sends
# it back if one call nears a hang. The other paths get 100 ms:
# exit_reparent's scan of 4000 tasks took 12 ms once in a run where the
# host held a vCPU back. A run the watchdog reverted fails the bench; the
# budgets go into every result's provenance (watchdog_us), and RCU stall
# reports the collapse provokes into its legacy runs (kernel_reports).
# shellcheck shell=bash
. "${BASH_SOURCE[0]%/*}/../suite/paths.bash"
mapfile -t paths < <(module_paths)
budgets=()
for p in "${paths[@]}"; do
	budgets+=("$([ "$p" = timer_fastpath ] && echo 1000000 || echo 100000)")
done
(IFS=,; echo "${budgets[*]}") >/sys/module/abpath/parameters/watchdog_us
