#!/usr/bin/env bats
# docs/matrix.md's compatibility matrix comes from a run's own files
# (tests/tools/compat-matrix), never typed: each VM run's kernel, the
# version its guest booted, the backend, the paths the smoke saw attached,
# what ran and the result.

load ../suite/last-run
load ../suite/paths

TOP=$BATS_TEST_DIRNAME/../..
MATRIX=$TOP/tests/tools/compat-matrix

expect() {
	[ "$1" "$2" "$3" ] || fail "$4: $1, expected $2 $3"
}

# run_files NAME TAP-LINES [RAW-LINES]: one run as tests/bin/check leaves it.
run_files() {
	printf '%s\n' "$2" >"$BATS_TEST_TMPDIR/$1.tap"
	[ -z "${3:-}" ] || printf '%s\n' "$3" >"$BATS_TEST_TMPDIR/$1.raw"
}

@test "every VM run is a row: kernel, version booted, backend, what ran, result" {
	run_files vm $'1..3\nok 1 a\nok 2 b # skip no kmemleak\nok 3 c\nok - vm: the guest reported back' \
		$'==> boot\nabpath-vm: 6.12.117, 2 CPUs, 2 in cpuinfo'
	# The smoke's report of each path's site, with one unavailable, as
	# timer_fastpath is on PREEMPT_RT.
	local p sites= n=0
	for p in $(module_paths); do
		n=$((n + 1))
		if [ "$p" = timer_fastpath ]; then
			sites+=$'\n'"# $p: unavailable: PREEMPT_RT: why"
		else
			sites+=$'\n'"# $p: $p() entry"
		fi
	done
	run_files smoke-stock-trixie-rt $'1..5\nok 1 a\nnot ok 2 b\nok 3 c\nok 4 d\nok 5 e' \
		$'==> stock-trixie-rt is 6.12.118+deb13-rt-amd64 (Debian trixie, built in /r)\nabpath-vm: 6.12.118+deb13-rt-amd64, 2 CPUs'"$sites"
	run_files vm-debug $'1..1\nok 1 a\nok - vm-debug 002-sysfs.bats # SKIP not in CI\'s debug subset; make check-full runs it' \
		'abpath-vm: 6.12.117, 2 CPUs'
	run_files build $'ok - 7.3: patches/linux-7.3 applies'
	run_files vm-rt $'ok - vm-rt # SKIP CI does not build the PREEMPT_RT kernel'
	run_files storm $'ok 1 - storm: flips'
	run_files upstream-stock-trixie-backports $'1..2\nok 1 a\nok 2 b' \
		$'==> stock-trixie-backports is 7.3.4+deb13-amd64 (Debian trixie, built in /r)\nabpath-vm: 7.3.4+deb13-amd64, 2 CPUs'
	run_files package-stock-bookworm $'ok 1 - README: apt install\n1..1\nok 1 smoke' \
		$'==> 21:07:33 stock-bookworm is 6.1.0-56-amd64 (Debian bookworm)\nabpath-vm: 6.1.0-56-amd64, 2 CPUs\n# group_cputime: thread_group_cputime() entry'
	# arm64: the patched 6.12's run and one of Debian's arm64 kernels.
	run_files vm-6.12-arm64 $'1..1\nok 1 a' 'abpath-vm: 6.12.117, 2 CPUs'
	run_files vm-stock-trixie-arm64 $'1..1\nok 1 a' \
		$'==> stock-trixie-arm64 is 6.12.118+deb13-arm64 (Debian trixie, built in /r)\nabpath-vm: 6.12.118+deb13-arm64, 2 CPUs'
	run -0 "$MATRIX" "$BATS_TEST_TMPDIR" --commit abc1234 --date 2026-11-26
	assert_line '| Debian bookworm, `stock-bookworm` | 6.1.0-56-amd64 | stock | all 1 | the .debs installed with apt, smoke, purge | 2 passed |'
	assert_line 'From `make check` of abc1234, 2026-11-26 (tests/tools/compat-matrix):'
	assert_line '| kernel | version booted | backend | paths attached | what ran | result |'
	assert_line '| patched 6.12 | 6.12.117 | patched | (not reported) | whole VM suite | 3 passed, 1 skipped |'
	assert_line "| Debian trixie, \`stock-trixie-rt\` | 6.12.118+deb13-rt-amd64 | stock | $((n - 1)) of $n; timer_fastpath: PREEMPT_RT: why | smoke | **1 failed**, 4 passed |"
	assert_line "| patched 6.12, lock and memory checkers | 6.12.117 | patched | (not reported) | CI's subset of the whole VM suite | 1 passed, 1 skipped |"
	assert_line '| Debian trixie, `stock-trixie-backports` | 7.3.4+deb13-amd64 | stock | (not reported) | kernel selftests, stress-ng and cyclictest | 2 passed |'
	assert_line '| patched 6.12, arm64 | 6.12.117 | patched | (not reported) | whole VM suite | 1 passed |'
	assert_line '| Debian trixie arm64, `stock-trixie-arm64` | 6.12.118+deb13-arm64 | stock | (not reported) | whole VM suite | 1 passed |'
	# A run whose guest never spoke still has its row.
	assert_line '| patched 6.12 | (no banner) | patched | (not reported) | toggle storm and load/unload cycles | 1 passed |'
	# The build is no VM run, and a stage left out ran nothing.
	refute_output --partial 'applies'
	refute_output --partial '| patched 6.12 PREEMPT_RT |'
}

@test "a proxy's row says Debian's source and the distribution's config, never the distribution" {
	run_files smoke-proxy-ubuntu $'1..2\nok 1 a\nok 2 b' \
		$'==> proxy kernel build\nabpath-vm: 6.12.117-proxy-ubuntu, 2 CPUs\n# group_cputime: thread_group_cputime() entry'
	run_files vm-proxy-eln $'1..1\nnot ok 1 a' 'abpath-vm: 6.12.117-proxy-eln, 2 CPUs'
	run -0 "$MATRIX" "$BATS_TEST_TMPDIR" --commit abc1234 --date 2026-11-27
	assert_line "| Debian's source, Ubuntu 24.04's config, \`proxy-ubuntu\` | 6.12.117-proxy-ubuntu | stock | all 1 | smoke | 2 passed |"
	assert_line "| Debian's source, ELN's (RHEL-next) config, \`proxy-eln\` | 6.12.117-proxy-eln | stock | (not reported) | whole VM suite | **1 failed**, 0 passed |"
	refute_output --partial 'tested on'
	refute_output --regexp '\| (Ubuntu|Fedora|ELN)[^|]*\| 6\.12'
}

@test "a directory with no VM run is an error, not an empty table" {
	run_files build 'ok - built'
	run -1 --separate-stderr "$MATRIX" "$BATS_TEST_TMPDIR"
	[ -z "$output" ]
	[[ $stderr == *"no VM run in $BATS_TEST_TMPDIR"* ]]
	run -2 --separate-stderr "$MATRIX" "$BATS_TEST_TMPDIR/none"
	[[ $stderr == *"No such file or directory"* ]]
}

@test "--doc replaces only what lies between the two comment lines, and needs both" {
	run_files smoke-stock-sid $'1..1\nok 1 a' 'abpath-vm: 7.2.13+deb14-amd64, 2 CPUs'
	printf '%s\n' '# Title' 'before' '<!-- compat-matrix: begin (x) -->' 'old row' \
		'<!-- compat-matrix: end -->' 'after' >"$BATS_TEST_TMPDIR/matrix.md"
	run -0 "$MATRIX" "$BATS_TEST_TMPDIR" --doc "$BATS_TEST_TMPDIR/matrix.md" --commit abc1234
	run -0 cat "$BATS_TEST_TMPDIR/matrix.md"
	assert_line --index 0 '# Title'
	assert_line --index 1 'before'
	assert_line --index 2 '<!-- compat-matrix: begin (x) -->'
	assert_line --regexp '^\| `stock-sid` \| 7\.2\.13\+deb14-amd64 \| stock \| \(not reported\) \| smoke \| 1 passed \|$'
	refute_line 'old row'
	assert_line --index -2 '<!-- compat-matrix: end -->'
	assert_line --index -1 'after'
	printf 'no markers\n' >"$BATS_TEST_TMPDIR/other.md"
	run -1 --separate-stderr "$MATRIX" "$BATS_TEST_TMPDIR" --doc "$BATS_TEST_TMPDIR/other.md"
	[[ $stderr == *"has no compat-matrix begin and end lines"* ]]
	run -0 cat "$BATS_TEST_TMPDIR/other.md"
	assert_output 'no markers'
}

@test "--block writes between its own comment lines and leaves the main matrix" {
	run_files smoke-proxy-fedora $'1..1\nok 1 a' 'abpath-vm: 6.12.117-proxy-fedora, 2 CPUs'
	printf '%s\n' '<!-- compat-matrix: begin (x) -->' 'main row' '<!-- compat-matrix: end -->' \
		'<!-- compat-matrix-proxies: begin (y) -->' 'old proxy row' \
		'<!-- compat-matrix-proxies: end -->' >"$BATS_TEST_TMPDIR/matrix.md"
	run -0 "$MATRIX" "$BATS_TEST_TMPDIR" --doc "$BATS_TEST_TMPDIR/matrix.md" --block proxies --commit abc1234
	run -0 cat "$BATS_TEST_TMPDIR/matrix.md"
	assert_line --index 1 'main row'
	refute_line 'old proxy row'
	assert_line --partial "| Debian's source, Fedora 40's config, \`proxy-fedora\` |"
	run -1 --separate-stderr "$MATRIX" "$BATS_TEST_TMPDIR" --doc "$BATS_TEST_TMPDIR/matrix.md" --block none
	[[ $stderr == *"has no compat-matrix-none begin and end lines"* ]]
}

@test "docs/matrix.md's matrix is the generator's output" {
	run -0 sed -n '/^<!-- compat-matrix: begin/,/^<!-- compat-matrix: end/p' "$TOP/docs/matrix.md"
	assert_line --regexp '^From `[^`]+` of [0-9a-f]{7,}(-dirty)?, 20[0-9-]{8}(; [^(]+)? \(tests/tools/compat-matrix\):$'
	assert_line '| kernel | version booted | backend | paths attached | what ran | result |'
	# Every row has the generator's six columns.
	rows=$(grep -cE '^\| [^|]+ \| [^|]+ \| (stock|patched) \| [^|]+ \| [^|]+ \| [^|]+ \|$' <<<"$output")
	expect "$rows" -ge 10 "rows in docs/matrix.md's matrix"
}
