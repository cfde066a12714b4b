#!/usr/bin/env bats
# The smoke every kernel gets, where the whole suite does not run: the
# module loads and names its kernel, every path is attached or says why,
# each attached path's legacy arm runs, the cross-checks stay at 0 while
# every path flips under load, and the module unloads. Runs in the VM.

load ../suite/helper

setup_file() {
	modprobe abpath
	echo 0 >/sys/module/abpath/parameters/watchdog_us
}

# The paths this kernel attached; the others say why in their site.
attached() {
	local p
	for p in "${PATHS[@]}"; do
		grep -q '^unavailable' "$SYS/$p/site" || echo "$p"
	done
}

@test "abpath loads and names the kernel it runs on" {
	run -0 abpath status
	assert_output --partial "$(uname -r)"
	echo "# $(uname -r) $(uname -v), backend $(cat "$SYS/backend")" >&3
}

@test "every path is attached, or says why not" {
	for p in "${PATHS[@]}"; do
		run -0 cat "$SYS/$p/site"
		[ -n "$output" ] && [ "$output" != unavailable ] && [ "$output" != "unavailable: " ] ||
			fail "$p: an empty site"
		echo "# $p: $output" >&3
	done
	[ -n "$(attached)" ] || fail "no path attached"
}

@test "every attached path's legacy arm runs" {
	write_file "$DBG/reset" 1
	for p in $(attached); do
		write_file "$SYS/$p/mode" legacy
	done
	"$WL/forkexit" -i 200 >/dev/null
	"$WL/pound-times" -c 20000 -n 2 >/dev/null
	"$WL/itimer-threads" -n 4 -t 2 -I 10000 >/dev/null
	for p in $(attached); do
		write_file "$SYS/$p/mode" optimized
		calls=$(counter "$p" legacy calls)
		expect "$calls" -gt 0 "$p legacy calls"
		echo "# $p: $calls legacy calls" >&3
	done
}

@test "every attached path flips under load with its cross-check at 0" {
	write_file "$DBG/reset" 1
	pids=()
	for p in $(attached); do
		start_toggler "$p" 0.01
		pids+=("$TOGGLER")
	done
	"$WL/forkexit" -i 300 >/dev/null
	"$WL/pound-times" -c 50000 -n 2 >/dev/null
	"$WL/itimer-threads" -n 8 -t 3 -I 10000 >/dev/null
	kill "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null || true
	for p in $(attached); do
		write_file "$SYS/$p/mode" optimized
		for m in legacy optimized; do
			expect "$(counter "$p" "$m" mismatches)" -eq 0 "$p $m mismatches"
		done
		expect "$(counter "$p" legacy calls)" -gt 0 "$p legacy calls while flipping"
	done
}

@test "abpath unloads" {
	run -0 rmmod abpath
	[ ! -d /sys/module/abpath ] || fail "/sys/module/abpath is still there"
}
