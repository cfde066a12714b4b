# Shared setup for the wl-*.bats host tests of userspace/workloads.

load ../suite/last-run

# $ABPATH_WL_DIR: another build of them (build/asan's, make check-host-asan).
WL_DIR="${ABPATH_WL_DIR:-$BATS_TEST_DIRNAME/../../userspace/workloads}"
WL_ALL="pound-times pound-clock forkexit thread-churn itimer-threads sleep-loop softirq-rate"

# Builds the workloads once per file (a no-op when they are up to date).
wl_build() {
	make -s -C "$WL_DIR" >/dev/null
}

# The keys every workload's -j object must have, with their types.
wl_json_ok() { # NAME JSON
	jq -e --arg n "$1" '
		.workload == $n and
		(.metric | type) == "string" and
		(.value | type) == "number" and
		(.unit | type) == "string" and
		(.lower_is_better | type) == "boolean" and
		(.params | type) == "object" and
		(.results | type) == "object" and
		(.checks.passed | type) == "boolean"' <<<"$2" >/dev/null
}

# A copy of workload NAME under a unique command name, so its processes
# (idle tasks keep the name: they never exec) can be counted alone.
wl_unique_copy() { # NAME -> prints the path
	local tag="wl${RANDOM}${RANDOM}"
	cp "$WL_DIR/$1" "$BATS_TEST_TMPDIR/${tag:0:15}"
	echo "$BATS_TEST_TMPDIR/${tag:0:15}"
}

# Processes named NAME, zombies included.
wl_count() {
	pgrep -xc "$1" || true
}

# Live (non-zombie) processes named NAME.
wl_count_live() {
	ps -eo stat=,comm= | awk -v n="$1" '$2 == n && $1 !~ /^Z/' | wc -l
}

# Waits up to SECS for command to succeed.
wl_wait_for() { # SECS CMD...
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.05
	done
}

teardown() {
	common_teardown
}
