#!/bin/bash
# Runs inside the VM for make demo.
set -e
modprobe abpath
# timer_fastpath's legacy slow path runs in the tick: at 4000 threads
# under TCG each costs about as much as a tick, serialized on siglock,
# which is the collapse the suite measures; exit_reparent's scan of 4000
# tasks took 12 ms once in a run where the host held a vCPU back. A budget
# of 100 ms a call lets every experiment run and still sends a path back
# to optimized if one call nears a hang (soft-lockup and RCU-stall reports
# come at seconds). A run the watchdog reverted fails the bench.
echo 100000 >/sys/module/abpath/parameters/watchdog_us
echo "== watchdog_us (group_cputime,timer_fastpath,exit_reparent,timer_softirq): $(cat /sys/module/abpath/parameters/watchdog_us)"
echo "== abpath status"
abpath status
echo "== abpath bench --suite history"
abpath bench --suite history --out /results
echo "== counters after the suite"
abpath stats
echo "== watchdog reverts during the suite (0 means every legacy run stayed legacy)"
awk '$3 == "watchdog_reverts" { print "   ", $1, $2, $4 }' /sys/kernel/debug/abpath/stats
