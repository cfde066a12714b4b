#!/usr/bin/env bats
# abpath stats: the table, JSON that matches the file, and --watch.

load cli-helper

setup() {
	cli_setup
}

@test "stats prints one table per path with a column per mode" {
	fake_module
	run -0 "$ABPATH" stats
	assert_line 'group_cputime:'
	assert_line 'timer_softirq:'
	assert_line --regexp '^  counter +legacy +optimized$'
	assert_line --regexp '^  calls +10 +20$'
	assert_line --regexp '^  ns_total +123456 +2345$'
	# A counter only one mode has is shown, with a dash for the other.
	assert_line --regexp '^  threads_walked +400 +-$'
	assert_line --regexp '^  softirqs_suppressed +- +250$'
}

@test "stats -j parses and every value agrees with the stats file" {
	fake_module
	run -0 "$ABPATH" stats -j
	local json=$output path mode counter value n=0
	while read -r path mode counter value; do
		run -0 jq -e --arg p "$path" --arg m "$mode" --arg c "$counter" \
			".paths[\$p][\$m][\$c] == $value" <<<"$json"
		n=$((n + 1))
	done <"$ABPATH_DEBUGFS/stats"
	run -0 jq '[.paths[][][]] | length' <<<"$json"
	assert_output "$n"
	run -0 jq -r '.paths | keys_unsorted | join(" ")' <<<"$json"
	assert_output "${CLI_PATHS[*]}"
}

@test "-j before the command works for stats" {
	fake_module
	run -0 "$ABPATH" -j stats
	run -0 jq -e '.paths.exit_reparent.legacy.tasks_scanned == 3000' <<<"$output"
}

@test "stats keeps every digit of a 64-bit counter in text" {
	fake_module
	echo 'group_cputime legacy ns_total 18446744073709551615' >"$ABPATH_DEBUGFS/stats"
	run -0 "$ABPATH" stats
	assert_line --regexp '^  ns_total +18446744073709551615$'
	run -0 "$ABPATH" stats -j
	run -0 jq -e '.paths.group_cputime.legacy.ns_total > 1.8e19' <<<"$output"
}

@test "stats rejects a malformed stats file, naming the line" {
	fake_module
	local bad
	for bad in 'group_cputime legacy calls' 'group_cputime legacy calls -1' \
		'group_cputime legacy calls 12x' 'a b c 1 extra' \
		'group_cputime legacy calls 18446744073709551616' \
		$'timer_fastpath leg\x94\x9acy calls 7' $'group_cputime legacy c\x01lls 1'; do
		printf 'timer_softirq legacy calls 1\n%s\n' "$bad" >"$ABPATH_DEBUGFS/stats"
		run -1 --separate-stderr "$ABPATH" stats
		[[ $stderr == *"/stats:2: cannot parse"* ]] || fail "'$bad': $stderr"
		# A name that is no UTF-8 was a JSON key freed under the table
		# (fuzz-stats): now a line like any other that is not the module's.
		run -1 --separate-stderr "$ABPATH" stats -j
		[[ $stderr == *"/stats:2: cannot parse"* && -z $output ]] || fail "-j '$bad': $stderr"
	done
}

@test "stats with an empty stats file prints nothing and succeeds" {
	fake_module
	: >"$ABPATH_DEBUGFS/stats"
	run -0 "$ABPATH" stats -j
	assert_output '{"paths":{}}'
}

@test "stats without debugfs tells how to mount it" {
	fake_module
	rm -r "$FAKE/sys/kernel/debug"
	mkdir "$FAKE/sys/kernel/debug"
	run -1 --separate-stderr "$ABPATH" stats
	[[ $stderr == "abpath: error: debugfs is not mounted"*"mount -t debugfs none "* ]]
}

@test "stats without the module tells how to load it" {
	fake_kernel
	run -1 --separate-stderr "$ABPATH" stats -j
	assert_equal "$output" ''
	[[ $stderr == *"not loaded; load it with 'abpath load' or 'modprobe abpath'" ]]
}

@test "stats without the module and without debugfs names the module first" {
	fake_kernel
	rm -r "$FAKE/sys/kernel/debug"
	mkdir "$FAKE/sys/kernel/debug"
	run -1 --separate-stderr "$ABPATH" stats
	assert_equal "$stderr" "abpath: error: module abpath is not loaded; load it with 'abpath load' or 'modprobe abpath'"
	run -1 --separate-stderr "$ABPATH" reset
	assert_equal "$stderr" "abpath: error: module abpath is not loaded; load it with 'abpath load' or 'modprobe abpath'"
}

@test "stats --watch -j prints one JSON sample per line with rates until SIGINT" {
	fake_module
	# Ten times the counts after about 0.5 s: rates must turn positive.
	(sleep 0.5 && fake_stats 10) &
	run -0 --separate-stderr timeout --preserve-status -s INT 1.5 \
		"$ABPATH" stats -j --watch 0.2
	wait
	assert_equal "$stderr" ''
	local lines
	lines=$(wc -l <<<"$output")
	((lines >= 4)) || fail "only $lines samples: $output"
	run -0 jq -se 'all(.[]; .paths.group_cputime.legacy.calls >= 10)
		and (.[0] | has("rates") | not) and (.[0].interval == null)
		and all(.[1:][]; has("rates") and .interval > 0.1)
		and any(.[]; .rates.group_cputime.legacy.calls > 0)
		and (.[-1].paths.group_cputime.legacy.calls == 100)' <<<"$output"
}

@test "stats --watch -j gives no rate for a counter that went down" {
	fake_module
	(sleep 0.4 && sed -i 's/ns_max 9999/ns_max 5/' "$ABPATH_DEBUGFS/stats") &
	run -0 timeout --preserve-status -s INT 1.5 "$ABPATH" stats -j --watch 0.2
	wait
	run -0 jq -se 'any(.[1:][]; .rates.group_cputime.legacy.ns_max == null)' <<<"$output"
}

@test "stats --watch in text shows rate columns and exits 0 on SIGINT" {
	fake_module
	run -0 timeout --preserve-status -s INT 0.7 "$ABPATH" stats --watch 0.2
	assert_line --regexp '^  counter +legacy +legacy/s +optimized +optimized/s$'
	assert_line --regexp '^  calls +10 +0\.0 +20 +0\.0$'
	# The JSON's time and interval too: text and JSON are one tree.
	assert_line --regexp '^time: +[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}$'
	assert_line --regexp '^interval: +0\.2$'
}

@test "stats --watch on a terminal leaves the cursor visible and no alternate screen" {
	command -v script >/dev/null || skip "script (util-linux) not installed"
	fake_module
	run -0 script -qec "timeout --preserve-status -s INT 0.7 '$ABPATH' stats --watch 0.2" /dev/null
	[[ $output == *$'\e[H\e[2J'* ]] || fail "no redraw: $output"
	[[ $output != *$'\e[?25l'* && $output != *$'\e[?1049h'* ]]
	[[ $output == *$'\e[?25h'* ]]
}

@test "stats --watch stops with an error when the module goes away" {
	fake_module
	(sleep 0.3 && rm -r "$ABPATH_DEBUGFS" "$ABPATH_SYSFS") &
	run -1 --separate-stderr timeout --preserve-status -s INT 2 \
		"$ABPATH" stats -j --watch 0.1
	wait
	[[ $stderr == *"not loaded"* ]]
}
