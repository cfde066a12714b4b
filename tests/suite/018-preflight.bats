#!/usr/bin/env bats
# The preflight against the module: abpath check, run before the module
# loads, says per path whether this kernel's backend can take it; after
# the load, each path's site (abpath status -j) must say the same. Small,
# as it runs in every smoke VM too (tests/smoke/preflight.bats is this
# file) and in the whole suite. Runs in the VM.

load ../suite/helper

teardown() {
	unload_module
}

@test "abpath check's verdict before the load is what attached after it" {
	unload_module
	[ ! -d "$SYS" ] || fail "abpath is still loaded"
	run --separate-stderr abpath check -j
	# The guest has no headers (/lib/modules/*/build): a maybe at most.
	[ "$status" -eq 0 ] || [ "$status" -eq 3 ] ||
		fail "check exited $status: $stderr $output"
	check=$output
	run -0 jq -r .verdict.backend <<<"$check"
	assert_output "$BACKEND"
	run -0 jq -r .kernel.config_file <<<"$check"
	[ "$output" != null ] || fail "check found no config of $(uname -r)"
	load_module
	run -0 abpath status -j
	status_json=$output
	for p in "${PATHS[@]}"; do
		said=$(jq -r --arg p "$p" --arg b "$BACKEND" '.paths[$p][$b]' <<<"$check")
		why=$(jq -r --arg p "$p" '.paths[$p].stock_reason' <<<"$check")
		site=$(jq -r --arg p "$p" '.paths[$p].site' <<<"$status_json")
		if [[ $site == unavailable* ]]; then attached=no; else attached=yes; fi
		# Not "# PATH:": compat-matrix reads those lines as the smoke's.
		echo "# check, $p: said $said ($why); the module: $site" >&3
		[ "$said" = "$attached" ] ||
			fail "$p: check said $said ($why), but the module's site is: $site"
	done
}
