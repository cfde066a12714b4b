#!/bin/bash
# The module's own cost: the same workload with abpath loaded (every path
# optimized, so only the hook dispatch and the counters run) and with it
# unloaded (every site a NOP), interleaved loaded/unloaded ABBA.
#
#   overhead.sh RUNS WORKLOAD [ARGS...]   -> /results/overhead-WORKLOAD.json
#
# OVERHEAD_PARAMS adds module parameters to the loaded runs (for example
# sample_shift=20, to leave out the timed calls' cost), and OVERHEAD_TAG a
# suffix to the result's name.
set -e
runs=$1 wl=$2
shift 2
WL=/usr/local/libexec/abpath
out=/results/overhead-$wl${OVERHEAD_TAG:+-$OVERHEAD_TAG}.json
order=()
for ((i = 0; i < runs; i += 2)); do
	if ((i / 2 % 2 == 0)); then order+=(loaded unloaded); else order+=(unloaded loaded); fi
done
"$WL/$wl" "$@" -j >/dev/null # warm-up
echo '[]' >"$out"
k=0
for state in "${order[@]}"; do
	k=$((k + 1))
	if [ "$state" = loaded ]; then modprobe abpath mode=optimized $OVERHEAD_PARAMS; else modprobe -r abpath 2>/dev/null || true; fi
	echo "overhead: $wl run $k of ${#order[@]} ($state)" >&2
	v=$("$WL/$wl" "$@" -j | jq .value)
	jq --arg s "$state" --argjson v "$v" --argjson k "$k" '. + [{index: $k, state: $s, value: $v}]' "$out" >"$out.tmp"
	mv "$out.tmp" "$out"
done
modprobe -r abpath
