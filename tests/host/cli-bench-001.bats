#!/usr/bin/env bats
# The statistics behind abpath bench, by their C unit tests
# (userspace/test-statistics.c, checked against scipy's values).

bats_require_minimum_version 1.5.0
load '/usr/lib/bats/bats-support/load'
load '/usr/lib/bats/bats-assert/load'

@test "make -C userspace test: the statistics unit tests pass" {
	run -0 make -s -C "$BATS_TEST_DIRNAME/../../userspace" test
	# TAP from the test program: a plan, and no failure.
	assert_line --regexp '^1\.\.[0-9]+$'
	refute_line --regexp '^not ok'
	assert_line --partial 'bootstrap: exact low end for the fixed seed'
	assert_line --partial 'exact at the limit, 10 vs 10: p'
}
