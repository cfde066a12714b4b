#!/usr/bin/env bats
# The statistics behind abpath bench, by their C unit tests
# (userspace/bench/test-statistics.c, checked against scipy's values).

load ../suite/last-run

@test "make -C userspace test: the statistics unit tests pass" {
	run -0 make -s -C "$BATS_TEST_DIRNAME/../../userspace" test
	# TAP from the test program: a plan, and no failure.
	assert_line --regexp '^1\.\.[0-9]+$'
	refute_line --regexp '^not ok'
	# #18: the interval covers at 4 runs per mode (by simulation), and
	# the rank test is exact with ties.
	assert_line --regexp '^ok [0-9]+ - coverage, Welch ratio, 4 runs per mode, spread 0\.20/0\.20: 0\.9[4-9]'
	assert_line --partial "exact with ties, #18's 6 vs 6: p: got 0.05844155844155844"
	assert_line --partial '3 vs 3: no split can reach p < 0.05'
}
