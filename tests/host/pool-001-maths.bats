#!/usr/bin/env bats
# The maths of pooling bench results over hosts (#41, userspace/bench/pool.c):
# its unit tests, its fixture fleets, a cross-check with statsmodels, and
# the coverage of its interval by simulation.  make check-full
# (ABPATH_FULL=1) runs the full simulation, 10,000 sets a cell.

load ../suite/last-run

TOP=$BATS_TEST_DIRNAME/../..
FIXTURES=$BATS_TEST_DIRNAME/fixtures/pool

setup() {
	nice -n 19 make -s -C "$TOP/userspace" bench/test-pool >&2
}

# pool.c's results for fixture $1 under the default scale, as JSON.
pooled() {
	"$TOP/userspace/bench/test-pool" "$FIXTURES/$1" | jq -c 'select(.scale == "welch-floor")'
}

@test "make -C userspace test-pool: pool.c's unit tests pass" {
	run -0 make -s -C "$TOP/userspace" test-pool
	assert_line --regexp '^1\.\.[0-9]+$'
	refute_line --regexp '^not ok'
	assert_line --partial 'v is the square of the Welch interval'
	assert_line --partial 'the host at 0.2 among six at 0.7 is the one outlier'
	assert_line --partial 'agreeing hosts, 5 df each: the floor on t(5)'
}

@test "the fixture fleets are what they are named for" {
	local f
	for f in k2 k3 k10; do
		run -0 pooled "$f.txt"
		assert_equal "$(jq .k <<<"$output")" "${f#k}"
	done
	run -0 pooled k3.txt
	assert_equal "$(jq '.tau2 > 0 and .i2 > 0' <<<"$output")" true
	# Q < k - 1: DerSimonian-Laird's tau^2 truncated at 0, and I^2 too.
	run -0 pooled homogeneous.txt
	assert_equal "$(jq '.q < .k - 1 and .tau2 == 0 and .i2 == 0' <<<"$output")" true
	# Hosts on both sides of ratio 1: the sign test sees no direction.
	run -0 pooled k10.txt
	assert_equal "$(jq -c '[.above, .below, .sign_p]' <<<"$output")" '[5,5,1]'
	# The one host whose true ratio is 1.2 among 1.8s, and no other.
	run -0 pooled outlier8.txt
	assert_equal "$(jq -c '[.hosts[] | select(.outlier) | .name]' <<<"$output")" '["host05"]'
}

@test "pool.c agrees with statsmodels to 1e-6 on every fixture and scale" {
	# Debian's statsmodels, in Debian's python (tests/deps.sh host).
	/usr/bin/python3 -c 'import statsmodels.stats.meta_analysis' 2>/dev/null ||
		skip "python3-statsmodels is not installed"
	run -0 /usr/bin/python3 "$TOP/tests/tools/pool-check.py"
	assert_line 'PASS'
	assert_line --regexp '^  tau2 +max \|diff\|'
	assert_line --regexp '^  loo_lo +max \|diff\|'
	refute_line --partial MISMATCH
}

@test "the pooled interval covers 93% to 99% at 3, 5 and 10 hosts, tau 0 to 2 SE" {
	local opts=()
	# 2,000 sets a cell: each bound loosened by three binomial sds.
	[[ ${ABPATH_FULL:-0} == 1 ]] || opts+=(--sets 2000 --min 0.915 --max 0.997)
	run -0 "$TOP/tests/tools/pool-coverage" "${opts[@]}"
	assert_line --regexp '^PASS: 0 of 12 cells outside .* \(welch-floor\)$'
	assert_equal "$(grep -cE '^(3|5|10) ' <<<"$output")" 12
}
