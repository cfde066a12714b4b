#!/usr/bin/env bats
# The module's one table of its paths (module/paths.h) and every list of
# them outside the module agree: the CLI's own, for when the module is
# not loaded, its usage text, and the fake module of the host tests.

load cli-helper

setup() {
	cli_setup
}

# The ABPATH_PATH() lines (module/tables).
table_paths() {
	module_paths "$TOP/module/paths.h"
}

# The CLI's own list: "abpath paths" without a module (the fake tree has
# none), which it was built with.
cli_paths() {
	"$ABPATH" paths | sed -n 's/^  //p'
}

@test "the module's table lists paths, each defined in its own file" {
	run -0 table_paths
	[ "${#lines[@]}" -gt 0 ] || fail "module/paths.h lists no path"
	for p in "${lines[@]}"; do
		grep -q "^struct abpath_path abpath_${p}_path = {" "$TOP/module/$p.c" ||
			fail "module/$p.c does not define abpath_${p}_path"
		grep -q "ABPATH_PATH_OF($p)" "$TOP/module/$p.c" ||
			fail "module/$p.c does not name itself with ABPATH_PATH_OF($p)"
	done
}

@test "the CLI's list of paths is the module's table, in its order" {
	run -0 cli_paths
	assert_output "$(table_paths)"
}

@test "the host tests' fake module has the module's paths, in its order" {
	run -0 printf '%s\n' "${CLI_PATHS[@]}"
	assert_output "$(table_paths)"
}

@test "abpath help set names every path of the module's table" {
	run -0 "$ABPATH" help set
	for p in $(table_paths); do
		assert_output --partial "$p"
	done
}
