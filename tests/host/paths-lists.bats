#!/usr/bin/env bats
# Every list of abpath's paths still written by hand, anywhere in the
# clone outside module/ (which expands module/paths.h), names every path
# of the module's table: a path added to the table fails this test until
# every such list follows it. Where a list can come from the table, it
# does (tests/suite/paths.bash); what is left is C, help text, prose and
# other helpers' files.

load ../suite/last-run
load ../suite/paths

TOP=$BATS_TEST_DIRNAME/../..

# lists_of_paths TABLE: FILE:LINE:TEXT of every tracked line outside
# module/ that names four of TABLE's paths (or all of them, while it has
# fewer): a list of the paths. Every such line today names all four; a
# fifth path leaves each one naming four of five, and so found. A name
# counts where no letter or digit touches it, so identifiers built on it
# (abpath_key_group_cputime) count too.
lists_of_paths() {
	local names
	names=$(module_paths "$1" | paste -sd'|')
	[ -n "$names" ] || { echo "no ABPATH_PATH() line in $1" >&2; return 1; }
	git -C "$TOP" grep -n -I -E "$names" -- . ':!module' |
		awk -v names="$names" '
			BEGIN { n = split(names, p, "|"); need = n < 4 ? n : 4 }
			{
				line = $0
				sub(/^[^:]*:[0-9]+:/, "", line)
				line = " " line " "; c = 0
				for (i = 1; i <= n; i++)
					if (line ~ "[^A-Za-z0-9]" p[i] "[^A-Za-z0-9]")
						c++
				if (c >= need)
					print
			}'
}

# short_lists TABLE: FILE:LINE: the paths of TABLE each list leaves out.
short_lists() {
	local names
	names=$(module_paths "$1" | paste -sd'|')
	lists_of_paths "$1" | awk -v names="$names" '
		BEGIN { n = split(names, p, "|") }
		{
			line = $0
			sub(/^[^:]*:[0-9]+:/, "", line)
			line = " " line " "; miss = ""
			for (i = 1; i <= n; i++)
				if (line !~ "[^A-Za-z0-9]" p[i] "[^A-Za-z0-9]")
					miss = miss " " p[i]
			split($0, at, ":")
			if (miss != "")
				print at[1] ":" at[2] ": leaves out" miss
		}'
}

@test "the clone is a git work tree, whose tracked files are searched" {
	run -0 git -C "$TOP" rev-parse --is-inside-work-tree
	assert_output true
}

@test "every list of the paths outside module/ names every path of module/paths.h" {
	run -0 lists_of_paths "$PATHS_H"
	[ "${#lines[@]}" -gt 0 ] || fail "no list of the paths found: the search is broken"
	echo "# ${#lines[@]} lists of the paths written by hand" >&3
	run -0 short_lists "$PATHS_H"
	assert_output ""
}

@test "a path added to module/paths.h leaves every such list short" {
	local table=$BATS_TEST_TMPDIR/paths.h
	{ cat "$PATHS_H"; echo 'ABPATH_PATH(fifth_path)'; } >"$table"
	run -0 lists_of_paths "$PATHS_H"
	local found=("${lines[@]}")
	[ "${#found[@]}" -gt 0 ] || fail "no list of the paths found: the search is broken"
	run -0 short_lists "$table"
	assert_equal "${#lines[@]}" "${#found[@]}"
	for l in "${lines[@]}"; do
		[[ $l == *": leaves out fifth_path" ]] || fail "not short of fifth_path alone: $l"
	done
}
