#!/usr/bin/env bats
# The abpath CLI against the real module.

load helper

setup() {
	load_module
	abpath set all optimized
}

teardown() {
	common_teardown
	load_module
}

@test "status reports the module, its backend, the hooks and every path's mode and site" {
	run -0 abpath status -j
	json=$output
	# Only the backend in use has its fields, and every one is ready.
	# The stock block holds module/requires.h's options for the stock
	# backend, each set, the resolution in use (sysfs') with each of its
	# options set, and ftrace on; the other resolution's options are
	# there too, as the kernel has them.
	resolution=$(cat "$SYS/resolution")
	stock=$({ backend_requires stock; resolution_requires "$resolution"; } |
		jq -R . | jq -sc --arg r "$resolution" 'map({(.): true}) | add + {ftrace_enabled: true, resolution: $r}')
	others=$(resolution_requires '[a-z]*' | jq -R . | jq -sc .)
	jq -e --arg b "$BACKEND" --argjson stock "$stock" --argjson others "$others" '.module.loaded == true and .module.backend == $b
		and .kernel.backend_support == $b and .mode == "optimized"
		and (.kernel | has("hook_patch")) == ($b == "patched")
		and (.kernel | has("stock_backend")) == ($b == "stock")
		and (if $b == "patched" then
			.kernel.hook_patch == {"CONFIG_ABPATH_HOOKS": true,
				"api_in_kernel": true, "module_registered": true}
		     else
			(.kernel.stock_backend | to_entries
				| map(select(.key as $k | $stock | has($k))) | from_entries) == $stock
			and ([.kernel.stock_backend | keys[] | select(. as $k
				| ($stock | has($k)) or ($others | index($k)) | not)] == [])
		     end)
		and (.kernel.module_signatures | has("sig_enforce") and has("lockdown")
			and has("secure_boot"))' <<<"$json" || fail "status -j: $json"
	for p in "${PATHS[@]}"; do
		# The stock backend has no static keys: ftrace is its hook.
		jq -e --arg p "$p" --arg b "$BACKEND" '.paths[$p].mode == "optimized"
			and (.paths[$p] | has("static_key")) == ($b == "patched")
			and (if $b == "patched" then .paths[$p].static_key else true end)
			and (.paths[$p].site | test("^[a-z_]+\\(\\)"))' <<<"$json" ||
			fail "status -j, $p: $json"
	done
	run -0 abpath status
	if [ "$BACKEND" = stock ]; then
		refute_output --partial CONFIG_ABPATH_HOOKS
		assert_line --regexp '^    ftrace_enabled: +yes$'
	else
		refute_output --partial CONFIG_LIVEPATCH
		assert_line --regexp '^    CONFIG_ABPATH_HOOKS: +yes$'
	fi
}

@test "unload, load --mode legacy, set, reset and unload round-trip" {
	run -0 abpath unload
	[ ! -e /sys/module/abpath ]
	run -1 abpath status
	assert_output --partial "not loaded"

	run -0 abpath load --mode legacy
	run -0 cat "$SYS/mode"
	assert_output legacy

	run -0 abpath set exit_reparent optimized
	expect "$(active_mode exit_reparent)" = optimized "exit_reparent after abpath set exit_reparent optimized"
	run -0 cat "$SYS/mode"
	assert_output mixed
	run -0 abpath set all optimized
	run -0 cat "$SYS/mode"
	assert_output optimized

	"$WL/forkexit" -i 50 >/dev/null
	expect "$(counter exit_reparent optimized calls)" -ge 50 "exit_reparent optimized calls"
	run -0 abpath reset
	expect "$(counter exit_reparent optimized calls)" -lt 10 "exit_reparent optimized calls after abpath reset"

	run -0 abpath unload
	[ ! -e /sys/module/abpath ]
	expect "$(hook_key registered)" = 0 "registered hook key after abpath unload"
}

@test "set rejects an unknown path with a usage error listing the valid ones" {
	run -2 abpath set no_such_path legacy
	for p in "${PATHS[@]}"; do
		assert_output --partial "$p"
	done
	run -0 cat "$SYS/mode"
	assert_output optimized
}

@test "stats -j agrees with debugfs stats" {
	"$WL/forkexit" -i 20 >/dev/null
	"$WL/pound-times" -c 200 -n 1 >/dev/null
	# Counters only grow, so the CLI's value lies between two debugfs reads
	# taken before and after it, for every path, mode and counter.
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/before"
	abpath stats -j >"$BATS_TEST_TMPDIR/json"
	cat "$DBG/stats" >"$BATS_TEST_TMPDIR/after"
	jq -r '.paths | to_entries[] | .key as $p | .value | to_entries[] |
		.key as $m | .value | to_entries[] | "\($p) \($m) \(.key) \(.value)"' \
		"$BATS_TEST_TMPDIR/json" >"$BATS_TEST_TMPDIR/cli"
	run -0 awk '
		FILENAME == ARGV[1] { lo[$1 " " $2 " " $3] = $4; next }
		FILENAME == ARGV[2] { hi[$1 " " $2 " " $3] = $4; next }
		{
			k = $1 " " $2 " " $3; seen[k] = 1
			if (!(k in lo)) { print "only in the CLI: " k; bad = 1 }
			else if ($4 < lo[k] || $4 > hi[k]) { print k ": " lo[k] " <= " $4 " <= " hi[k] " fails"; bad = 1 }
		}
		END {
			for (k in lo) if (!(k in seen)) { print "missing in the CLI: " k; bad = 1 }
			exit bad
		}' "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after" "$BATS_TEST_TMPDIR/cli"
	expect "$(wc -l <"$BATS_TEST_TMPDIR/cli")" -ge 32 "counters in abpath stats -j"
}

@test "stats shows every path and mode" {
	run -0 abpath stats
	for p in "${PATHS[@]}"; do
		assert_output --partial "$p"
	done
	assert_output --partial legacy
	assert_output --partial optimized
}

@test "unload while the module is in use fails with a clear message" {
	# An open debugfs file pins the module (fd 3 belongs to bats).
	exec {fd}<"$DBG/stats"
	run -1 abpath unload
	exec {fd}<&-
	assert_output --partial "in use"
	run -0 abpath unload
}

@test "commands that need the module say how to load it when it is absent" {
	unload_module
	run -1 abpath set all legacy
	assert_output --partial "abpath load"
	run -1 abpath stats
	assert_output --partial "abpath load"
}
