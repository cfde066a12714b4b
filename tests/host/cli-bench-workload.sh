#!/bin/sh
# A stand-in for an abpath workload, for tests/host/cli-bench-*.bats: it
# runs against the fake sysfs/debugfs tree of cli-helper.bash, where no
# kernel switches anything, so it makes the difference itself.
#
# Its value is 2 (legacy) or 1 (optimized), times 1 plus a jitter that
# sums to zero over a mode's 6 measured runs (after 1 warm-up), read from
# the mode file of $FAKE_PATH (default exit_reparent).  Each run adds to
# the fake debugfs counters of the mode each path is in, as the module
# would: calls += 100, ns_total += 50000 or 20000, ns_max = 900 or 300.
#
#   --scale F      multiply the value by F
#   --sleep S      sleep S seconds first; on SIGTERM/SIGINT kill the sleep,
#                  leave a "fake.terminated" file and exit 143
#   --fail         fail (stderr, exit 1); --fail-at N: fail in the Nth call
#   --bad-check    report checks.passed false, yet exit 0
#   --reset-ns     zero ns_total of the mode that ran (a counter reset)
#   --revert       in a legacy run, count a watchdog revert of that path
#   --revert-at N  the same in the Nth call only
#   --mismatch-at N  in the Nth call, count a mismatch of that path
#   --switch-at N  in the Nth call, switch that path to the other mode,
#                  as someone else could during a run
#   --higher       a throughput: unit ops/s, higher is better
#   --ratio R      legacy's value is R, not 2 (1: an A/A bench)
set -u
json=0 scale=1 nap=0 fail=0 badcheck=0 failat=0 resetns=0 revert=0
revertat=0 mismatchat=0 switchat=0
unit=us lower=true ratio=2
while [ $# -gt 0 ]; do
	case $1 in
	-j) json=1 ;;
	--scale) scale=$2; shift ;;
	--sleep) nap=$2; shift ;;
	--fail) fail=1 ;;
	--fail-at) failat=$2; shift ;;
	--bad-check) badcheck=1 ;;
	--reset-ns) resetns=1 ;;
	--revert) revert=1 ;;
	--revert-at) revertat=$2; shift ;;
	--mismatch-at) mismatchat=$2; shift ;;
	--switch-at) switchat=$2; shift ;;
	--higher) unit=ops/s lower=false ;;
	--ratio) ratio=$2; shift ;;
	*) echo "fake: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
state=$ABPATH_DEBUGFS/..
mode_of() {
	read -r m <"$ABPATH_SYSFS/$1/mode"
	case $m in
	*'[legacy]'*) echo legacy ;;
	*'[optimized]'*) echo optimized ;;
	*) echo "$m" ;;
	esac
}
n=$(($(cat "$state/fake.calls" 2>/dev/null || echo 0) + 1))
echo $n >"$state/fake.calls"
mode=$(mode_of "${FAKE_PATH:-exit_reparent}")
k=$(cat "$state/fake.$mode" 2>/dev/null || echo 0)
echo $((k + 1)) >"$state/fake.$mode"
if [ "$nap" != 0 ]; then
	trap 'kill $! 2>/dev/null; echo "fake: terminated" >"$state/fake.terminated"; exit 143' TERM INT
	sleep "$nap" &
	wait $!
fi
if [ "$fail" = 1 ] || [ "$n" = "$failat" ]; then
	echo "fake: error: simulated failure in call $n" >&2
	exit 1
fi
[ "$n" = "$revertat" ] && revert=1
mismatch=0
[ "$n" = "$mismatchat" ] && mismatch=1
if [ "$n" = "$switchat" ]; then
	case $mode in
	legacy) echo 'legacy [optimized]' ;;
	*) echo '[legacy] optimized' ;;
	esac >"$ABPATH_SYSFS/${FAKE_PATH:-exit_reparent}/mode"
fi
# Counters: every path's current mode gets one run's worth.
for p in "$ABPATH_SYSFS"/*/; do
	p=$(basename "$p")
	echo "$p $(mode_of $p)"
done >"$state/fake.modes"
awk -v reset="$resetns" -v revert="$revert" -v mismatch="$mismatch" \
	-v path="${FAKE_PATH:-exit_reparent}" 'NR == FNR { mode[$1] = $2; next }
	revert && mode[$1] == $2 && $2 == "legacy" && $3 == "watchdog_reverts" { $4 += 1 }
	mismatch && $1 == path && mode[$1] == $2 && $3 == "mismatches" { $4 += 1 }
	mode[$1] == $2 && $3 == "calls" { $4 += 100 }
	mode[$1] == $2 && $3 == "ns_total" {
		$4 = reset ? 0 : $4 + ($2 == "legacy" ? 50000 : 20000) }
	mode[$1] == $2 && $3 == "ns_max" { $4 = ($2 == "legacy" ? 900 : 300) }
	{ print }' "$state/fake.modes" "$ABPATH_DEBUGFS/stats" >"$ABPATH_DEBUGFS/stats.new"
mv "$ABPATH_DEBUGFS/stats.new" "$ABPATH_DEBUGFS/stats"
value=$(awk -v k="$k" -v m="$mode" -v s="$scale" -v r="$ratio" 'BEGIN {
	split("0 -0.03 0.03 -0.01 0.01 -0.02 0.02", j, " ")
	printf "%.6f", (m == "legacy" ? r : 1) * s * (1 + j[k % 7 + 1]) }')
passed=true
[ "$badcheck" = 1 ] && passed=false
if [ "$json" = 1 ]; then
	printf '{"workload":"%s","metric":"fake_latency","value":%s,"unit":"%s","lower_is_better":%s,' \
		"$(basename "$0")" "$value" "$unit" "$lower"
	printf '"params":{"scale":%s},"results":{"mode_seen":"%s","call":%d},' "$scale" "$mode" "$n"
	printf '"checks":{"passed":%s,"fake":%s}}\n' "$passed" "$passed"
else
	echo "value=$value"
fi
