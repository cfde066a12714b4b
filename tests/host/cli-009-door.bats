#!/usr/bin/env bats
# The CLI's one door to the kernel (userspace/control.h): only control.c
# and kernel.c spell a file of sysfs, procfs or debugfs, their roots are
# static, and the paths the CLI names are module/paths.h's.

load cli-helper

setup() {
	cli_setup
}

# The files behind the door.
DOOR=(userspace/control.c userspace/kernel.c)

# Every source of the CLI, and its completion, but the door's files.
# userspace/workloads/ is left out: each workload is a program of its
# own, not the CLI, and reads /proc or /sys as what it measures.
outside_door() {
	(cd "$TOP" && find userspace -path userspace/workloads -prune -o \
		-type f \( -name '*.[ch]' -o -name abpath.bash-completion \) \
		-print | grep -vxF -f <(printf '%s\n' "${DOOR[@]}") | sort)
}

# The ABPATH_PATH() lines (module/tables).
table_paths() {
	module_paths "$TOP/module/paths.h"
}

@test "no file outside the door spells a sysfs, procfs or debugfs file" {
	local files
	mapfile -t files < <(outside_door)
	# The CLI's own files are there to be searched.
	((${#files[@]} > 5)) || fail "only ${#files[@]} files found: ${files[*]}"
	[[ " ${files[*]} " == *" userspace/abpath.c "* ]] || fail "no abpath.c in: ${files[*]}"
	run -1 grep -nE '/sys(/|"|$)|/proc(/|"|$)|debug/abpath' \
		"${files[@]/#/$TOP/}"
	assert_output ''
	# And the door's own files do spell them, or this test looked nowhere.
	run -0 grep -lE '"/sys/kernel/abpath"|"/proc"' "${DOOR[@]/#/$TOP/}"
	assert_equal "${#lines[@]}" 2
}

@test "the door's roots are static: no header declares them" {
	run -1 grep -rnwE 'ctl_(sysfs|debugfs|proc|sys_path|sys_read)' \
		--include='*.h' "$TOP/userspace"
	assert_output ''
	# Each is defined, and defined static.
	run -0 grep -hnE '^[a-z].*\<(ctl_sysfs|ctl_debugfs|ctl_proc|sys_root|debugfs_root)\(void\)$' \
		"${DOOR[@]/#/$TOP/}"
	assert_equal "${#lines[@]}" 5
	run -1 grep -vE '^[0-9]+:static ' <<<"$output"
}

@test "without the module, the CLI's paths are module/paths.h's, in its order" {
	run -0 table_paths
	((${#lines[@]} >= 4)) || fail "module/paths.h lists ${#lines[@]} paths"
	run -0 "$ABPATH" -j paths
	run -0 jq -r 'select(.source == "built-in") | .paths[]' <<<"$output"
	assert_output "$(table_paths)"
	run -0 "$ABPATH" help set
	assert_line "  $(table_paths | paste -sd, | sed 's/,/, /g')"
}

@test "with the module, the CLI's paths are the module's, paths.h's order first" {
	fake_module
	mkdir "$ABPATH_SYSFS/a_newer_path"
	echo 'legacy [optimized]' >"$ABPATH_SYSFS/a_newer_path/mode"
	run -0 "$ABPATH" -j paths
	run -0 jq -r 'select(.source == "module") | .paths[]' <<<"$output"
	assert_output "$(table_paths; echo a_newer_path)"
}

@test "a path added to module/paths.h reaches status, set and the completion, with no edit under userspace/" {
	local tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree"
	tar -C "$TOP" --exclude=workloads --exclude='*.o' --exclude='*.d' \
		--exclude=.flags --exclude=userspace/abpath \
		--exclude=test-statistics -cf - userspace module/paths.h module/requires.h VERSION |
		tar -C "$tree" -xf -
	# Where a new path goes: last, before the list's #undefs.
	sed -i 's/^#undef ABPATH_PATH$/ABPATH_PATH(fifth_path)\n\n&/' \
		"$tree/module/paths.h"
	run -0 module_paths "$tree/module/paths.h"
	assert_output "$(table_paths; echo fifth_path)"
	run -0 nice -n 19 make -s -C "$tree/userspace" abpath
	local cli=$tree/userspace/abpath
	run -0 "$cli" paths
	assert_output --partial "  timer_softirq
  fifth_path"
	run -1 "$cli" status
	assert_line --regexp '^  fifth_path '
	run -0 "$cli" help set
	assert_output --partial 'fifth_path'
	# Known, so past the usage check to the missing module.
	run -1 --separate-stderr "$cli" set fifth_path legacy
	[[ $stderr == *"module abpath is not loaded"* ]] || fail "stderr: $stderr"
	run -0 env PATH="$tree/userspace:$PATH" bash -c '
		source "$1"
		COMP_WORDS=(abpath set ""); COMP_CWORD=2
		COMPREPLY=(); _abpath; echo "${COMPREPLY[*]}"
	' _ "$tree/userspace/abpath.bash-completion"
	assert_output "$(table_paths | paste -sd ' ') fifth_path all"
}
