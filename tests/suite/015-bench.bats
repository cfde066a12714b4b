#!/usr/bin/env bats
# abpath bench against the real module: well-formed JSON with both modes,
# counters and statistics, the ABBA order in the raw samples, and Ctrl-C
# restoring the path's mode.

load helper
load ctrl-c

setup() {
	common_setup
}

@test "bench gives well-formed JSON with both modes, counters and statistics" {
	run -0 --separate-stderr abpath bench forkexit --runs 4 -j -- -i 30
	json=$output
	run -0 jq -e '
		.path == "exit_reparent" and .workload == "forkexit"
		and (.summary.legacy.n == 4) and (.summary.optimized.n == 4)
		and (.summary.legacy.gmean_ci95 | length == 2)
		and (.summary.ratio.ci95 | length == 2) and (.summary.ratio.value > 0)
		and (.summary.mann_whitney.p >= 0 and .summary.mann_whitney.p <= 1)
		and ([.samples[] | select(.warmup | not)] | length == 8)
		and ([.samples[] | select(.mode == "legacy" and (.warmup | not))
		      | .counters.exit_reparent.tasks_scanned > 0] | all)
		and ([.samples[] | select(.mode == "optimized")
		      | .counters.exit_reparent.tasks_scanned == 0] | all)
		and ([.samples[] | .counters.exit_reparent.mismatches == 0] | all)' <<<"$json"
	# The module is left as it was.
	expect "$(active_mode exit_reparent)" = optimized "exit_reparent after the bench"
}

@test "the measured runs follow ABBA order" {
	run -0 --separate-stderr abpath bench forkexit --runs 4 -j -- -i 10
	run -0 jq -r '[.samples[] | select(.warmup | not) | .mode[0:1]] | join("")' <<<"$output"
	assert_output loollool
}

@test "Ctrl-C during a bench restores the path's original mode" {
	write_file "$SYS/exit_reparent/mode" legacy
	err=$BATS_TEST_TMPDIR/stderr
	abpath bench forkexit --runs 8 -- -N 100 -i 300 >/dev/null 2>"$err" &
	pid=$!
	# Interrupt the second warm-up run, which has the path flipped; a slow
	# (debug) kernel can take many seconds over the first one. 120 s is
	# a bound no host reaches: run 2 began 0.4-0.6 s in under TCG, host
	# loaded or not (docs/ci.md, "Time-bounded tests").
	for ((i = 0; i < 1200; i++)); do
		grep -q 'run 2 of' "$err" && [ "$(active_mode exit_reparent)" = optimized ] && break
		sleep 0.1
	done
	echo "# run 2 began after $i polls of 0.1 s" >&3
	[ "$(active_mode exit_reparent)" = optimized ] ||
		fail "the bench never flipped the path: $(cat "$err")"
	kill -INT "$pid"
	# Not "run wait": run's subshell is not the bench's parent.
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 130 ] || fail "bench exited with $status: $(cat "$err")"
	expect "$(active_mode exit_reparent)" = legacy "exit_reparent after Ctrl-C"
	# The workload's idle tasks went with it.
	sleep 0.5
	expect "$(pidof forkexit)" = "" "PIDs of forkexit left after Ctrl-C"
}

@test "bench times any command: wall time, CPU times, counters and a ratio" {
	run -0 --separate-stderr abpath bench --path exit_reparent --runs 4 -j -- \
		sh -c 'i=0; while [ $i -lt 20 ]; do sh -c :; i=$((i + 1)); done'
	json=$output
	run -0 jq -e '
		.command and .workload == "command" and .metric == "wall" and .unit == "s"
		and .complete and (.summary.legacy.n == 4) and (.summary.optimized.n == 4)
		and ([.samples[] | .value > 0 and .value == .results.wall_s
		      and .results.cpu_s > 0
		      and ((.results.cpu_s - .results.user_s - .results.sys_s) | fabs) < 1e-6]
		     | all)
		and (.summary.legacy.cpu_mean.cpu_s > 0)
		and ([.samples[] | select(.mode == "legacy")
		      | .counters.exit_reparent.calls >= 20
		        and .counters.exit_reparent.tasks_scanned > 0] | all)
		and ([.samples[] | select(.mode == "optimized")
		      | .counters.exit_reparent.calls >= 20
		        and .counters.exit_reparent.tasks_scanned == 0] | all)
		and ([.samples[] | .counters.exit_reparent.mismatches == 0] | all)
		and (.summary.ratio.value > 0) and (.summary.ratio.ci95 | length == 2)
		and (.summary.ratio.ci95[0] <= .summary.ratio.value)
		and (.summary.ratio.value <= .summary.ratio.ci95[1])' <<<"$json" ||
		fail "the command's bench JSON: $json"
	expect "$(active_mode exit_reparent)" = optimized "exit_reparent after the bench"
}

@test "a bench of many short runs reads the kernel's log around every one" {
	# Two markers a run, more than /dev/kmsg lets one open write in five
	# seconds (printk_devkmsg=ratelimit: ten): each goes through an open
	# of its own, and every one reaches the log.
	dmesg -c >/dev/null
	run -0 --separate-stderr abpath bench --path exit_reparent --runs 8 -j -- true
	refute [ -z "$output" ]
	[[ $stderr != *"the kernel's log"* ]] || fail "bench gave up the kernel's log: $stderr"
	run -0 jq -r '.provenance.kernel_log' <<<"$output"
	assert_output "read around every run"
	run -0 dmesg
	expect "$(grep -cE 'abpath: bench: run [0-9]+ of 18 \([a-z, -]+\) (begins|ends)$' <<<"$output")" -eq 36 \
		"markers of the 18 runs in the log"
}

@test "SIGINT to a bench inside a shell loop stops the loop and restores the mode" {
	write_file "$SYS/exit_reparent/mode" legacy
	ctrl_c_bench_loop abpath 1
	expect "$(active_mode exit_reparent)" = legacy "exit_reparent after Ctrl-C"
}

# plant KIND: a command for a bench of timer_fastpath that writes a
# report into the kernel's log when the path is in legacy mode (starved:
# an RCU stall with every quiescent state seen; cpu: one that names a
# stalled CPU) or in either mode (any-starved). tests/vm/run leaves lines
# with the tag to the bench.
plant() {
	local tag="(planted by the abpath tests)" when='[ "$m" = legacy ]'
	local body="echo '<3>rcu: All QSes seen, last rcu_preempt kthread activity 5248 $tag' >/dev/kmsg"
	case $1 in
	cpu) body="echo '<3>rcu: 	1-...!: (0 ticks this GP) $tag' >/dev/kmsg" ;;
	any-starved) when=true ;;
	esac
	printf '%s' "m=\$(sed -n 's/.*\[\(.*\)\].*/\1/p' $SYS/timer_fastpath/mode);
		if $when; then
			echo '<3>rcu: INFO: rcu_preempt detected stalls on CPUs/tasks: $tag' >/dev/kmsg
			$body
			echo '<4>Call Trace: $tag' >/dev/kmsg
		fi"
}

@test "a legacy run's RCU stalls with no CPU stalled are kept with the run, and said" {
	run -0 --separate-stderr abpath bench --path timer_fastpath --runs 2 --warmup 0 -j -- \
		sh -c "$(plant starved)"
	json=$output
	run -0 jq -e '
		.provenance.kernel_log == "read around every run"
		and ([.samples[] | select(.mode == "legacy")
		      | .kernel_reports.rcu_stalls_starved == 1
		        and .kernel_reports.from_s <= .kernel_reports.to_s] | all)
		and ([.samples[] | select(.mode == "optimized") | .kernel_reports == null] | all)' \
		<<<"$json" || fail "the bench JSON: $json"
	[ "$(grep -c 'reported 1 RCU stall .*kept with the run' <<<"$stderr")" -eq 2 ] ||
		fail "stderr: $stderr"
	# The span the bench kept is named in the log, for tests/vm/run.
	dmesg | grep -q 'abpath: bench: collapse reports [0-9.]*-[0-9.]*: 1 RCU stall, no CPU stalled' ||
		fail "no collapse marker in dmesg: $(dmesg | tail -5)"
}

@test "a stall in an optimized run, or one that names a CPU, fails the bench" {
	run -1 --separate-stderr abpath bench --path timer_fastpath --runs 2 --warmup 0 -j -- \
		sh -c "$(plant any-starved)"
	grep -q '(optimized): the kernel reported a problem (dmesg from [0-9.]* s): an RCU stall with no CPU stalled, outside a legacy run' <<<"$stderr" ||
		fail "stderr: $stderr"
	run -1 --separate-stderr abpath bench --path timer_fastpath --runs 2 --warmup 0 -j -- \
		sh -c "$(plant cpu)"
	grep -q '(legacy): the kernel reported a problem (dmesg from [0-9.]* s): an RCU stall naming a stalled CPU' <<<"$stderr" || fail "stderr: $stderr"
	expect "$(active_mode timer_fastpath)" = optimized "timer_fastpath after the failed benches"
}

# markers_in_5s LOG: the most of the bench's markers in LOG that lie
# within five seconds of one of them, and the seconds from the first to
# the last: "COUNT SPAN".
markers_in_5s() {
	awk '/abpath: bench: / { t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t); ts[n++] = t }
		END {
			for (i = 0; i < n; i++) {
				k = 0
				for (j = i; j < n && ts[j] - ts[i] < 5; j++) k++
				if (k > most) most = k
			}
			printf "%d %.2f\n", most, n ? ts[n - 1] - ts[0] : 0
		}' "$1"
}

@test "a burst of short runs beside a collapse's reports loses no marker, and the VM's verdict excuses the reports" {
	# The rate limit is on in this VM: through one open of /dev/kmsg,
	# twenty lines at once do not all reach the log.
	run -0 cat /proc/sys/kernel/printk_devkmsg
	assert_output ratelimit
	dmesg -c >/dev/null
	(
		exec >/dev/kmsg
		for i in $(seq 20); do echo "<5>abpath-test: one open, line $i"; done
	)
	expect "$(dmesg | grep -c 'abpath-test: one open, line')" -lt 20 "of 20 lines through one open, those in the log"
	# 16 runs of a few milliseconds, each legacy one with a collapse's
	# RCU stall: 40 markers, a span for each legacy run among them.
	dmesg -c >/dev/null
	run -0 --separate-stderr abpath bench --path timer_fastpath --runs 8 --warmup 0 -j -- \
		sh -c "$(plant starved)"
	local log=$BATS_TEST_TMPDIR/dmesg
	dmesg >"$log"
	expect "$(grep -c 'abpath: bench: run [0-9]* of 16 ([a-z]*) begins$' "$log")" -eq 16 "begin markers"
	expect "$(grep -c 'abpath: bench: run [0-9]* of 16 ([a-z]*) ends$' "$log")" -eq 16 "end markers"
	expect "$(grep -c 'abpath: bench: collapse reports [0-9.]*-[0-9.]*: 1 RCU stall, no CPU stalled, in run [0-9]* of 16 (legacy)$' "$log")" -eq 8 \
		"collapse markers"
	# More than one open may write in 5 s went through. The 40 markers
	# took 0.31-0.45 s here, host loaded or not (docs/ci.md,
	# "Time-bounded tests"): a host must be some forty times slower
	# before no 5 s hold 11 of them.
	read -r most span < <(markers_in_5s "$log")
	echo "# the 40 markers took ${span} s; at most $most within 5 s" >&3
	expect "$most" -gt 10 "markers within 5 s of one of them (the 40 took $span s), past one open's limit"
	# tests/vm/run's verdict on this log, had the reports been real: the
	# spans excuse every one; without the spans, it fails the run.
	sed 's/ (planted by the abpath tests)//' "$log" >"$log.real"
	run -0 /abpath/tests/vm/log-verdict "$log.real"
	grep -v 'abpath: bench: collapse reports' "$log.real" >"$log.unmarked"
	run -1 /abpath/tests/vm/log-verdict "$log.unmarked"
	assert_output --partial 'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
}

# Runs, with --runs 3 --warmup 0: 1 legacy, 2 and 3 optimized, 4 and 5
# legacy, 6 optimized. trip_once: a command for a bench of exit_reparent
# that in its second legacy run (run 4) gives exit_reparent a 1 us budget
# and exits until the watchdog sends the path back to optimized, as a
# legacy arm over its budget would mid-run; every run then does the same
# work. Only that run may be left out.
trip_once() {
	local dir=$BATS_TEST_TMPDIR
	cat >"$dir/trip" <<-SCRIPT
		#!/bin/sh
		m=\$(sed -n 's/.*\[\(.*\)\].*/\1/p' $SYS/exit_reparent/mode)
		if [ "\$m" = legacy ]; then
			n=\$((\$(cat $dir/legacy-runs 2>/dev/null || echo 0) + 1))
			echo \$n >$dir/legacy-runs
			if [ \$n = 2 ]; then
				echo $(per_path 0 exit_reparent 1) >$PARAM/watchdog_us
				i=0
				while grep -q '\[legacy\]' $SYS/exit_reparent/mode && [ \$i -lt 500 ]; do
					sh -c :
					i=\$((i + 1))
				done
				echo 0 >$PARAM/watchdog_us
			fi
		fi
		i=0
		while [ \$i -lt 20 ]; do sh -c :; i=\$((i + 1)); done
	SCRIPT
	chmod +x "$dir/trip"
	echo "$dir/trip"
}

@test "a run in which the watchdog reverts legacy is invalid, named, and left out of the statistics" {
	write_file "$DBG/reset" 1
	hold_warnings exit_reparent
	run -0 --separate-stderr abpath bench --path exit_reparent --runs 3 --warmup 0 -j -- "$(trip_once)"
	release_warnings
	json=$output
	run -0 cat "$PARAM/watchdog_us"
	assert_output "$(per_path 0)"
	expect "$(counter exit_reparent legacy watchdog_reverts)" -eq 1 "exit_reparent legacy watchdog_reverts after the bench"
	grep -q 'run 4 of 6 (legacy) is invalid, left out of the statistics: the watchdog sent exit_reparent back to optimized during the run' <<<"$stderr" ||
		fail "stderr: $stderr"
	# Run 4 alone is invalid, and the statistics are those of the others:
	# legacy's geometric mean is that of runs 1 and 5.
	jq -e --arg off "$(per_path 0)" '
		([.samples[] | select(.mode == "legacy" and .invalid == null) | .value | log]
		 | add / length | exp) as $g
		| .schema == "abpath-bench/3"
		and (.samples[3] | .index == 4 and .mode == "legacy"
		     and (.invalid | startswith("the watchdog sent exit_reparent back to optimized"))
		     and .counters.exit_reparent.watchdog_reverts == 1)
		and ([.samples[] | select(.index != 4) | .invalid == null
		      and .counters.exit_reparent.watchdog_reverts == 0] | all)
		and .summary.invalid_runs == [4]
		and .summary.legacy.n == 2 and .summary.optimized.n == 3
		and ((.summary.legacy.gmean - $g) | fabs) < 1e-9 * $g
		and .summary.paired.pairs == 2
		and (.summary.warnings | index("1 run was invalid and left out of the statistics (see invalid_runs)"))
		and (.provenance.module_parameters.watchdog_us == $off)
		and (.provenance | has("cpu_model") and .cpufreq_governor != null
		     and .clocksource != null)' <<<"$json" || fail "the bench JSON: $json"
	jq -r '"# run 4 invalid: \(.samples[3].invalid); legacy n=\(.summary.legacy.n) gmean \(.summary.legacy.gmean) s, optimized n=\(.summary.optimized.n) gmean \(.summary.optimized.gmean) s; \(.summary.verdict); \(.provenance.cpu_model), governor \(.provenance.cpufreq_governor), clocksource \(.provenance.clocksource)"' <<<"$json" >&3
	expect "$(active_mode exit_reparent)" = optimized "exit_reparent after the bench"
}
