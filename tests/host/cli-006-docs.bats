#!/usr/bin/env bats
# The man page, --help and the bash completion describe the same commands.

load cli-helper

MAN=$BATS_TEST_DIRNAME/../../userspace/abpath.1
COMPLETION=$BATS_TEST_DIRNAME/../../userspace/abpath.bash-completion

setup() {
	cli_setup
}

help_commands() {
	"$ABPATH" --help | awk '/^Commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1; next } on { exit }'
}

# Every ".TP" item of the COMMANDS section starts with ".B name".
man_commands() {
	awk '/^\.SH / { on = ($2 == "COMMANDS"); next }
		on && tp && /^\.B / { print $2 } { tp = /^\.TP/ }' "$MAN"
}

@test "--help lists the expected commands" {
	run -0 help_commands
	assert_output "$(printf '%s\n' "${CLI_COMMANDS[@]}")"
}

@test "the man page and --help name the same commands" {
	run -0 man_commands
	assert_output "$(help_commands)"
}

@test "the man page documents every option of every command" {
	local c opt
	for c in "${CLI_COMMANDS[@]}"; do
		for opt in $("$ABPATH" "$c" --help | grep -o -- '--[a-z]\+'); do
			grep -q -- "\\\\-\\\\-${opt#--}" "$MAN" ||
				fail "$c: $opt missing from abpath.1"
		done
	done
}

@test "the man page formats without warnings" {
	command -v man >/dev/null || skip "man not installed"
	run -0 --separate-stderr env MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$MAN"
	assert_equal "$stderr" ''
	assert_line --partial 'abpath - switch kernel paths'
}

@test "bash completion offers the commands, paths and modes" {
	# The paths come from "abpath paths": the binary under test.
	run -0 env PATH="$(dirname "$ABPATH"):$PATH" bash -c '
		source "$1"
		complete_line() {
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=(); _abpath; echo "${COMPREPLY[*]}"
		}
		complete_line abpath ""
		complete_line abpath set ""
		complete_line abpath set exit_reparent ""
		complete_line abpath load --mode o
	' _ "$COMPLETION"
	assert_line --index 0 "${CLI_COMMANDS[*]}"
	assert_line --index 1 "${CLI_PATHS[*]} all"
	assert_line --index 2 'legacy optimized'
	assert_line --index 3 'optimized'
}

# Figures an earlier figures file put in the sources' mouths, which the
# sources themselves (../shared/seeds/) do not say.
@test "no document quotes a figure the sources do not have" {
	local top=$BATS_TEST_DIRNAME/../..
	run grep -rnE '2\.25 (\(2 threads|at 2 threads)|2\.41 (\(128|at 128)|[Nn]o timing table|stated, not measured|Atom E3825|0\.2 µs to 2\.5 µs' \
		"$top/README.md" "$top/docs" "$top/userspace" "$top/module"
	assert_failure 1
	assert_output ""
}
