#!/bin/sh
# A stand-in for an abpath workload in a factorial bench, for
# tests/host/cli-bench-011-factorial.bats: on the fake tree of
# cli-helper.bash no kernel switches anything, so it makes the effects
# itself, from every path's mode file.
#
# Its value is 1, times F for each path P=F of $FAKE_EFFECTS that is in
# legacy, times G for each pair P,Q=G of $FAKE_INTERACTIONS whose paths
# are both in legacy, times exp(FAKE_NOISE * z), z a standard normal
# drawn from the call number and $FAKE_SEED (awk's srand), so that each
# call differs and a rerun repeats it.  Each run adds 100 to the calls
# counter of the mode each path is in, as the module would.
#
#   --switch-at N P  in the Nth call, switch path P to the other mode, as
#                    someone else could during a run
#   --zero-at N      in the Nth call, report a value of 0
set -u
json=0 switchat=0 switchpath= zeroat=0
while [ $# -gt 0 ]; do
	case $1 in
	-j) json=1 ;;
	--switch-at) switchat=$2 switchpath=$3; shift 2 ;;
	--zero-at) zeroat=$2; shift ;;
	*) echo "fake: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
state=$ABPATH_DEBUGFS/..
n=$(($(cat "$state/fake.calls" 2>/dev/null || echo 0) + 1))
echo $n >"$state/fake.calls"
for p in "$ABPATH_SYSFS"/*/; do
	p=$(basename "$p")
	read -r m <"$ABPATH_SYSFS/$p/mode"
	case $m in
	*'[legacy]'*) echo "$p legacy" ;;
	*'[optimized]'*) echo "$p optimized" ;;
	*) echo "$p $m" ;;
	esac
done >"$state/fake.modes"
if [ "$n" = "$switchat" ]; then
	case $(awk -v p="$switchpath" '$1 == p { print $2 }' "$state/fake.modes") in
	legacy) echo 'legacy [optimized]' ;;
	*) echo '[legacy] optimized' ;;
	esac >"$ABPATH_SYSFS/$switchpath/mode"
fi
awk 'NR == FNR { mode[$1] = $2; next }
	mode[$1] == $2 && $3 == "calls" { $4 += 100 }
	{ print }' "$state/fake.modes" "$ABPATH_DEBUGFS/stats" >"$ABPATH_DEBUGFS/stats.new"
mv "$ABPATH_DEBUGFS/stats.new" "$ABPATH_DEBUGFS/stats"
value=$(awk -v n="$n" -v seed="${FAKE_SEED:-1}" -v noise="${FAKE_NOISE:-0.02}" \
	-v eff="${FAKE_EFFECTS:-}" -v inter="${FAKE_INTERACTIONS:-}" \
	-v zero=$([ "$n" = "$zeroat" ] && echo 1 || echo 0) '
	{ mode[$1] = $2 }
	END {
		v = 1
		ne = split(eff, e, ",")
		for (i = 1; i <= ne; i++) {
			split(e[i], kv, "=")
			if (mode[kv[1]] == "legacy") v *= kv[2]
		}
		ni = split(inter, x, ";")
		for (i = 1; i <= ni; i++) {
			split(x[i], kv, "=")
			split(kv[1], pq, ",")
			if (mode[pq[1]] == "legacy" && mode[pq[2]] == "legacy") v *= kv[2]
		}
		srand(seed * 100003 + n)
		z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
		v *= exp(noise * z)
		printf "%.9f", zero ? 0 : v
	}' "$state/fake.modes")
if [ "$json" = 1 ]; then
	printf '{"workload":"%s","metric":"fake_latency","value":%s,"unit":"us","lower_is_better":true,' \
		"$(basename "$0")" "$value"
	printf '"params":{},"results":{"call":%d},"checks":{"passed":true}}\n' "$n"
else
	echo "value=$value"
fi
