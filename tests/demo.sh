#!/bin/bash
# Runs inside the VM for make demo.
set -e
WL=/usr/local/libexec/abpath
modprobe abpath
echo "== abpath status"
abpath status || true
echo "== a burst of each workload"
"$WL/pound-times" -c 20000 -n 2
"$WL/forkexit" -i 500
"$WL/itimer-threads" -n 2 -t 1 --no-check
echo "== abpath stats"
abpath stats
