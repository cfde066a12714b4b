#!/usr/bin/env bats
# abpath workloads lists the executables of the workload directory.

load cli-helper

setup() {
	cli_setup
	mkdir -p "$ABPATH_WORKLOAD_DIR/subdir"
	local w
	for w in pound-times forkexit softirq-rate; do
		printf '#!/bin/sh\n' >"$ABPATH_WORKLOAD_DIR/$w"
		chmod 0755 "$ABPATH_WORKLOAD_DIR/$w"
	done
	echo 'not a workload' >"$ABPATH_WORKLOAD_DIR/README"
	printf '#!/bin/sh\n' >"$ABPATH_WORKLOAD_DIR/.hidden"
	chmod 0755 "$ABPATH_WORKLOAD_DIR/.hidden"
}

@test "workloads lists the executables, sorted" {
	run -0 "$ABPATH" workloads
	assert_line "directory: $ABPATH_WORKLOAD_DIR"
	assert_line '  forkexit'
	refute_line --partial README
	refute_line --partial subdir
	refute_line --partial hidden
}

@test "workloads -j parses and names only the executables" {
	run -0 "$ABPATH" workloads -j
	run -0 jq -r '.workloads | join(" ")' <<<"$output"
	assert_output 'forkexit pound-times softirq-rate'
	run -0 "$ABPATH" -j workloads
	run -0 jq -e --arg d "$ABPATH_WORKLOAD_DIR" '.directory == $d' <<<"$output"
}

@test "workloads with a missing directory says so and exits 1" {
	ABPATH_WORKLOAD_DIR=$BATS_TEST_TMPDIR/none run -1 --separate-stderr "$ABPATH" workloads
	assert_equal "$output" ''
	[[ $stderr == "abpath: error: workload directory $BATS_TEST_TMPDIR/none does not exist"*ABPATH_WORKLOAD_DIR* ]]
}

@test "workloads defaults to the compiled-in directory" {
	unset ABPATH_WORKLOAD_DIR
	run "$ABPATH" workloads --help
	assert_output --partial '/libexec/abpath'
}
