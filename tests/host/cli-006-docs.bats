#!/usr/bin/env bats
# The man pages, --help and the bash completion describe the same commands,
# and README stays a page for a user. abpath(1) has the control commands,
# abpath-bench(1) bench.

load cli-helper

MANDIR=$BATS_TEST_DIRNAME/../../userspace
MAN=$MANDIR/abpath.1
BENCH_MAN=$MANDIR/abpath-bench.1
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

# The page that documents command $1's options.
man_page_of() {
	if [[ $1 == bench ]]; then echo "$BENCH_MAN"; else echo "$MAN"; fi
}

# Every "NAME (N)" reference the page's SEE ALSO section makes.
see_also() {
	awk '/^\.SH / { on = ($2 == "SEE"); next }
		on && /^\.BR / { print $2 "." substr($3, 2, 1) }' "$1"
}

@test "--help lists the expected commands" {
	run -0 help_commands
	assert_output "$(printf '%s\n' "${CLI_COMMANDS[@]}")"
}

@test "abpath(1) and --help name the same commands" {
	run -0 man_commands
	assert_output "$(help_commands)"
}

@test "the right man page documents every option of every command" {
	local c opt page
	for c in "${CLI_COMMANDS[@]}"; do
		page=$(man_page_of "$c")
		for opt in $("$ABPATH" "$c" --help | grep -o -- '--[a-z][a-z-]*'); do
			grep -qF -- "${opt//-/\\-}" "$page" ||
				fail "$c: $opt missing from $(basename "$page")"
		done
	done
	for opt in $("$ABPATH" --help | grep -o -- '--[a-z][a-z-]*'); do
		grep -qF -- "${opt//-/\\-}" "$MAN" ||
			fail "abpath: $opt missing from abpath.1"
	done
}

@test "abpath(1) hands bench to abpath-bench(1), which has no control command's options" {
	run -1 grep -F -- '\-\-runs' "$MAN"
	assert_output ''
	run -0 grep -F -- '.BR abpath\-bench (1)' "$MAN"
	run -1 grep -F -- '\-\-watch' "$BENCH_MAN"
	assert_output ''
}

@test "each man page's SEE ALSO names the other, and every abpath page it names exists" {
	local page ref
	for page in "$MAN" "$BENCH_MAN"; do
		run -0 see_also "$page"
		ref=$(basename "$page")
		refute_line "$ref"
		for ref in $(see_also "$page" | grep '^abpath'); do
			[[ -f $MANDIR/${ref/\\-/-} ]] ||
				fail "$(basename "$page"): SEE ALSO $ref: no $MANDIR/${ref/\\-/-}"
		done
	done
	run -0 see_also "$MAN"
	assert_line 'abpath\-bench.1'
	run -0 see_also "$BENCH_MAN"
	assert_line 'abpath.1'
}

@test "both man pages have the sections of git's and bpftool's pages" {
	local page s
	for page in "$MAN" "$BENCH_MAN"; do
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
			grep -qx "\\.SH $s" "$page" || fail "$(basename "$page"): no .SH $s"
		done
	done
}

@test "both man pages format without warnings" {
	command -v man >/dev/null || skip "man not installed"
	run -0 --separate-stderr env MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$MAN"
	assert_equal "$stderr" ''
	assert_line --partial 'abpath - switch kernel paths'
	run -0 --separate-stderr env MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$BENCH_MAN"
	assert_equal "$stderr" ''
	assert_line --regexp '^ +abpath-bench +- A/B-benchmark a workload'
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

@test "README is for a user: at most 250 lines, and it sends the harness and the matrix elsewhere" {
	local top=$BATS_TEST_DIRNAME/../..
	run -0 wc -l <"$top/README.md"
	(( output <= 250 )) || fail "README.md has $output lines, over 250"
	run -1 grep -n 'compat-matrix: begin\|tests/vm/run\|ABPATH_VM=' "$top/README.md"
	assert_output ''
	run -0 grep -c 'docs/matrix.md\|docs/testing.md' "$top/README.md"
}

@test "the user docs cite no issue numbers" {
	local top=$BATS_TEST_DIRNAME/../..
	run -1 grep -nE '(^|[^[:alnum:]&])#[0-9]+' "$top/README.md" "$top/docs/testing.md" \
		"$top/docs/matrix.md" "$top/docs/install.md" "$top/docs/reference.md" \
		"$top/userspace/abpath.1" "$top/userspace/abpath-bench.1"
	assert_output ''
}
