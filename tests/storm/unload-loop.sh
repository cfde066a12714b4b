#!/bin/bash
# The loop that once crashed the VM with "Oops: int3" (issue #21): unload
# and reload abpath while forkexit and pound-times keep every hook site
# hot on every vCPU. Each cycle turns all four hook keys on and off, so
# each is a batch of text_poke_bp() into code other vCPUs are executing.
# Runs inside the VM; a line per 10 cycles with the seconds since start
# lets a crash's console log say how far it got.
#
#   unload-loop.sh [CYCLES]      default 200; exits 1 if a workload failed
set -u
cycles=${1:-200}
WL=/usr/local/libexec/abpath
stop=/tmp/unload-loop.stop
fail=0
t0=$EPOCHREALTIME

elapsed() { awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

rm -f "$stop" /tmp/unload-loop.fail
load() {
	while [ ! -e "$stop" ]; do
		"$WL/$1" "${@:2}" >/dev/null 2>&1 || echo "$*" >>/tmp/unload-loop.fail
	done
}
modprobe abpath
echo 0 >/sys/module/abpath/parameters/watchdog_us
pids=()
for _ in $(seq "$(nproc)"); do
	load forkexit -i 2000 & pids+=($!)
	load pound-times -c 200000 -n 2 & pids+=($!)
done
sleep 1

for ((i = 1; i <= cycles; i++)); do
	rmmod abpath || { echo "# rmmod failed in cycle $i"; fail=1; break; }
	modprobe abpath || { echo "# modprobe failed in cycle $i"; fail=1; break; }
	((i % 10)) || echo "# unload-loop: $i cycles, $(elapsed)s"
done
touch "$stop"
for pid in "${pids[@]}"; do wait "$pid"; done
if [ -s /tmp/unload-loop.fail ]; then
	echo "# workload runs that failed:"
	sort /tmp/unload-loop.fail | uniq -c | sed 's/^/#   /'
	fail=1
fi
echo "# unload-loop: $((i - 1)) of $cycles cycles in $(elapsed)s, $(nproc) vCPUs"
exit $fail
