#!/bin/bash
# Runs inside the VM for make demo.
set -e
modprobe abpath
# timer_fastpath's legacy slow path runs in the tick: at 4000 threads
# under TCG each costs about as much as a tick, serialized on siglock,
# which is the collapse the suite measures. A budget of 100 ms per slow
# path lets that regime run and still sends the path back to optimized if
# one slow path ever nears a hang (soft-lockup and RCU-stall reports come
# at seconds); the other paths keep the default 10 ms.
echo 10000,100000,10000,10000 >/sys/module/abpath/parameters/watchdog_us
echo "== watchdog_us (group_cputime,timer_fastpath,exit_reparent,timer_softirq): $(cat /sys/module/abpath/parameters/watchdog_us)"
echo "== abpath status"
abpath status
echo "== abpath bench --suite history"
abpath bench --suite history --out /results
echo "== counters after the suite"
abpath stats
echo "== watchdog reverts during the suite (0 means every legacy run stayed legacy)"
awk '$3 == "watchdog_reverts" { print "   ", $1, $2, $4 }' /sys/kernel/debug/abpath/stats
