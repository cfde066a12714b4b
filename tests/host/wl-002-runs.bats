#!/usr/bin/env bats
# Workloads: tiny runs on the host; -j gives exactly one JSON object with
# the keys `abpath bench` relies on, the summary is human text.

load wl-common

setup_file() {
	wl_build
}

# Runs NAME ARGS... -j, checks the common shape, leaves the JSON in $output.
json_run() {
	run -0 --separate-stderr "$WL_DIR/$1" "${@:2}" -j
	[ "$(jq -s length <<<"$output")" = 1 ] || fail "not one JSON object: $output"
	wl_json_ok "$1" "$output" || fail "bad shape: $output"
	jq -e '.checks.passed' <<<"$output" >/dev/null || fail "checks failed: $output $stderr"
}

@test "pound-times: tiny run, monotonic check, metric is seconds" {
	json_run pound-times -c 20000 -n 3
	jq -e '.metric == "elapsed" and .unit == "s" and .lower_is_better
		and .params == {threads: 3, calls: 20000}
		and .results.backwards == 0 and .results.calls_per_s > 0
		and .checks.monotonic' <<<"$output"
}

@test "pound-clock: tiny run, monotonic check" {
	json_run pound-clock -c 20000 -n 2
	jq -e '.results.elapsed_s == .value and .checks.monotonic' <<<"$output"
}

@test "forkexit: tiny run with idle tasks, every child exited cleanly" {
	json_run forkexit -i 50 -N 5
	jq -e '.metric == "fork_exit_latency" and .unit == "us" and .lower_is_better
		and .params == {idle: 5, iterations: 50}
		and .results.bad_exits == 0 and .value > 0 and .checks.clean_exit' <<<"$output"
}

@test "thread-churn: tiny run with idle tasks" {
	json_run thread-churn -m 50 -N 3
	jq -e '.metric == "create_join_latency" and .params.threads == 50
		and .results.bad_joins == 0 and .checks.joined' <<<"$output"
}

@test "itimer-threads: timed run counts SIGPROF, metric higher is better" {
	json_run itimer-threads -n 1 -I 20000 -t 0.5 --tolerance 30
	jq -e '.metric == "loops_per_s" and (.lower_is_better | not)
		and .results.sigprof > 0 and .results.expected_per_cpu_s == 50
		and (.results.loops_per_thread | length) == 1
		and .checks.sigprof_rate and .checks.sigprof_not_excess' <<<"$output"
}

@test "itimer-threads: fixed work, --no-check skips the checks" {
	json_run itimer-threads -n 3 -w 50 --no-check
	jq -e '.params.work == 50 and .params.seconds == null
		and .results.loops == 150 and .checks.sigprof_rate == null' <<<"$output"
}

@test "itimer-threads: -W splits the work evenly, -t caps it and says so" {
	json_run itimer-threads -n 4 -W 10 --no-check
	jq -e '.params.work == 3 and .params.total_work == 10 and .params.seconds == null
		and .results.loops == 12 and .results.capped == false
		and .results.elapsed_for_work_s == .results.wall_s
		and .results.loops_per_thread == [3, 3, 3, 3]' <<<"$output"
	# Far more work than 0.2 s holds: the cap ends it, and the whole
	# work's elapsed time comes from the rate of the part done.
	json_run itimer-threads -n 2 -w 100000000 -t 0.2 --no-check
	jq -e '.params.seconds == 0.2 and .results.capped
		and .results.wall_s < 1 and .results.loops < 200000000
		and (.results.elapsed_for_work_s * .results.loops_per_s / 200000000 - 1
			| if . < 0 then -. else . end) < 1e-9' <<<"$output"
	[[ $stderr == *"itimer-threads: capped at 0.2 s: "*" of 200000000 loops done"* ]] ||
		fail "no capped line: $stderr"
	# A timed run has neither.
	json_run itimer-threads -n 1 -t 0.05 --no-check
	jq -e '.results.capped == null and .results.elapsed_for_work_s == null
		and .params.initial_us == 10000' <<<"$output"
}

@test "itimer-threads: --initial with a long interval fires once" {
	json_run itimer-threads -n 1 -w 300000 --initial 10000 -I 10000000000
	jq -e '.params.initial_us == 10000 and .params.interval_us == 10000000000
		and (.results.prof_s < 0.01 or .results.sigprof == 1)
		and .checks.sigprof_not_excess' <<<"$output"
}

@test "sleep-loop: -T all reports every type, the metric is the first" {
	json_run sleep-loop -n 2 -i 10 -w 1 -s 50 -T all
	jq -e '(.results | keys | length) == 7
		and .params.types[0] == "select"
		and .value == .results.select.wall_us
		and ([.results[] | .wall_us, .user_us, .sys_us | type == "number"] | all)
		and .results.select.wall_us >= 50 and .checks.slept_enough' <<<"$output"
}

@test "sleep-loop: a type list keeps its order" {
	json_run sleep-loop -i 5 -T cond,none
	jq -e '.params.types == ["cond", "none"] and .value == .results.cond.wall_us' <<<"$output"
}

@test "softirq-rate: idle and busy scenarios on the real /proc/softirqs" {
	json_run softirq-rate -S idle -t 0.2
	jq -e '.metric == "timer_softirqs_per_cpu_s" and .params.scenario == "idle"
		and .results.per_busy_cpu_s == null and .results.busy_cpus == []
		and (.results.per_cpu | length) == (.results.cpus | length)' <<<"$output"
	json_run softirq-rate -S busy -t 0.2 --hz 250
	jq -e '(.results.busy_cpus | length) > 0 and .checks.monotonic' <<<"$output"
	# The host has a ksoftirqd/N per CPU (and ktimers/N where interrupts
	# are threaded from 6.13): the report names which, their wake-ups and
	# switches are counts per second, and the wake-ups are among the
	# switches.
	want=ksoftirqd/N
	grep -qsx 'ktimers/0' /proc/[0-9]*/comm && want+=+ktimers/N
	jq -e --arg want "$want" '.results.softirq_thread as $t | $t.threads == $want
		and ($t.wakeups_per_busy_cpu_s | type) == "number"
		and $t.wakeups_per_busy_cpu_s >= 0
		and $t.switches_per_busy_cpu_s >= $t.wakeups_per_busy_cpu_s
		and ($t.wakeups_per_tick * 250 - $t.wakeups_per_busy_cpu_s
			| if . < 0 then -. else . end) < 1e-9' <<<"$output" ||
		fail "softirq_thread: $(jq -c .results.softirq_thread <<<"$output")"
}

@test "softirq-rate: timers scenario wakes every kind of timer" {
	json_run softirq-rate -S timers -t 0.3 -k 3 -P 2000
	jq -e '.params.timers == 3 and .results.wheel_timer != null and ([.results.timer_wakeups[] > 0] | all)' <<<"$output"
}

@test "the default output is a short human summary" {
	run -0 "$WL_DIR/pound-clock" -c 1000
	assert_line --index 0 --regexp '^pound-clock: elapsed [0-9.e+-]+ s \(lower is better\)$'
	assert_line --partial "params: threads=2 calls=1000"
	assert_line --partial "checks: passed=true"
	run -0 "$WL_DIR/sleep-loop" -i 2 -T select,yield
	assert_line --regexp '^    yield: wall_us='
}
