#!/usr/bin/env bats
# timer_softirq: legacy raises TIMER_SOFTIRQ on every tick of a busy CPU,
# optimized only when a timer is due; timers fire on time in both modes
# and while toggling; an idle CPU's tick stays stopped.

load helper

HZ=250

setup() { counting_setup; }

# rate SCENARIO: softirq-rate's JSON for a 2-second window.
rate() {
	"$WL/softirq-rate" -S "$1" -t 2 --hz "$HZ" -j
}

# tick_rate BEFORE: legacy ticks a second per busy CPU that reached the
# hook since the count BEFORE, over the window of rate's JSON in
# $output. The count runs a moment longer than the window, so the rate
# is a little high: a stricter bar, not a looser one.
tick_rate() {
	local ticks
	ticks=$(counter timer_softirq legacy ticks)
	jq -r --argjson t "$((ticks - $1))" \
		'$t / (.results.elapsed_s * (.results.busy_cpus | length))' <<<"$output"
}

@test "legacy raises the softirq on every tick of a busy CPU; optimized almost never" {
	write_file "$SYS/timer_softirq/mode" legacy
	before=$(counter timer_softirq legacy ticks)
	run -0 rate busy
	legacy=$(jq -r '.results.per_busy_cpu_s' <<<"$output")
	tick_rate=$(tick_rate "$before")
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	expect "$(counter timer_softirq legacy raised "$BATS_TEST_TMPDIR/stats")" -eq \
		"$(counter timer_softirq legacy ticks "$BATS_TEST_TMPDIR/stats")" \
		"timer_softirq legacy raised vs ticks"

	write_file "$SYS/timer_softirq/mode" optimized
	run -0 rate busy
	optimized=$(jq -r '.results.per_busy_cpu_s' <<<"$output")
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/stats"
	suppressed=$(counter timer_softirq optimized suppressed "$BATS_TEST_TMPDIR/stats")
	ticks=$(counter timer_softirq optimized ticks "$BATS_TEST_TMPDIR/stats")

	# Under TCG a vCPU misses ticks when the host is busy, so legacy is
	# held to the ticks the hook saw in its window, not to HZ, and
	# optimized to legacy.
	awk -v l="$legacy" -v o="$optimized" -v t="$tick_rate" \
		'BEGIN { exit !(l > 0.5 * t && o < l / 4) }' ||
		fail "legacy $legacy/s (the hook saw $tick_rate ticks/s), optimized $optimized/s per busy CPU"
	[ $((suppressed * 10)) -ge $((ticks * 8)) ] ||
		fail "optimized suppressed only $suppressed of $ticks ticks"
	expect "$(counter timer_softirq legacy mismatches)" -eq 0 "timer_softirq legacy mismatches"
}

@test "where the timer softirq runs in a thread, each legacy raise wakes it; optimized hardly ever" {
	timer_softirq_threaded || skip "the timer softirq runs on irq exit here (neither PREEMPT_RT nor ktimers)"
	write_file "$SYS/timer_softirq/mode" legacy
	before=$(counter timer_softirq legacy ticks)
	run -0 rate busy
	legacy=$(jq -r '.results.softirq_thread.wakeups_per_busy_cpu_s' <<<"$output")
	tick_rate=$(tick_rate "$before")
	write_file "$SYS/timer_softirq/mode" optimized
	run -0 rate busy
	optimized=$(jq -r '.results.softirq_thread.wakeups_per_busy_cpu_s' <<<"$output")
	threads=$(jq -r '.results.softirq_thread.threads' <<<"$output")
	# A raise in hardirq wakes ksoftirqd/N (ktimers/N from 6.13), so the
	# wake-ups follow the raises: one a tick in legacy. Under TCG a vCPU
	# misses ticks when the host is busy, so legacy is held to the ticks
	# the hook saw in the window, not to HZ.
	echo "# $threads wake-ups per busy CPU: legacy $legacy/s (the hook saw $tick_rate ticks/s), optimized $optimized/s" >&3
	awk -v l="$legacy" -v o="$optimized" -v t="$tick_rate" \
		'BEGIN { exit !(l > 0.5 * t && o < l / 4) }' ||
		fail "$threads wake-ups per busy CPU: legacy $legacy/s (the hook saw $tick_rate ticks/s), optimized $optimized/s"
}

# late_stats FILE MODE KIND: "N MIN MEDIAN MAX", in us, of the lateness of
# MODE's KIND timers in FILE (lines "MODE KIND US"); the median is the
# (N/2+1)th smallest, as timers' own.
late_stats() {
	awk -v m="$2" -v k="$3" '$1 == m && $2 == k { print $3 }' "$1" | sort -n |
		awk '{ v[NR] = $1 } END { print NR, v[1], v[int(NR / 2) + 1], v[NR] }'
}

# How late legacy's and toggling's timers may be, against optimized's in
# the same boot: each kind's median at most LATE_K times optimized's,
# taken as a tick if it was less, plus LATE_TICKS ticks; 20 ms at the
# least, the fixed bound this replaced. A tick is the wheel's grain: on
# the tick's clock its median reads 0, 1 or 2 ticks by where in a tick
# the run began. Chosen from the three rounds repeated 68 times in 8
# boots (the patched 6.12 and Debian's; host idle, beside stress-ng
# --cpu 2 at nice 19, and at nice 0) and 6 runs of this test (docs/ci.md,
# "Time-bounded tests"): the highest median was 0.10 of its bound for
# the hrtimers (nanosleep while toggling, 1.96 ms against optimized's
# 0.20 ms) and 0.40 for the wheel (2 ticks against 1). A host three
# times slower makes the hrtimers' lateness three times larger, 0.30 of
# the bound; the wheel's moves by whole ticks, and 5 pass where 2 were
# the most seen.
LATE_K=2 LATE_TICKS=3

@test "timers fire on time, none early, in both modes and while toggling" {
	# hrtimers and wheel timers (the ones TIMER_SOFTIRQ runs). Whatever
	# the host, each must fire, none before its expiry, and none more
	# than 2 s after it (timers' own checks): a suppressed raise leaves
	# wheel timers unfired, and 2 s is twenty times the latest timer a
	# loaded TCG host has shown (110 ms, docs/ci.md).
	#
	# How late they are is the host's as much as the hook's: under TCG a
	# host that holds back a vCPU thread makes timers tens of ms late (a
	# fixed 20 ms bound on the median failed a cold CI run on a slow
	# machine, at 20.8 ms while toggling), and a slower host makes every
	# timer later. So the modes are compared with each other in one
	# boot: three rounds of optimized, legacy and toggling one after
	# the other, so that the host's load of the moment falls on each
	# mode alike, and each kind's median over its 24 timers in legacy
	# and toggling against optimized's. Optimized is the kernel's own
	# code (the hook only counts), so it is the yardstick.
	#
	# The wheel timers are compared on the tick's clock (wheel-tick,
	# CLOCK_MONOTONIC_COARSE): all 8 of a run share one expiry jiffy, and
	# jiffies lag or catch up with CLOCK_MONOTONIC by whole ticks under
	# TCG (timers.c), so by CLOCK_MONOTONIC a run's 8 were -9 to +25 ms
	# late together, on an idle host as on a loaded one; on the tick's
	# clock every median was 0 to 2 ticks. What the hook can do to them,
	# a softirq raised late or not at all, shows on that clock as ticks.
	local late=$BATS_TEST_TMPDIR/late round mode rc kind tick=$((1000000 / HZ))
	local n min med max omin omed omax bound line over=
	for round in 1 2 3; do
		for mode in optimized legacy toggling; do
			if [ "$mode" = toggling ]; then
				start_toggler timer_softirq
			else
				write_file "$SYS/timer_softirq/mode" "$mode"
			fi
			rc=0
			run_or_say "path timer_softirq, mode $mode, round $round" \
				"$T/timers" fire -t all --tick-us "$tick" -l || rc=$?
			stop_toggler
			[ "$rc" -eq 0 ] || return "$rc"
			awk -v m="$mode" '$1 == "late" { for (i = 3; i <= NF; i++) print m, $2, $i }' \
				<<<"$output" >>"$late"
		done
	done
	for mode in legacy optimized; do
		expect "$(counter timer_softirq $mode mismatches)" -eq 0 \
			"timer_softirq $mode mismatches after the optimized, legacy and toggling runs"
	done
	for kind in timerfd nanosleep itimer wheel-tick wheel; do
		read -r n omin omed omax < <(late_stats "$late" optimized "$kind")
		bound=$((LATE_K * (omed > tick ? omed : tick) + LATE_TICKS * tick))
		line="$kind, $n timers a mode: optimized $omin/$omed/$omax"
		for mode in legacy toggling; do
			read -r n min med max < <(late_stats "$late" "$mode" "$kind")
			line+=", $mode $min/$med/$max"
			# The wheel's by CLOCK_MONOTONIC: shown, not judged (above).
			[ "$kind" = wheel ] || [ "$med" -le "$bound" ] ||
				over+="$kind: $mode's median $med us late, over $LATE_K x optimized's $omed us (a tick at least) + $LATE_TICKS ticks = $bound us"$'\n'
		done
		if [ "$kind" = wheel ]; then
			echo "# $line us late (min/median/max) by CLOCK_MONOTONIC, not judged" >&3
		else
			echo "# $line us late (min/median/max); median bound $bound us" >&3
		fi
	done
	if [ -n "$over" ]; then
		{
			printf '%s' "$over"
			echo "every timer's lateness (us), by mode and kind, the three rounds in order:"
			awk '{ k = $1 " " $2; if (!(k in v)) o[n++] = k; v[k] = v[k] " " $3 }
				END { for (i = 0; i < n; i++) print "  " o[i] ":" v[o[i]] }' "$late"
		} >&2
		return 1
	fi
}

@test "an idle CPU's tick stays stopped in both modes (in optimized only, where the timer softirq runs in a thread)" {
	for m in optimized legacy; do
		write_file "$SYS/timer_softirq/mode" "$m"
		run -0 rate idle
		# The CPU running this test wakes; the quietest one must not tick.
		min=$(jq -r '[.results.per_cpu[]] | min' <<<"$output")
		# On RT, legacy's raise on an idle CPU's tick wakes ksoftirqd
		# (ktimers from 6.13, also with threadirqs) out of the idle
		# loop, and the tick no longer stops: measured, the quietest CPU
		# then ticks at HZ (249.7/s on 6.12-rt, 249.9/s on 7.3 with
		# threadirqs). One raise per tick is the bound; more would mean
		# the raises make ticks.
		limit=0.2
		if timer_softirq_threaded && [ "$m" = legacy ]; then limit=1.05; fi
		echo "# $m: the quietest CPU took $min TIMER softirqs/s" >&3
		awk -v r="$min" -v l="$limit" 'BEGIN { exit !(r < l * 250) }' ||
			fail "$m: the quietest CPU took $min TIMER softirqs/s, over $limit x HZ"
	done
}
