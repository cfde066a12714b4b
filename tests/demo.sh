#!/bin/bash
# Runs inside the VM for make demo.
set -e
modprobe abpath
echo "== abpath status"
abpath status
echo "== abpath bench --suite history"
abpath bench --suite history --out /results
echo "== counters after the suite"
abpath stats
