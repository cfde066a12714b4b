#!/usr/bin/env bats
# On the debug kernel (tests/vm/run --debug): load, use and unload abpath,
# and kmemleak finds nothing left behind.

load helper

KML=/sys/kernel/debug/kmemleak

@test "no leak after load, use and rmmod" {
	[ -e "$KML" ] || skip "kmemleak is only in the debug kernel (tests/vm/run --debug)"
	unload_module
	echo clear >"$KML"
	for _ in 1 2 3; do
		modprobe abpath mode=legacy
		"$WL/forkexit" -i 20 >/dev/null
		"$WL/pound-times" -c 2000 -n 2 >/dev/null
		cat "$DBG/stats" "$DBG"/hist/* >/dev/null
		echo optimized >"$SYS/mode"
		rmmod abpath
	done
	# kmemleak reports only objects unreferenced for a few seconds.
	sleep 6
	echo scan >"$KML"
	echo scan >"$KML"
	run -0 cat "$KML"
	assert_output ''
	load_module
}
