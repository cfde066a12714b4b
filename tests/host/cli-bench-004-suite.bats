#!/usr/bin/env bats
# abpath bench --suite history against the fake sysfs/debugfs tree, with
# fake workloads (written by setup below) under the five names the suite
# runs: each checks the arguments it gets, makes legacy cost more the way
# the real path would, adds to the fake debugfs counters of the mode its
# path is in, and prints a JSON report shaped like the real workload's.

load cli-helper

# Counters of each path, zero in both modes, that the fake workloads add to.
declare -gA COUNTERS=(
	[exit_reparent]="calls ns_total ns_max mismatches tasks_scanned children_found"
	[timer_fastpath]="calls ns_total ns_max mismatches ticks ticks_armed slow_paths threads_walked rebalance_writes slow_path_ns"
	[group_cputime]="calls ns_total ns_max mismatches threads_walked rq_locked locked_passes"
	[timer_softirq]="calls ns_total ns_max mismatches ticks raised suppressed"
)

write_fake_workload() {
	cat >"$1" <<-'EOF'
		#!/bin/sh
		# A fake abpath workload for the suite tests; see the .bats file.
		set -u
		name=${0##*/} json=0 P= I= T= C= S= W= hz= nocheck=0 once=0
		usage() { echo "fake $name: bad arguments: $*" >&2; exit 2; }
		args="$*"
		while [ $# -gt 0 ]; do
			case $name/$1 in
			*/-j) json=1 ;;
			forkexit/-N | thread-churn/-N | itimer-threads/-n | pound-*/-n) P=$2; shift ;;
			sleep-loop/-n) P=$2; shift ;;
			sleep-loop/-T) [ "$2" = select,none ] || usage "$args"; shift ;;
			sleep-loop/-w) [ "$2" = 400 ] || usage "$args"; shift ;;
			sleep-loop/-s) [ "$2" = 1000 ] || usage "$args"; shift ;;
			forkexit/-i | thread-churn/-m | sleep-loop/-i) I=$2; shift ;;
			itimer-threads/-t | softirq-rate/-t) T=$2; shift ;;
			itimer-threads/-I) case $2 in 10000) ;; 10000000000) once=1 ;; *) usage "$args" ;; esac; shift ;;
			itimer-threads/--initial) [ "$2" = 10000 ] || usage "$args"; shift ;;
			itimer-threads/-W) W=$2; shift ;;
			itimer-threads/--no-check) nocheck=1 ;;
			pound-*/-c) C=$2; shift ;;
			softirq-rate/-S) S=$2; shift ;;
			softirq-rate/--hz) hz=$2; shift ;;
			*) usage "$args" ;;
			esac
			shift
		done
		[ "$json" = 1 ] || usage "no -j: $args"
		case $name in
		forkexit | thread-churn) path=exit_reparent; [ -n "$P$I" ] || usage "$args" ;;
		itimer-threads) path=timer_fastpath
			[ -n "$P" ] && [ -n "$W" ] && [ -n "$T" ] && [ $nocheck = 1 ] || usage "$args" ;;
		pound-*) path=group_cputime; [ -n "$P$C" ] || usage "$args" ;;
		softirq-rate) path=timer_softirq; [ "$hz" = 250 ] || usage "$args" ;;
		sleep-loop) path=timer_softirq; [ -n "$P" ] && [ -n "$I" ] || usage "$args" ;;
		*) usage "unknown workload" ;;
		esac
		echo "$name $args" >>"$ABPATH_DEBUGFS/../fake.args"
		read -r m <"$ABPATH_SYSFS/$path/mode"
		case $m in *'[legacy]'* | legacy) mode=legacy ;; *) mode=optimized ;; esac
		k=$(($(cat "$ABPATH_DEBUGFS/../fake.$mode" 2>/dev/null || echo 0) + 1))
		echo $k >"$ABPATH_DEBUGFS/../fake.$mode"
		awk -v name="$name" -v mode="$mode" -v k="$k" -v P="$P" -v I="$I" \
			-v T="$T" -v C="$C" -v S="$S" -v W="$W" -v once="$once" -v path="$path" \
			-v stats="$ABPATH_DEBUGFS/stats" '
		function add(c, v) { inc[c] += int(v) }
		function num(x) { return sprintf("%.6f", x) }
		BEGIN {
			split("0 -0.03 0.03 -0.01 0.01 -0.02 0.02", jj, " ")
			j = 1 + jj[k % 7 + 1]; L = (mode == "legacy")
			if (name == "forkexit") {
				v = (L ? 40 + P / 50 : 40) * j
				add("calls", I); add("tasks_scanned", L ? I * (P + 60) : 0)
				add("ns_total", L ? I * P * 20 : 0)
				res = "\"us_per_fork_exit\":" num(v) ",\"bad_exits\":0"
				head = "\"fork_exit_latency\",\"value\":" num(v) ",\"unit\":\"us\",\"lower_is_better\":true"
			} else if (name == "thread-churn") {
				v = (L ? 20 + P / 100 : 20) * j
				add("calls", I); add("tasks_scanned", L ? I * (P + 60) : 0)
				res = "\"us_per_create_join\":" num(v) ",\"bad_joins\":0"
				head = "\"create_join_latency\",\"value\":" num(v) ",\"unit\":\"us\",\"lower_is_better\":true"
			} else if (name == "itimer-threads") {
				# The same work: legacy takes 1 + P/1000 times
				# as long and gets SIGPROF 1 + P/4000 times as
				# late, with a slow path of P µs on every armed
				# tick; at 4000 threads its runs hit the cap.
				# A timer that fires once costs legacy nothing.
				t = 2000; slow = once ? 1 : 1 + P / 1000
				add("calls", t); add("ticks", t); add("ticks_armed", t)
				add("ns_total", t * (L ? 100 : 90) * j)
				add("slow_path_ns", L && !once ? t * 1000 * P * j : 0)
				add("slow_paths", L && !once ? t : 0)
				add("threads_walked", L && !once ? t * P : 0)
				add("rebalance_writes", L && !once ? t : 0)
				e = W * 1e-6 * (L ? slow : 1) * j
				v = W * P / e
				capped = L && !once && P >= 4000 ? "true" : "false"
				res = "\"loops_per_s\":" num(v) ",\"elapsed_for_work_s\":" num(e) \
					",\"cpu_s_per_sigprof\":" num(0.01 * (L && !once ? 1 + P / 4000 : 1)) \
					",\"capped\":" capped
				head = "\"loops_per_s\",\"value\":" num(v) ",\"unit\":\"loops/s\",\"lower_is_better\":false"
			} else if (name ~ /^pound-/) {
				# The clock: legacy (1 + P) / 2 times as long.
				add("calls", C); add("threads_walked", L ? C * P : 0)
				add("rq_locked", L ? C * (P < 2 ? P : 2) : 0)
				add("ns_total", C * (L ? 100 * P : 50))
				v = C * 1e-6 * (L ? (name == "pound-clock" ? (1 + P) / 2 : P) : 1) * j
				res = "\"elapsed_s\":" num(v) ",\"backwards\":0"
				head = "\"elapsed\",\"value\":" num(v) ",\"unit\":\"s\",\"lower_is_better\":true"
			} else if (name == "softirq-rate") {
				add("ticks", 500 * T); add("raised", L ? 500 * T : 10 * T)
				add("suppressed", L ? 0 : 490 * T)
				busy = (L ? 250 : S == "timers" ? 60 : 4) * j
				mean = S == "idle" ? (L ? 20 : 3) * j : busy
				wake = S == "idle" ? "null" : num((L ? 240 : 2) * j)
				res = "\"mean_per_cpu_s\":" num(mean) ",\"per_busy_cpu_s\":" \
					(S == "idle" ? "null" : num(busy)) ",\"hz\":250" \
					",\"softirq_thread\":{\"wakeups_per_busy_cpu_s\":" wake "}"
				head = "\"timer_softirqs_per_cpu_s\",\"value\":" num(mean) ",\"unit\":\"softirqs/s\",\"lower_is_better\":true"
			} else {
				# select, then none; only the CPU time of a
				# round that sleeps differs between the modes.
				w = 160 * (1 + P / 40) * j; n = 100 * (1 + P / 40) * j
				u = 40 * j; s = (L ? 30 : 15) * j
				res = "\"select\":{\"wall_us\":" num(w) ",\"user_us\":" num(u) \
					",\"sys_us\":" num(s) ",\"cpu_us\":" num(u + s) "}," \
					"\"none\":{\"wall_us\":" num(n) ",\"user_us\":" num(u) \
					",\"sys_us\":0,\"cpu_us\":" num(u) "}"
				head = "\"wall_us_per_iteration\",\"value\":" num(w) ",\"unit\":\"us\",\"lower_is_better\":true"
			}
			printf "{\"workload\":\"%s\",\"metric\":%s,\"params\":{},", name, head
			printf "\"results\":{%s},\"checks\":{\"passed\":true}}\n", res
			while ((getline line < stats) > 0) {
				split(line, f, " ")
				if (f[1] == path && f[2] == mode && (f[3] in inc))
					line = f[1] " " f[2] " " f[3] " " sprintf("%.0f", f[4] + inc[f[3]])
				out = out line "\n"
			}
			printf "%s", out > (stats ".new")
		}'
		mv "$ABPATH_DEBUGFS/stats.new" "$ABPATH_DEBUGFS/stats"
	EOF
	chmod +x "$1"
}

setup() {
	cli_setup
	fake_module
	local p m c
	for p in "${CLI_PATHS[@]}"; do
		for m in legacy optimized; do
			for c in ${COUNTERS[$p]}; do echo "$p $m $c 0"; done
		done
	done >"$ABPATH_DEBUGFS/stats"
	mkdir -p "$ABPATH_WORKLOAD_DIR"
	for w in forkexit thread-churn itimer-threads pound-times pound-clock softirq-rate sleep-loop; do
		write_fake_workload "$ABPATH_WORKLOAD_DIR/$w"
	done
	OUT=$BATS_TEST_TMPDIR/results
}

jq_file() { # FILE FILTER: true on FILE
	jq -e "$2" "$1" >/dev/null || fail "jq '$2' is not true on $1: $(head -c 3000 "$1")"
}

# The active mode: the fake sysfs file holds what abpath last wrote.
mode_of() {
	case $(<"$ABPATH_SYSFS/$1/mode") in
	*'[legacy]'* | legacy) echo legacy ;;
	*) echo optimized ;;
	esac
}

# The quick suite once per file, shared by the tests that only read it.
run_quick_suite() {
	run -0 --separate-stderr "$ABPATH" bench --suite history --quick --out "$OUT"
}

@test "bench --suite history --quick: every experiment in history.json" {
	run_quick_suite
	local h=$OUT/history.json
	jq_file "$h" '.suite == "history" and .complete == true and .quick == true and
		.runs_per_mode == 2 and .warmup_per_mode == 1 and (.cpus | type == "number")'
	jq_file "$h" '[.experiments[].experiment] ==
		["exit_reparent", "exit_reparent-threads", "timer_fastpath",
		 "timer_fastpath-once", "group_cputime", "group_cputime-clock",
		 "timer_softirq", "sleep-loop"]'
	jq_file "$h" '[.experiments[].path] ==
		["exit_reparent", "exit_reparent", "timer_fastpath", "timer_fastpath",
		 "group_cputime", "group_cputime", "timer_softirq", "timer_softirq"]'
	jq_file "$h" '.paths == ["exit_reparent", "timer_fastpath", "group_cputime", "timer_softirq"]'
	jq_file "$h" '[.experiments[].workload] ==
		["forkexit", "thread-churn", "itimer-threads", "itimer-threads",
		 "pound-times", "pound-clock", "softirq-rate", "sleep-loop"]'
	jq_file "$h" 'all(.experiments[]; has("metric") and has("unit") and
		has("lower_is_better") and has("param_name") and
		(.reproduces | length > 20) and .cpus == '"$(getconf _NPROCESSORS_ONLN)"')'
	# The quick sweeps, with exactly the documented arguments.
	jq_file "$h" '[.experiments[] | [.points[].param]] ==
		[[200, 1000], [200, 1000], [8, 4000], [4000], [2, 8], [2, 8],
		 ["busy", "timers", "idle"], [4, 8]]'
	jq_file "$h" '.experiments[0].points[1].args == ["-N", "1000", "-i", "100"]'
	jq_file "$h" '.experiments[1].points[1].args == ["-N", "1000", "-m", "300"]'
	jq_file "$h" '.experiments[2].points[0].args ==
		["-n", "8", "-W", "300000", "-t", "8", "-I", "10000", "--no-check"]'
	jq_file "$h" '.experiments[3].points[0].args ==
		["-n", "4000", "-W", "300000", "-t", "8", "--initial", "10000",
		 "-I", "10000000000", "--no-check"]'
	jq_file "$h" '.experiments[4].points[1].args == ["-n", "8", "-c", "20000"]'
	jq_file "$h" '.experiments[5].points[0].args == ["-n", "2", "-c", "20000"]'
	jq_file "$h" '.experiments[6].points[2].args == ["-S", "idle", "-t", "1", "--hz", "250"]'
	jq_file "$h" '.experiments[7].points[0].args ==
		["-n", "4", "-T", "select,none", "-w", "400", "-s", "1000", "-i", "20"]'
	# Every point is a whole bench result: 1 warm-up + 2 runs per mode.
	jq_file "$h" 'all(.experiments[].points[].bench;
		(.samples | length) == 6 and .runs_per_mode == 2 and
		.summary.legacy.n == 2 and .summary.optimized.n == 2 and
		has("order") and (.summary.ratio | has("ci95")))'
	jq_file "$h" '[.experiments[] | .path as $p | .points[].bench.path == $p] | all'
	jq_file "$h" '.experiments[2].points[1].bench.samples[0].counters.timer_fastpath |
		.ticks_armed == 2000 and .slow_paths == 2000 and .threads_walked == 8000000 and
		.rebalance_writes == 2000'
	# The per-experiment files hold the same objects.
	local e
	for e in exit_reparent exit_reparent-threads timer_fastpath timer_fastpath-once \
		group_cputime group_cputime-clock timer_softirq sleep-loop; do
		[[ -s $OUT/$e.json ]] || fail "no $OUT/$e.json"
		assert_equal "$(jq -c . "$OUT/$e.json")" \
			"$(jq -c --arg e "$e" '.experiments[] | select(.experiment == $e)' "$h")"
	done
	# 2 + 2 + 2 + 1 + 2 + 2 + 3 + 2 points of 6 runs each.
	assert_equal "$(wc -l <"$FAKE/sys/kernel/debug/fake.args")" 96
	local p
	for p in "${CLI_PATHS[@]}"; do assert_equal "$(mode_of $p)" optimized; done
	[[ $stderr == *"abpath: suite: experiment 8 of 8: sleep-loop"* ]]
	[[ $stderr == *"abpath: suite: sleep-loop took "*" s"* ]]
	jq_file "$h" 'all(.experiments[]; .elapsed_s | type == "number" and . >= 0)'
	[[ $stderr == *"abpath: bench: exit_reparent, idle tasks 200 (1/2): run 1 of 6 (legacy, warm-up)"* ]]
}

@test "bench --suite: Markdown tables, one per experiment" {
	run_quick_suite
	local n=$(getconf _NPROCESSORS_ONLN)
	assert_line "### exit_reparent: fork+exit latency vs idle tasks ($n vCPUs)"
	assert_line "### exit_reparent: thread create+exit latency vs idle tasks ($n vCPUs)"
	assert_line "### timer_fastpath: the same work under a 10 ms ITIMER_PROF vs threads ($n vCPUs)"
	assert_line "### timer_fastpath: the same work under an ITIMER_PROF that fires once ($n vCPUs)"
	assert_line "### group_cputime: times() pounded by N threads ($n vCPUs)"
	assert_line "### group_cputime: clock_gettime(CLOCK_PROCESS_CPUTIME_ID) pounded by N threads ($n vCPUs)"
	assert_line "### timer_softirq: TIMER softirqs per second per busy CPU ($n vCPUs)"
	assert_line "### timer_softirq: work and sleep vs threads (negative control) ($n vCPUs)"
	assert_line '| idle tasks | source | legacy µs | optimized µs | legacy/optimized [95% CI] | p | legacy tasks scanned/call |'
	assert_line '|---|---|---:|---:|---|---:|---:|'
	# Legacy: 40 + P/50 µs, optimized 40 µs; P + 60 tasks scanned per call.
	# Threads: legacy 20 + P/100 µs, optimized 20; beside 256/19 µs.
	assert_line --regexp '^\| 1000 \| 13\.5 \| (29|30)\.[0-9]+ \| (19|20)\.[0-9]+ \| 1\.[45][0-9] \[.*\] \| 0\.[0-9]+ \| 1060 \|$'
	assert_line --regexp '^\| 1000 \| 1\.36 \| (59|60)\.[0-9]+ \| (39|40)\.[0-9]+ \| 1\.[45][0-9] \[1\.[0-9]+–1\.[0-9]+\] \| 0\.[0-9]+ \| 1060 \|$'
	# The same work: legacy 1 + P/1000 times as long, SIGPROF 1 + P/4000
	# times as late, a slow path of P µs on every armed tick; at 4000
	# threads every legacy run capped (2 of the 4 measured runs).
	assert_line '| threads | source | legacy s | optimized s | legacy/optimized [95% CI] | p | legacy s/SIGPROF | optimized s/SIGPROF | s/SIGPROF legacy/optimized [95% CI] | legacy slow paths/armed tick | legacy µs/slow path | capped | legacy RCU stalls kept |'
	assert_line --regexp '^\| 8 \| 0\.92 \(1\.9\) \| 0\.(29|30|31)[0-9]* \| 0\.(29|30|31)[0-9]* \| (0\.9[0-9]+|1\.0[0-9]) \[.*\] \| [0-9.]+ \| 0\.01002 \| 0\.01000 \| 1\.00 \[.*\] \| 1 \| [78](\.[0-9]+)? \| 0/4 \| 0 \|$'
	assert_line --regexp '^\| 4000 \| 12\.1 \(1\.9\) \| 1\.[45][0-9]* \| 0\.(29|30|31)[0-9]* \| (4\.[89][0-9]*|5\.[01][0-9]*) \[.*\] \| [0-9.]+ \| 0\.02000 \| 0\.01000 \| 2\.00 \[.*\] \| 1 \| (39|40)[0-9][0-9] \| 2/4 \| 0 \|$'
	# Fired once: no legacy slow path, no difference, the source's 0.87.
	assert_line --regexp '^\| 4000 \| 0\.87 \| 0\.(29|30|31)[0-9]* \| 0\.(29|30|31)[0-9]* \| (0\.9[0-9]+|1\.0[0-9]) \[.*\] \| [0-9.]+ \| 0 \| – \| 0/4 \|$'
	# times(): legacy P times as long, the clock (1 + P)/2; beside the
	# source's itself/parent at the same thread counts; 2 rq locks a call.
	assert_line --regexp '^\| 2 \| 1\.64 \| 0\.0(39|40|41)[0-9]* \| 0\.0(19|20|21)[0-9]* \| (1\.9[0-9]*|2\.0[0-9]*) \[.*\] \| 0\.[0-9]+ \| 2 \|$'
	assert_line --regexp '^\| 8 \| 1\.58 \| 0\.1[56][0-9]+ \| 0\.0(19|20|21)[0-9]+ \| [78]\.[0-9]+ \[.*\] \| 0\.[0-9]+ \| 2 \|$'
	assert_line --regexp '^\| 2 \| 1\.65 \| 0\.0(29|30|31)[0-9]* \| 0\.0(19|20|21)[0-9]* \| 1\.[45][0-9]* \[.*\] \| 0\.[0-9]+ \| 2 \|$'
	assert_line --regexp '^\| 8 \| 1\.52 \| 0\.0(8|9)[0-9]+ \| 0\.0(19|20|21)[0-9]+ \| 4\.[0-9]+ \[.*\] \| 0\.[0-9]+ \| 2 \|$'
	# Softirqs per busy CPU and as a fraction of HZ; idle: the mean over
	# CPUs. Then ksoftirqd's wake-ups, arithmetic means: none in idle.
	assert_line --regexp '^\| busy \| qualitative \| 2[45][0-9]\.[0-9] \| (0\.9[0-9]+|1\.0[0-9]+) \| [34]\.[0-9]+ \| 0\.01[0-9]+ \| [^|]+ \| [^|]+ \| 2[34][0-9](\.[0-9]+)? \| [12]\.[0-9]+ \|$'
	assert_line --regexp '^\| idle \| qualitative \| (19|20)\.[0-9]+ \| 0\.0[78][0-9]+ \| [23]\.[0-9]+ \| 0\.01[0-9]+ \| [^|]+ \| [^|]+ \| – \| – \|$'
	# Only the CPU of a sleeping round differs (70 against 55), and so
	# only its ratio is above 1; beside RHEL 6/RHEL 5 at 8 threads.
	assert_line '| threads | source | legacy select wall µs | optimized select wall µs | select wall legacy/optimized [95% CI] | p | select CPU legacy/optimized [95% CI] | none wall legacy/optimized [95% CI] | p |'
	assert_line --regexp '^\| 8 \| 1\.45 \(0\.98\) \| 1[89][0-9]\.[0-9] \| 1[89][0-9]\.[0-9] \| (0\.9|1\.0)[0-9]+ \[.*\] \| [0-9.]+ \| 1\.[23][0-9]* \[.*\] \| (0\.9|1\.0)[0-9]+ \[.*\] \| [0-9.]+ \|$'
	assert_line --partial 'Reproduces: Ingo Molnar'"'"'s "O(1) sys_exit()" (2.5.31, 2002)'
	assert_line --partial 'Reproduces: case 2 of the tests of f06febc96ba8 "timers: fix itimer/many thread hang" (bug 9906)'
	assert_line --partial "Reproduces: case 3 of f06febc96ba8's tests, a control"
	assert_line --partial "Reproduces: the threading numbers of Ingo Molnar's \"O(1) sys_exit()\" (2.5.31, 2002)"
	assert_line --partial 'Reproduces: 6e998916df "sched/cputime: Fix clock_nanosleep()/clock_gettime() inconsistency" made times()'
	assert_line --partial 'Reproduces: the same commit through clock_gettime(CLOCK_PROCESS_CPUTIME_ID)'
	assert_line --partial "Reproduces: the raise of TIMER_SOFTIRQ on every tick, which Haris Okanovic's -rt RFC \"timers: Don't wake ktimersoftd on every tick\""
	assert_line --partial 'Reproduces: nothing: a negative control for timer_softirq, after the test_select_work comparison of RHEL 5 and RHEL 6.'
	# The published figures, beside ours, under every table.
	assert_line --partial 'Published: Ingo Molnar, "[patch] O(1) sys_exit(), threading, scalable-exit-2.5.31-A6"'
	assert_line --partial 'µs before → after: 743.0 → 657.1, 923.1 → 680.6, 1153.4 → 640.8, 1622.2 → 682.5 at 200, 1000, 2000, 4000 tasks'
	assert_line --partial 'create+exit, µs before → after: 68 → 17, 256 → 19, 487 → 19, 951 → 19 at 200, 1000, 2000, 4000 tasks'
	assert_line --partial 'Published: Frank Mayhar, f06febc96ba8 "timers: fix itimer/many thread hang" (2008-09-12)'
	assert_line --partial 'case 2 with 4000 threads ("the most an unmodified kernel can handle") 70 → 5.8 s elapsed, .023 → .012 s per tick; with 8 threads 5.4 → 5.9 s, .025 → .013 s per tick.'
	assert_line --partial '(i.e. a timer that ticks only once)": 5.5 s unfixed, 6.3 s fixed.'
	assert_line --partial 'Published: Giovanni Gherdovich, 6075620b05 "sched/cputime: Mitigate performance regression in times()/clock_gettime()" (2016-08-10)'
	assert_line --partial 'pound_times: 2.27 → 3.73, 2.78 → 3.77, 2.79 → 4.41, 3.02 → 3.56, 3.10 → 4.61, 3.33 → 5.75, 2.96 → 6.06 at 2, 5, 8, 12, 21, 30, 48 threads'
	assert_line --partial 'pound_clock_gettime: 2.23 → 3.68, 2.83 → 3.78, 2.84 → 4.31, 3.09 → 3.61, 3.14 → 4.63, 3.28 → 5.75, 3.02 → 6.05 at 2, 5, 8, 12, 21, 30, 48 threads'
	assert_line --partial "Published: Haris Okanovic, \"[RFC v2] timers: Don't wake ktimersoftd on every tick\" (LKML, 2016-12-13)"
	assert_line --partial '"a 6h run of cyclictest without CPU affinity shows decrease in 22-70us latency range. No change in max jitter. No change when `-S` is used"'
	assert_line --partial 'Published: The test_select_work question (RHEL 5 → RHEL 6, 2012), Dell Precision M6500'
	assert_line --partial 'select 1902.8 → 2143.1, 2002.0 → 2903.8, 8397.9 → 9016.3 at 4, 8, 40 threads'
	assert_equal "$(grep -c '^Published: ' <<<"$output")" 8
	assert_line --partial 'Workload `forkexit -N <idle tasks> -i 100`, path exit_reparent; 2 measured runs per mode after 1 warm-up'
	# Every table row has as many cells as its header.
	local bad
	bad=$(awk -F'|' '/^\| [a-z]/ && /---/ == 0 { if (hdr && NF != hdr) print }
		/^### / { hdr = 0 } /^\|---/ { hdr = NF }' <<<"$output")
	assert_equal "$bad" ''
	assert_equal "$(grep -c '^### ' <<<"$output")" 8
}

@test "bench --suite -j prints history.json with its tables; --from reprints both and plots" {
	command -v gnuplot >/dev/null || skip "gnuplot not installed"
	run -0 --separate-stderr "$ABPATH" bench --suite history --quick -j --out "$OUT"
	local json=$output tables
	assert_equal "$(jq -c 'del(.tables)' <<<"$json")" "$(jq -c . "$OUT/history.json")"
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/history.json"
	tables=$output
	assert_equal "$(grep -c '^### ' <<<"$tables")" 8
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/history.json" -j
	assert_equal "$output" "$json"
	# The JSON's tables are the text's, every cell's numbers its digits.
	printf '%s\n' "$tables" >"$BATS_TEST_TMPDIR/tables.md"
	printf '%s\n' "$json" >"$BATS_TEST_TMPDIR/tables.json"
	run -0 python3 "$BATS_TEST_DIRNAME/cli-bench-text-json.py" --suite \
		"$BATS_TEST_TMPDIR/tables.md" "$BATS_TEST_TMPDIR/tables.json"
	assert_line --regexp '^compared 8 tables: [0-9]{3} numbers, .*; 0 differ$'
	jq -e '[.tables[].experiment] == [.experiments[].experiment] and
		(.tables[0].rows[1].cells[4] | (.value | type == "number") and (.ci95 | length == 2))' \
		"$BATS_TEST_TMPDIR/tables.json" >/dev/null || fail "$(head -c 3000 "$BATS_TEST_TMPDIR/tables.json")"
	# One experiment's file gives that experiment's table, the same.
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/group_cputime.json"
	assert_equal "$output" "$(awk '/^### group_cputime: times/ { on = 1 } /^### group_cputime: clock/ { on = 0 } on' <<<"$tables")"
	# One plot per experiment, with both modes and the parameter values.
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/history.json" --plot "$BATS_TEST_TMPDIR/h.svg"
	local e
	for e in exit_reparent exit_reparent-threads timer_fastpath timer_fastpath-once \
		group_cputime group_cputime-clock timer_softirq sleep-loop; do
		[[ -s $BATS_TEST_TMPDIR/h-$e.svg ]] || fail "no h-$e.svg"
		grep -q '<svg' "$BATS_TEST_TMPDIR/h-$e.svg"
		grep -q 'optimized (geometric mean)' "$BATS_TEST_TMPDIR/h-$e.svg"
	done
	grep -q 'wall_us_per_iteration' "$BATS_TEST_TMPDIR/h-sleep-loop.svg"
	grep -q 'elapsed_for_work' "$BATS_TEST_TMPDIR/h-timer_fastpath.svg"
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/exit_reparent.json" --plot "$BATS_TEST_TMPDIR/x.png"
	assert_equal "$(head -c 4 "$BATS_TEST_TMPDIR/x-exit_reparent.png" | tail -c 3)" PNG
}

@test "bench --suite --runs N: N measured runs per mode in every point" {
	# Only the first experiment matters here: stop the suite there.
	rm "$ABPATH_WORKLOAD_DIR/itimer-threads"
	run -1 --separate-stderr "$ABPATH" bench --suite history --quick --runs 3
	[[ $stderr == *"itimer-threads: No such file or directory"* ]]
	[[ ! -e $FAKE/sys/kernel/debug/fake.args ]] || fail "it ran before checking"
	write_fake_workload "$ABPATH_WORKLOAD_DIR/itimer-threads"
	run -0 --separate-stderr "$ABPATH" bench --suite history --quick --runs 3 --warmup 0 -j
	jq -e '.runs_per_mode == 3 and .warmup_per_mode == 0 and
		all(.experiments[].points[].bench; (.samples | length) == 6)' <<<"$output" >/dev/null ||
		fail "runs: $(jq -c '[.runs_per_mode, .warmup_per_mode]' <<<"$output")"
}

@test "bench --suite --runs auto: every point stops by the rule, and the tables give each rule's verdict" {
	run -0 --separate-stderr "$ABPATH" bench --suite history --quick --runs auto --max-runs 6 -j --out "$OUT"
	jq -e '.schema == "abpath-bench/4" and .adaptive and .runs_per_mode == 6 and
		all(.experiments[]; .adaptive and .runs_per_mode == 6) and
		all(.experiments[].points[].bench; .sequential.cap_runs == 6 and
			(.sequential.stopped_by | IN("different", "equivalent", "precise", "cap")) and
			([.samples[] | select(.warmup | not)] | length) == 4 * .sequential.looks[-1].runs / 2)' \
		<<<"$output" >/dev/null ||
		fail "$(jq -c '[.runs_per_mode, [.experiments[].points[].bench.sequential | [.stopped_by, .looks_made]]]' <<<"$output")"
	# The quick suite's first point, derived again from its runs; the
	# JSON's tables carry every point's verdict by the rule.
	want=$(jq -r '.experiments[0].points[0] | "- \(.param): \(.bench.summary.verdict)"' <<<"$output")
	assert_equal "$(jq -r '.tables[0].notes[] | select(.kind == "rule") | .verdicts[0] |
		"- \(.param_text): \(.verdict)"' <<<"$output")" "$want"
	assert_equal "$(jq '[.tables[].notes[] | select(.kind == "rule") | .verdicts[]] | length' <<<"$output")" \
		"$(jq '[.experiments[].points[]] | length' <<<"$output")"
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/history.json"
	assert_line --partial 'Measured with --runs auto: each point ran ABBA blocks until the stopping rule stopped it'
	assert_line "$want"
	assert_line --partial 'at most 6 measured runs per mode after 1 warm-up'
}

@test "bench --suite: a failing point stops it, restores, keeps what was done" {
	# pound-times fails: the first two experiments are complete.
	printf '#!/bin/sh\necho "pound: exploded" >&2\nexit 1\n' >"$ABPATH_WORKLOAD_DIR/pound-times"
	run -1 --separate-stderr "$ABPATH" bench --suite history --quick --out "$OUT"
	[[ $stderr == *"group_cputime, threads 2 (1/2): run 1 of 6 (legacy, warm-up): pound-times exited with status 1"* ]]
	[[ $stderr == *"pound: exploded"* ]]
	[[ $stderr == *"points done so far are in $OUT/history.json"* ]]
	assert_equal "$output" ''
	jq_file "$OUT/history.json" '.complete == false and
		([.experiments[] | .points | length] == [2, 2, 2, 1, 0])'
	[[ -s $OUT/timer_fastpath-once.json && ! -e $OUT/group_cputime.json ]]
	assert_equal "$(mode_of group_cputime)" optimized
}

@test "bench --suite: SIGINT stops it and restores the mode (130)" {
	printf '#!/bin/sh\ntrap "exit 143" TERM INT\necho started >"$ABPATH_DEBUGFS/../fake.started"\nsleep 60 & wait $!\n' \
		>"$ABPATH_WORKLOAD_DIR/forkexit"
	"$ABPATH" bench --suite history --quick >"$BATS_TEST_TMPDIR/out" \
		2>"$BATS_TEST_TMPDIR/err" 3>&- &
	local pid=$! i rc=0
	for ((i = 0; i < 100; i++)); do
		[[ -e $FAKE/sys/kernel/debug/fake.started ]] && break
		sleep 0.1
	done
	assert_equal "$(mode_of exit_reparent)" legacy
	kill -INT $pid
	wait $pid || rc=$?
	assert_equal "$rc" 130
	assert_equal "$(mode_of exit_reparent)" optimized
	grep -q 'interrupted by SIGINT in exit_reparent, idle tasks 200 (1/2), run 1 of 6; restored exit_reparent to optimized' \
		"$BATS_TEST_TMPDIR/err" || fail "$(cat "$BATS_TEST_TMPDIR/err")"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/out")" ''
}

@test "bench --from a suite result: the measured runs each point left out, and why" {
	run_quick_suite
	jq -c '.experiments[0].points[1].bench.samples |= map(
		if .mode == "legacy" and (.warmup | not) then .invalid = "the watchdog sent exit_reparent back" else . end)' \
		"$OUT/history.json" >"$BATS_TEST_TMPDIR/left-out.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/left-out.json"
	assert_line 'Measured runs left out of the statistics: 1000: 2 legacy, 0 optimized: the watchdog sent exit_reparent back.'
	assert_line --regexp '^\| 1000 \| 1\.36 \| – \| [0-9.]+ \| – \|'
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/history.json"
	refute_line --partial 'left out of the statistics'
}

@test "bench --suite history --path: only those paths' experiments, and the result says so" {
	run -0 --separate-stderr "$ABPATH" bench --suite history --quick \
		--path group_cputime,exit_reparent --out "$OUT/part"
	local h=$OUT/part/history.json
	# The suite's order, whatever the list's.
	jq_file "$h" '.complete == true and .paths == ["exit_reparent", "group_cputime"]'
	jq_file "$h" '[.experiments[].experiment] ==
		["exit_reparent", "exit_reparent-threads", "group_cputime", "group_cputime-clock"]'
	[[ $stderr == *"experiment 1 of 4: exit_reparent (forkexit"* ]] || fail "$stderr"
	[[ $stderr == *"experiment 4 of 4: group_cputime-clock (pound-clock"* ]] || fail "$stderr"
	# The other workloads never ran, and their paths were not switched.
	assert_equal "$(cut -d' ' -f1 "$FAKE/sys/kernel/debug/fake.args" | sort -u | xargs)" \
		"forkexit pound-clock pound-times thread-churn"
	[[ ! -e $OUT/part/timer_fastpath.json && -e $OUT/part/group_cputime-clock.json ]]
	assert_equal "$(mode_of timer_fastpath)" optimized
	# One path, and "all" as the whole suite.
	run -0 --separate-stderr "$ABPATH" bench --suite history --quick --path timer_softirq -j
	jq -e '.paths == ["timer_softirq"] and
		[.experiments[].experiment] == ["timer_softirq", "sleep-loop"]' <<<"$output" >/dev/null ||
		fail "$output"
	# Beside a whole result: the experiments it did not run are "–".
	run_quick_suite
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/history.json" --from "$h"
	assert_equal "$(grep -c '^### ' <<<"$output")" 8
	assert_line --regexp '^\| 1000 \| 1\.36 \| 1\.[45][0-9] \[.*\] \| 1\.[45][0-9] \[.*\] \|$'
	assert_line --regexp '^\| 4000 \| 12\.1 \(1\.9\) \| [0-9.]+ \[.*\] \| – \|$'
}

@test "bench --suite history --path: a bad list is a usage error, and nothing runs" {
	assert_usage_error bench --suite history --quick --path nosuch
	[[ $stderr == *"unknown path 'nosuch'; valid paths: group_cputime, timer_fastpath, exit_reparent, timer_softirq, all"* ]]
	assert_usage_error bench --suite history --quick --path exit_reparent,nosuch
	[[ $stderr == *"unknown path 'nosuch'"* ]]
	assert_usage_error bench --suite history --quick --path exit_reparent,
	[[ $stderr == *"--path exit_reparent,: '': an empty name in the list"* ]]
	assert_usage_error bench --suite history --quick --path all,timer_softirq
	[[ $stderr == *"'all' stands alone, not in a list"* ]]
	# A path of the loaded module that the suite has no experiment for.
	mkdir "$ABPATH_SYSFS/fifth_path"
	echo '[optimized] legacy' >"$ABPATH_SYSFS/fifth_path/mode"
	assert_usage_error bench --suite history --quick --path exit_reparent,fifth_path
	[[ $stderr == *"'fifth_path': no experiment of the history suite switches it"* ]]
	assert_usage_error bench --from x.json --path exit_reparent
	[[ $stderr == *"--path does not apply to --from"* ]]
	[[ ! -e $FAKE/sys/kernel/debug/fake.args ]] || fail "a usage error ran a workload"
}

@test "bench --suite and --from: usage errors exit 2" {
	assert_usage_error bench --suite nosuch
	[[ $stderr == *"unknown suite 'nosuch'; the only one is 'history'"* ]]
	assert_usage_error bench --suite history forkexit
	assert_usage_error bench --suite history -- -N 3
	assert_usage_error bench --suite history --from x.json
	assert_usage_error bench --quick forkexit
	assert_usage_error bench forkexit --out "$OUT"
	assert_usage_error bench --from x.json --runs 3
	assert_usage_error bench --suite history --plot out.pdf
	[[ ! -e $FAKE/sys/kernel/debug/fake.args ]] || fail "a usage error ran a workload"
	# Without the module, the suite does not start.
	rm -rf "$ABPATH_SYSFS"
	run -1 --separate-stderr "$ABPATH" bench --suite history --quick
	[[ $stderr == *"module abpath is not loaded"* ]]
}

# "TABLE PARAM SOURCE" for every row of every table: the parameter and the
# cell under "source"; and "TABLE header-without-source" for a table whose
# second column is not it.
source_cells() {
	awk -F' \\| ' '/^### / { t++; hdr = 0; next }
		/^\|---/ { next }
		/^\| / && !hdr { hdr = 1; if ($2 != "source") print t, "header-without-source"; next }
		/^\| / { sub(/^\| /, "", $1); print t, $1, $2 }'
}

@test "bench --suite: every table has a source column, the source's own figure at each point" {
	run_quick_suite
	local tables=$output
	# The sources' before/after, unfixed/fixed, itself/parent and
	# RHEL 6/RHEL 5 ratios, from their own numbers (../shared/seeds).
	assert_equal "$(source_cells <<<"$tables")" "$(cat <<-'END'
		1 200 1.13
		1 1000 1.36
		2 200 4.0
		2 1000 13.5
		3 8 0.92 (1.9)
		3 4000 12.1 (1.9)
		4 4000 0.87
		5 2 1.64
		5 8 1.58
		6 2 1.65
		6 8 1.52
		7 busy qualitative
		7 timers qualitative
		7 idle qualitative
		8 4 1.13 (1.07)
		8 8 1.45 (0.98)
	END
	)"
	# A point the source has no figure for, and an experiment this
	# version does not know, still get the column, with "–".
	jq -c '.experiments[2].points[0].param = 16 | .experiments[7].experiment = "nosuch"' \
		"$OUT/history.json" >"$BATS_TEST_TMPDIR/other.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/other.json"
	assert_equal "$(source_cells <<<"$output" | grep -c header-without-source)" 0
	assert_equal "$(source_cells <<<"$output" | awk '$1 == 3 || $1 == 8' | cut -d' ' -f2-)" \
		"$(printf '%s\n' '16 –' '4000 12.1 (1.9)' '4 –' '8 –')"
	assert_line '| threads | source | legacy | optimized | legacy/optimized [95% CI] | p |'
}

@test "bench --from: the legacy RCU stalls a collapse provoked, counted per point" {
	run_quick_suite
	# Two stalls kept with one legacy run at 4000 threads, one with its
	# warm-up; none with an optimized run.
	jq -c '.experiments[2].points[1].bench.samples |=
		(.[0].kernel_reports = {rcu_stalls_starved: 1, from_s: 10.5, to_s: 10.6}
		 | (map(select(.mode == "legacy" and (.warmup | not))) | .[0].index) as $i
		 | map(if .index == $i then
			.kernel_reports = {rcu_stalls_starved: 2, from_s: 20, to_s: 31} else . end))' \
		"$OUT/history.json" >"$BATS_TEST_TMPDIR/stalls.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$BATS_TEST_TMPDIR/stalls.json"
	assert_line --regexp '^\| 4000 \| 12\.1 \(1\.9\) \|.*\| 2/4 \| 3 in 2/3 runs \|$'
	assert_line --regexp '^\| 8 \| 0\.92 \(1\.9\) \|.*\| 0/4 \| 0 \|$'
	assert_line --partial 'Legacy RCU stalls kept: stall reports during the legacy runs, warm-ups too'
}

@test "bench --from A --from B: one table per experiment across results, by backend and kernel" {
	local n=$(getconf _NPROCESSORS_ONLN) k=$(uname -r)
	"$ABPATH" bench --suite history --quick --out "$OUT/patched" >/dev/null 2>&1
	echo stock >"$ABPATH_SYSFS/backend"
	"$ABPATH" bench --suite history --quick --out "$OUT/stock" >/dev/null 2>&1
	jq_file "$OUT/patched/history.json" '.provenance.backend == "patched"'
	jq_file "$OUT/stock/history.json" '.provenance.backend == "stock"'
	# Another kernel, and a point that one result does not have.
	jq -c '.provenance.kernel = "6.12.117+deb12-amd64" |
		(.experiments[] | select(.experiment == "timer_fastpath") | .points) |=
			map(select(.param != 4000))' \
		"$OUT/stock/history.json" >"$BATS_TEST_TMPDIR/stock.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/patched/history.json" \
		--from "$BATS_TEST_TMPDIR/stock.json"
	assert_equal "$stderr" ''
	assert_equal "$(grep -c '^### ' <<<"$output")" 8
	assert_equal "$(grep -c '^Published: ' <<<"$output")" 8
	assert_equal "$(grep -c '^Each cell: ' <<<"$output")" 8
	assert_equal "$(source_cells <<<"$output" | grep -c header-without-source)" 0
	assert_line '### exit_reparent: fork+exit latency vs idle tasks, legacy/optimized across results'
	assert_line "| idle tasks | source | patched $k ($n vCPUs) | stock 6.12.117+deb12-amd64 ($n vCPUs) |"
	assert_line '|---|---|---|---|'
	assert_line --regexp '^\| 1000 \| 1\.36 \| 1\.[45][0-9] \[[0-9.]+–[0-9.]+\] \| 1\.[45][0-9] \[[0-9.]+–[0-9.]+\] \|$'
	# Every cell is the experiment's first ratio: elapsed for the work.
	assert_line --regexp '^\| 8 \| 0\.92 \(1\.9\) \| (0\.9|1\.0)[0-9]* \[.*\] \| (0\.9|1\.0)[0-9]* \[.*\] \|$'
	assert_line --regexp '^\| 4000 \| 12\.1 \(1\.9\) \| (4\.[89]|5\.[01])[0-9]* \[.*\] \| – \|$'
	assert_line --regexp '^\| 8 \| 1\.45 \(0\.98\) \| (0\.9|1\.0)[0-9]* \[.*\] \| (0\.9|1\.0)[0-9]* \[.*\] \|$'
	assert_line --partial "Each cell: legacy/optimized [95% CI] of elapsed_for_work (s) in one result, the ratio of the geometric means of its measured runs"
	assert_line --partial "Results: patched $k ($n vCPUs): $OUT/patched/history.json, "
	assert_line --partial "; stock 6.12.117+deb12-amd64 ($n vCPUs): $BATS_TEST_TMPDIR/stock.json, "
	assert_line --partial '2 measured runs per mode, `itimer-threads -n <threads> -W 300000 -t 8 -I 10000 --no-check`'
	# One experiment's file beside a whole suite: the other experiments
	# are not run there; two files that record the same are numbered.
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/patched/group_cputime.json" \
		--from "$OUT/patched/history.json"
	assert_line "| threads | source | patched $k ($n vCPUs) | patched $k ($n vCPUs) #2 |"
	assert_line --regexp '^\| 8 \| 1\.58 \| [78]\.[0-9]+ \[.*\] \| [78]\.[0-9]+ \[.*\] \|$'
	assert_line --regexp '^\| 1000 \| 1\.36 \| – \| 1\.[45][0-9] \[.*\] \|$'
	assert_line --partial "Results: patched $k ($n vCPUs): $OUT/patched/group_cputime.json, not run; "
	# Two machines that share a release (x86_64 and aarch64 kernels do):
	# the heading names each machine; LABEL=FILE names a column outright.
	jq_file "$OUT/patched/history.json" ".provenance.machine == \"$(uname -m)\""
	jq -c '.provenance.machine = "other"' "$OUT/patched/history.json" >"$BATS_TEST_TMPDIR/other.json"
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/patched/history.json" \
		--from "$BATS_TEST_TMPDIR/other.json"
	assert_line "| idle tasks | source | patched $k $(uname -m) ($n vCPUs) | patched $k other ($n vCPUs) |"
	run -0 --separate-stderr "$ABPATH" bench --from "x86=$OUT/patched/history.json" \
		--from "arm=$BATS_TEST_TMPDIR/other.json"
	assert_line '| idle tasks | source | x86 | arm |'
	assert_line --partial "Results: x86: $OUT/patched/history.json, "
	# One file is the table of that file, as before.
	run -0 --separate-stderr "$ABPATH" bench --from "$OUT/patched/history.json"
	assert_line "| idle tasks | source | legacy µs | optimized µs | legacy/optimized [95% CI] | p | legacy tasks scanned/call |"
	# Several take suite results only, and print Markdown only.
	jq -c '.experiments[0].points[0].bench' "$OUT/patched/history.json" >"$BATS_TEST_TMPDIR/bench.json"
	run -1 --separate-stderr "$ABPATH" bench --from "$OUT/patched/history.json" \
		--from "$BATS_TEST_TMPDIR/bench.json"
	assert_equal "$stderr" "abpath: error: $BATS_TEST_TMPDIR/bench.json is one bench's result: several --from take suite results (abpath bench --suite)"
	assert_equal "$output" ''
	assert_usage_error bench --from "$OUT/patched/history.json" --from "$OUT/stock/history.json" -j
	assert_usage_error bench --from "$OUT/patched/history.json" --from "$OUT/stock/history.json" \
		--plot "$BATS_TEST_TMPDIR/x.svg"
	assert_usage_error bench --from - --from -
	assert_usage_error bench --from 1 --from 2 --from 3 --from 4 --from 5 --from 6 --from 7 \
		--from 8 --from 9
	[[ $stderr == *"at most 8 --from files"* ]]
}
