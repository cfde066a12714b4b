# Shared by tests/host/cli-*.bats: the abpath CLI against a fake
# sysfs/debugfs/proc tree built under $BATS_TEST_TMPDIR, so that no module,
# patched kernel or root-only file is needed.
# shellcheck shell=bash

load ../suite/last-run
load ../suite/paths

ABPATH=${ABPATH_BIN:-$BATS_TEST_DIRNAME/../../userspace/abpath}
TOP=$BATS_TEST_DIRNAME/../..
# The commands the CLI must offer, in its help order.
CLI_COMMANDS=(status paths load unload set stats reset workloads check bench help)
# The fake module's paths: the table's (module/paths.h).
mapfile -t CLI_PATHS < <(module_paths)

cli_setup() {
	[[ -x $ABPATH ]] || fail "no $ABPATH; build it with 'make -C userspace'"
	# Never let a test reach the real /sys: point every root at the fake
	# tree, even in tests that only expect a usage error.
	FAKE=$BATS_TEST_TMPDIR/fake
	export ABPATH_SYSFS=$FAKE/sys/kernel/abpath
	export ABPATH_DEBUGFS=$FAKE/sys/kernel/debug/abpath
	export ABPATH_PROC=$FAKE/proc
	# Not the host's own log: the fake module's runs have nothing there.
	export ABPATH_KMSG=$FAKE/dev/kmsg
	export ABPATH_WORKLOAD_DIR=$FAKE/libexec/abpath
	unset ABPATH_DEBUG
	mkdir -p "$FAKE/sys/kernel/debug" "$ABPATH_PROC"
}

# A kernel with the hook patch: config, kallsyms and debugfs agree.
fake_kernel() {
	local registered=${1:-0} p
	printf 'CONFIG_SMP=y\nCONFIG_ABPATH_HOOKS=y\n' | gzip >"$ABPATH_PROC/config.gz"
	printf '%s\n' 'ffffffff81000000 T _stext' \
		'ffffffff81234560 T abpath_register' >"$ABPATH_PROC/kallsyms"
	{
		echo "registered $registered"
		for p in "${CLI_PATHS[@]}"; do echo "$p $registered"; done
	} >"$FAKE/sys/kernel/debug/abpath_hooks"
}

# Debian's own kernel: no hook patch, but what the stock backend needs.
fake_stock_kernel() {
	printf 'CONFIG_SMP=y\nCONFIG_X86_64=y\nCONFIG_LIVEPATCH=y\nCONFIG_DYNAMIC_FTRACE_WITH_ARGS=y\nCONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y\nCONFIG_POSIX_CPU_TIMERS_TASK_WORK=y\n' |
		gzip >"$ABPATH_PROC/config.gz"
	echo 'ffffffff81000000 T _stext' >"$ABPATH_PROC/kallsyms"
	mkdir -p "$FAKE/sys/kernel/debug/tracing"
}

# A kernel that can take neither backend: debugfs is mounted but has no
# abpath_hooks, and the config lacks livepatch.
fake_unpatched_kernel() {
	printf 'CONFIG_SMP=y\n# CONFIG_ABPATH_HOOKS is not set\n' |
		gzip >"$ABPATH_PROC/config.gz"
	echo 'ffffffff81000000 T _stext' >"$ABPATH_PROC/kallsyms"
	mkdir -p "$FAKE/sys/kernel/debug/tracing"
}

# The loaded module: sysfs and debugfs as the module exports them, on the
# patched kernel, or with "stock" on Debian's own.
fake_module() {
	local backend=${1:-patched} p
	if [ "$backend" = stock ]; then
		fake_stock_kernel
	else
		fake_kernel 1
	fi
	mkdir -p "$ABPATH_SYSFS" "$ABPATH_DEBUGFS"
	for p in "${CLI_PATHS[@]}"; do
		mkdir -p "$ABPATH_SYSFS/$p"
		echo 'legacy [optimized]' >"$ABPATH_SYSFS/$p/mode"
		echo "$p site of the $backend backend" >"$ABPATH_SYSFS/$p/site"
	done
	echo optimized >"$ABPATH_SYSFS/mode"
	echo 0.1.0 >"$ABPATH_SYSFS/version"
	echo "$backend" >"$ABPATH_SYSFS/backend"
	if [ "$backend" = stock ]; then
		echo livepatch >"$ABPATH_SYSFS/resolution"
	else
		echo exports >"$ABPATH_SYSFS/resolution"
	fi
	echo 0 >"$ABPATH_SYSFS/reset"
	echo 0 >"$ABPATH_DEBUGFS/reset"
	fake_stats
}

# Stats in the module's format; $1 scales the values for rate tests.
fake_stats() {
	local k=${1:-1}
	cat >"$ABPATH_DEBUGFS/stats.new" <<-EOF
		group_cputime legacy calls $((10 * k))
		group_cputime legacy ns_total $((123456 * k))
		group_cputime legacy ns_max 9999
		group_cputime legacy mismatches 0
		group_cputime legacy threads_walked $((400 * k))
		group_cputime optimized calls $((20 * k))
		group_cputime optimized ns_total $((2345 * k))
		group_cputime optimized ns_max 99
		group_cputime optimized mismatches 0
		timer_fastpath legacy calls $((7 * k))
		timer_fastpath legacy ns_total 700
		timer_fastpath legacy ns_max 100
		timer_fastpath legacy mismatches 0
		timer_fastpath optimized calls 0
		timer_fastpath optimized ns_total 0
		timer_fastpath optimized ns_max 0
		timer_fastpath optimized mismatches 0
		exit_reparent legacy calls 3
		exit_reparent legacy tasks_scanned 3000
		exit_reparent optimized calls 4
		exit_reparent optimized children_found 1
		timer_softirq legacy calls 5
		timer_softirq optimized softirqs_suppressed 250
	EOF
	# A reader must never see half a file.
	mv "$ABPATH_DEBUGFS/stats.new" "$ABPATH_DEBUGFS/stats"
}

# Usage errors: status 2, nothing on stdout, the usage on stderr.
assert_usage_error() {
	run -2 --separate-stderr "$ABPATH" "$@"
	[[ -z $output ]] || fail "abpath $*: unexpected stdout: $output"
	[[ $stderr == *"Usage: abpath"* ]] ||
		fail "abpath $*: no usage on stderr: $stderr"
	[[ $stderr != *"error:"* ]] ||
		fail "abpath $*: usage error reported as a failure: $stderr"
}

# The active mode of path $1, from the module's or the fake's format.
mode_of() {
	local m
	m=$(<"$ABPATH_SYSFS/$1/mode")
	case $m in
	*'[legacy]'*) echo legacy ;;
	*'[optimized]'*) echo optimized ;;
	*) echo "$m" ;;
	esac
}

jq_ok() { # FILTER: true on $output
	jq -e "$1" <<<"$output" >/dev/null || fail "jq '$1' is not true on: $output"
}

# The bench tests' setup: the fake module, its bench counters and the
# fake workload (cli-bench-workload.sh); STATE holds the fake runs' state.
bench_setup() {
	cli_setup
	fake_module
	fake_bench_tree
	STATE=$FAKE/sys/kernel/debug
	unset FAKE_PATH
}

# The hosts' results of pool fixture $1 (fixtures/pool/$1.txt, made by
# tests/tools/pool-fixture) in $BATS_TEST_TMPDIR/$1, and FROM, a --from
# for each host in the fixture's order.
POOL_FIXTURES=$BATS_TEST_DIRNAME/fixtures/pool
fleet() {
	local dir=$BATS_TEST_TMPDIR/$1 f
	[[ -d $dir ]] || "$TOP/tests/tools/pool-fixture" "$POOL_FIXTURES/$1.txt" "$dir"
	FROM=()
	while read -r f; do
		FROM+=(--from "$dir/$f.json")
	done < <(awk '!/^#/ && NF { print $1 }' "$POOL_FIXTURES/$1.txt")
	((${#FROM[@]} >= 4)) || fail "fixture $1: ${#FROM[@]} words of --from"
}

# Runs the CLI as nobody, as a user without root would.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# Let nobody reach the fake tree, as everyone can reach /sys.
open_tmpdir_to_all() {
	local d=$BATS_TEST_TMPDIR
	while [[ $d == "$BATS_RUN_TMPDIR"* && $d != / ]]; do
		chmod o+x "$d"
		d=$(dirname "$d")
	done
	chmod -R o+rX "$FAKE"
}

# refused_as_user ARGS...: abpath ARGS, run as nobody, fails with exit 1
# and says to run it as root.  The first call opens the fake tree to all
# and copies the CLI where nobody can run it (the clone may sit in a
# directory nobody cannot enter, as mktemp -d makes them).
refused_as_user() {
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	if [[ ! -x $BATS_TEST_TMPDIR/abpath-for-all ]]; then
		open_tmpdir_to_all
		install -m 0755 "$ABPATH" "$BATS_TEST_TMPDIR/abpath-for-all"
	fi
	run -1 --separate-stderr as_nobody "$BATS_TEST_TMPDIR/abpath-for-all" "$@"
	[[ $stderr == abpath:\ error:*"run as root" ]] ||
		fail "abpath $* as nobody: not 'run as root': $stderr"
}

# A fake module for bench: counters the fake workload (cli-bench-workload.sh,
# installed as forkexit) can add to, for every path and mode; ns_total
# starts high so that --reset-ns makes it go down.
fake_bench_tree() {
	local p m
	for p in "${CLI_PATHS[@]}"; do
		for m in legacy optimized; do
			printf '%s %s calls 0\n%s %s ns_total 1000000\n' $p $m $p $m
			printf '%s %s ns_max 0\n%s %s mismatches 0\n' $p $m $p $m
		done
	done >"$ABPATH_DEBUGFS/stats"
	mkdir -p "$ABPATH_WORKLOAD_DIR"
	cp "$BATS_TEST_DIRNAME/cli-bench-workload.sh" "$ABPATH_WORKLOAD_DIR/forkexit"
}

teardown() {
	common_teardown
}
