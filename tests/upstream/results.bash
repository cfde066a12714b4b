# shellcheck shell=bash
# Reading upstream's selftests' output (tests/upstream/run sources it;
# tests/host/upstream-001-results.bats feeds it upstream's own lines).

# glued_result LINE: LINE, or the TAP result that ends it after text of
# the test's own that ends in neither a letter nor a space (so "... is
# not ok 3" in a description is left alone). The text is not
# "#"-prefixed, a harness' nested output, except for a "not ok" after
# ksft_print_msg()'s "# " and a message without its newline
# (nsleep-lat's "# Large rel latency: N ns :not ok 1 CLOCK_REALTIME").
glued_result() {
	if [[ ! $1 =~ ^(not\ )?ok\ [0-9]+ ]] &&
		{ [[ $1 =~ ^[^#]*[^#[:alpha:][:space:]](not\ ok\ [0-9]+.*)$ ]] ||
		  [[ $1 =~ ^[^#]*[^#[:alpha:][:space:]](ok\ [0-9]+.*)$ ]] ||
		  [[ $1 =~ ^#\ [^#]*[^#[:alpha:][:space:]](not\ ok\ [0-9]+.*)$ ]]; }; then
		echo "${BASH_REMATCH[1]}"
	else
		echo "$1"
	fi
}

# Upstream's time bounds, told apart from what the kernel did.
#
# Four of the timers selftests judge wall-clock time against a fixed
# bound: nsleep-lat, set-timer-lat and mqueue-lat hold a wake-up to
# 40 ms, posix_timers holds an itimer of 2 s to within 0.5 s of wall
# time. Under TCG a vCPU thread the host holds back makes a timer late
# in any mode, and the bound then measures the host, not the path: 008
# saw one timer 110 ms late beside a niced stress-ng. So the runner
# reports a miss of such a bound with its figure and does not judge it
# (docs/ci.md, "Time-bounded tests"); 008 and cyclictest compare
# lateness within one boot instead. Everything else those tests check
# is still judged: a timer that fires early, a wrong signal count, an
# itimer that fires well before its time, a failed syscall.
#
# late_miss TEST TEXT: TEXT is what the binary printed since its last
# TAP result (the lines before a "not ok", or the text glued in front of
# it). Prints the miss ("12.3 ms late, upstream's bound 40 ms") and
# returns 0 when that failure is a late miss of the time bound alone;
# returns 1 otherwise.
late_miss() {
	local t=$1 text=$2 v
	case $t in
	timers/nsleep-lat)
		# "Large rel latency: N ns :" / "Large abs latency: N ns :"
		[[ $text =~ Large\ (rel|abs)\ latency:\ *(-?[0-9]+)\ ns ]] || return 1
		v=${BASH_REMATCH[2]}
		[ "$v" -gt 40000000 ] || return 1
		printf '%s ms late on average (%s), upstream'\''s bound 40 ms\n' \
			"$(awk -v v="$v" 'BEGIN { printf "%.1f", v / 1e6 }')" "${BASH_REMATCH[1]}"
		;;
	timers/posix_timers)
		# "Diff too high: N.." in us, for a 2 s timer: late only when
		# N is above 2.5 s; below 1.5 s it fired early, which is a bug.
		[[ $text =~ Diff\ too\ high:\ *(-?[0-9]+) ]] || return 1
		v=${BASH_REMATCH[1]}
		[ "$v" -gt 2500000 ] || return 1
		printf 'fired after %s s of wall time for 2 s, upstream'\''s bound 0.5 s\n' \
			"$(awk -v v="$v" 'BEGIN { printf "%.3f", v / 1e6 }')"
		;;
	*) return 1 ;;
	esac
}

# own_error TEST LOG: returns 0 when LOG holds an error the binary
# printed of its own (a failed call), which no time bound explains:
# set-timer-lat's "... failed", mqueue-lat's perror() "mq_...: reason".
own_error() {
	case $1 in
	timers/set-timer-lat) grep -q 'failed$' "$2" ;;
	timers/mqueue-lat) grep -q '^mq_[a-z]*:' "$2" ;;
	*) return 1 ;;
	esac
}

# bracket_checks LOG: the checks that set-timer-lat and mqueue-lat print
# as "[OK]" or "[FAILED]" rather than TAP, one per line, as "NAME<TAB>OK"
# or "NAME<TAB>FAILED", NAME without its figure and its spaces squeezed
# ("CLOCK_REALTIME ABSTIME PERIODIC max latency", "Mqueue latency").
bracket_checks() {
	sed -n -E 's/^(CLOCK_[A-Z_]+ +[A-Z]+ +[A-Z-]+ +[a-z ]*[a-z]): .*\[(OK|FAILED)\]$/\1\t\2/p
		s/^(Mqueue latency) *: .*\[(OK|FAILED)\]$/\1\t\2/p' "$1" | tr -s ' '
}

# late_only TEST LOG: for the tests that print "[OK]"/"[FAILED]" rather
# than TAP (set-timer-lat and mqueue-lat in 6.12) and exit 1: prints the
# misses, "; "-joined, and returns 0 when every [FAILED] line is a miss
# of the latency bound and the test printed no error of its own.
late_only() {
	local t=$1 log=$2 line misses=() n=0
	case $t in
	timers/set-timer-lat)
		while IFS= read -r line; do
			n=$((n + 1))
			# "CLOCK_X ABSTIME PERIODIC max latency: N ns : [FAILED]"
			[[ $line =~ ^(CLOCK_[A-Z_]+\ +[A-Z]+\ +[A-Z-]+)\ +max\ latency:\ *([0-9]+)\ ns ]] || return 1
			misses+=("$(echo "${BASH_REMATCH[1]}" | tr -s ' ') $(awk -v v="${BASH_REMATCH[2]}" \
				'BEGIN { printf "%.1f", v / 1e6 }') ms")
		done < <(grep -F '[FAILED]' "$log")
		;;
	timers/mqueue-lat)
		# One average over 100 timeouts of 100 ms.
		while IFS= read -r line; do
			n=$((n + 1))
			[[ $line =~ ^Mqueue\ latency\ *:\ *\[FAILED\] ]] || return 1
			misses+=("the average timeout over 140 ms")
		done < <(grep -F '[FAILED]' "$log")
		;;
	*) return 1 ;;
	esac
	! own_error "$t" "$log" || return 1
	[ "$n" -gt 0 ] || return 1
	printf '%s' "${misses[0]}"
	[ "$n" -eq 1 ] || printf '; %s' "${misses[@]:1}"
	printf ', upstream'\''s bound 40 ms\n'
}
