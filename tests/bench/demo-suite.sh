#!/bin/bash
# make demo, inside the VM (tests/bin/demo boots it): the history suite,
# or with an argument only its experiments of those paths (--path LIST).
set -e
suite=(--suite history ${1:+--path "$1"})
modprobe abpath
. "$(dirname "$0")/demo-budgets.bash"
echo "== watchdog_us ($(IFS=,; echo "${paths[*]}")): $(cat /sys/module/abpath/parameters/watchdog_us)"
echo "== abpath status"
abpath status
echo "== abpath bench ${suite[*]}"
abpath bench "${suite[@]}" --out /results
echo "== counters after the suite"
abpath stats
echo "== watchdog reverts during the suite (0 means every legacy run stayed legacy)"
awk '$3 == "watchdog_reverts" { print "   ", $1, $2, $4 }' /sys/kernel/debug/abpath/stats
