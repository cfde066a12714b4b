#!/usr/bin/env bats
# Usage errors exit 2 with the usage on stderr; --help always exits 0.

load cli-helper

setup() {
	cli_setup
}

@test "no command is a usage error" {
	assert_usage_error
}

@test "unknown commands and global options are usage errors" {
	assert_usage_error bogus
	assert_usage_error --bogus
	assert_usage_error -x
	assert_usage_error -j
	assert_usage_error s
	assert_usage_error ''
}

@test "an ambiguous prefix names the candidates" {
	assert_usage_error st
	[[ $stderr == *"status, stats"* ]]
}

@test "every command rejects unknown options and stray operands" {
	local c
	for c in "${CLI_COMMANDS[@]}"; do
		assert_usage_error "$c" --bogus
		assert_usage_error "$c" -Z
	done
	for c in status load unload stats reset workloads; do
		assert_usage_error "$c" extra
	done
	assert_usage_error help status extra
	assert_usage_error help bogus
}

@test "set needs a known PATH and MODE" {
	assert_usage_error set
	assert_usage_error set all
	assert_usage_error set all legacy extra
	assert_usage_error set all fast
	assert_usage_error set all LEGACY
	assert_usage_error set nosuchpath legacy
}

@test "set lists the valid paths for an unknown one" {
	assert_usage_error set nosuchpath legacy
	local p
	for p in "${CLI_PATHS[@]}" all; do
		[[ $stderr == *"$p"* ]] || fail "'$p' not listed: $stderr"
	done
}

@test "load checks --mode" {
	assert_usage_error load --mode
	assert_usage_error load --mode fast
	assert_usage_error load -m ''
}

@test "stats checks --watch" {
	local sec
	for sec in '' 0 -1 abc 1x 0.001 nan inf 1e9; do
		assert_usage_error stats --watch "$sec"
	done
	assert_usage_error stats --watch
}

@test "-j is refused where there is no JSON output" {
	local c
	for c in load unload reset help; do
		assert_usage_error -j "$c"
		assert_usage_error "$c" -j
	done
	assert_usage_error -j set all legacy
	assert_usage_error set -j all legacy
}

@test "usage errors leave the fake sysfs alone" {
	fake_module
	assert_usage_error set all fast
	assert_usage_error set all legacy extra
	run -0 cat "$ABPATH_SYSFS/mode"
	assert_output optimized
}

@test "abpath --help, -h and help print the command list" {
	local how
	for how in --help -h help; do
		run -0 --separate-stderr "$ABPATH" $how
		assert_line --index 0 --partial 'Usage: abpath'
		assert_line 'Commands:'
		[[ -z $stderr ]] || fail "abpath $how wrote to stderr: $stderr"
	done
}

@test "every command has --help, -h and help COMMAND" {
	local c
	for c in "${CLI_COMMANDS[@]}"; do
		run -0 --separate-stderr "$ABPATH" "$c" --help
		assert_line --index 0 --regexp "^Usage: abpath $c( |\$)"
		[[ -z $stderr ]] || fail "abpath $c --help wrote to stderr"
		local long=$output
		run -0 "$ABPATH" "$c" -h
		assert_equal "$output" "$long"
		run -0 "$ABPATH" help "$c"
		assert_equal "$output" "$long"
	done
}

@test "--help wins over bad operands" {
	run -0 "$ABPATH" set bogus --help
	assert_line --index 0 --partial 'Usage: abpath set'
}

@test "--version" {
	run -0 "$ABPATH" --version
	assert_output --regexp '^abpath [0-9]+\.[0-9]+\.[0-9]+'
	run -0 "$ABPATH" -V
	assert_output --regexp '^abpath [0-9]'
}

@test "unique prefixes select a command" {
	run -0 "$ABPATH" wor --help
	assert_line --index 0 'Usage: abpath workloads [-j]'
}
