#!/bin/bash
# The seconds a modprobe and an rmmod of abpath take, five of each, idle
# and under two pound-times loops and a forkexit loop. Runs in the VM.
WL=/usr/local/libexec/abpath
t() { local a=$EPOCHREALTIME; "$@" >/dev/null; awk -v a="$a" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'; }
for load in idle busy; do
	pids=()
	if [ $load = busy ]; then
		for i in 1 2; do (while :; do "$WL/pound-times" -n 2 -c 100000 >/dev/null; done) & pids+=($!); done
		(while :; do "$WL/forkexit" -i 200 >/dev/null; done) & pids+=($!)
	fi
	l= u=
	for i in 1 2 3 4 5; do l+=" $(t modprobe abpath)"; u+=" $(t rmmod abpath)"; done
	echo "$load: modprobe$l; rmmod$u"
	[ ${#pids[@]} -eq 0 ] || { kill "${pids[@]}"; wait 2>/dev/null; }
done
