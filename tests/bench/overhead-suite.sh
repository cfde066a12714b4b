#!/bin/bash
# make overhead, inside an --icount VM: every overhead.sh measurement of
# docs/benchmarks.md, "The module's own overhead", in one boot, and the
# module's defaults beside them. Address space randomization is off:
# with it on, runs of fork+exit varied by 1.3 % (standard deviation,
# ten runs), with it off by 0.2 %, and what the module adds to an exit
# is far smaller; fork+exit also runs on one vCPU (taskset).
set -e
d=/abpath/tests/bench
echo 0 >/proc/sys/kernel/randomize_va_space
modprobe abpath mode=optimized
cp /sys/module/abpath/parameters/sample_shift /results/overhead-sample_shift
cat /sys/kernel/abpath/backend >/results/overhead-backend
modprobe -r abpath
"$d/overhead.sh" 24 pound-times -n 2 -c 400000
OVERHEAD_PARAMS=sample_shift=20 OVERHEAD_TAG=untimed \
	"$d/overhead.sh" 12 pound-times -n 2 -c 400000
taskset -c 0 "$d/overhead.sh" 24 forkexit -i 2000
"$d/overhead.sh" 8 itimer-threads -n 1 -t 2 -I 1000000
