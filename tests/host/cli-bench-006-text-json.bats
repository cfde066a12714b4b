#!/usr/bin/env bats
# abpath bench's text report and its JSON are one tree drawn twice: for
# each saved result in cli-bench-fixtures/, every value the text shows is
# the JSON's at the same place, a number to the digits the text shows
# (cli-bench-text-json.py reads the text back by the renderer's layout);
# a suite's Markdown tables are its -j's "tables", cell by cell.
# --from runs nothing, so no module is needed.  The fixtures were made by
# 'abpath bench -j' on the fake tree (cli-bench-workload.sh), their values
# rescaled to other magnitudes and their provenance filled in by hand.

load cli-helper

FIXTURES=$BATS_TEST_DIRNAME/cli-bench-fixtures
CHECK=$BATS_TEST_DIRNAME/cli-bench-text-json.py

setup() {
	cli_setup
}

# Both forms of FIXTURE into $TEXT and $JSON.
render() {
	TEXT=$BATS_TEST_TMPDIR/text JSON=$BATS_TEST_TMPDIR/json
	"$ABPATH" bench --from "$FIXTURES/$1" >"$TEXT" 2>/dev/null
	"$ABPATH" bench --from "$FIXTURES/$1" -j >"$JSON" 2>/dev/null
}

# The text of FIXTURE against its JSON, and at least MIN numbers of it.
text_is_json() {
	render "$1"
	run -0 python3 "$CHECK" "$TEXT" "$JSON"
	local n
	n=$(sed -n 's/^compared [0-9]* values: \([0-9]*\) numbers.*/\1/p' <<<"$output")
	((n >= $2)) || fail "only $n numbers compared, expected $2 or more"
}

@test "text = JSON: a workload's runs with warm-ups, one path" {
	text_is_json workload.json 60
}

@test "text = JSON: invalid runs, named in the runs' table and in no statistic" {
	text_is_json invalid.json 60
	render invalid.json
	grep -q '^ *3  legacy  *no  .*the watchdog sent exit_reparent back' "$TEXT" ||
		fail "run 3's reason is not in its row: $(cat "$TEXT")"
	grep -q '^  invalid_runs: *1 3$' "$TEXT" || fail "$(cat "$TEXT")"
}

@test "text = JSON: every path, counters reset during runs, a throughput" {
	text_is_json all-paths.json 70
	render all-paths.json
	# The fixture's own paths, as recorded when it was made: a path added
	# to the module later is not in it.
	local p n=0
	for p in $(jq -r '.paths[]' "$FIXTURES/all-paths.json"); do
		grep -qx "    $p" "$TEXT" || fail "path $p is not a line of its own: $(cat "$TEXT")"
		n=$((n + 1))
	done
	assert_equal "$n" 4
}

@test "text = JSON: a command, its CPU times, interrupted after 5 of 8 runs" {
	text_is_json command.json 40
	render command.json
	grep -q '^complete: *no$' "$TEXT" || fail "$(cat "$TEXT")"
	grep -q '^  cpu_mean$' "$TEXT" || fail "$(cat "$TEXT")"
}

@test "text = JSON: a schema-1 file, without provenance" {
	text_is_json schema1.json 60
}

# A suite result's Markdown tables against its -j's "tables", and at
# least MIN numbers of them.
suite_text_is_json() {
	render "$1"
	run -0 python3 "$CHECK" --suite "$TEXT" "$JSON"
	local n
	n=$(sed -n 's/^compared [0-9]* tables: \([0-9]*\) numbers.*/\1/p' <<<"$output")
	((n >= $2)) || fail "only $n numbers compared, expected $2 or more: $output"
}

@test "text = JSON: a suite's tables, every cell, paragraph and left-out run" {
	suite_text_is_json suite.json 60
	# -j is the saved result with the tables beside it, nothing else.
	assert_equal "$(jq -c 'del(.tables)' "$JSON")" "$(jq -c . "$FIXTURES/suite.json")"
	# Each kind of cell carries its numbers: a ratio its interval, a
	# dash a null, the stalls their counts.
	jq -e '.tables[1].rows[1].cells | (.[4].value | type == "number") and
		(.[4].ci95 | length == 2) and .[12].stalls == 3 and
		.[12].runs_with == 2 and .[12].runs == 3 and .[11].flagged == 2' "$JSON" >/dev/null ||
		fail "$(jq -c '.tables[1].rows[1].cells' "$JSON")"
	jq -e '.tables[0].rows[1].cells | .[2].value == null and .[4].ci95 == null and
		.[5].p == null' "$JSON" >/dev/null || fail "$(jq -c '.tables[0].rows[1]' "$JSON")"
	jq -e '[.tables[0].notes[].kind] == ["workload", "left_out", "reproduces", "published", "site"]' \
		"$JSON" >/dev/null || fail "$(jq -c '[.tables[0].notes[].kind]' "$JSON")"
}

@test "text = JSON: an adaptive suite's tables and each point's verdict by the rule" {
	suite_text_is_json suite-adaptive.json 30
	jq -e '[.tables[].notes[] | select(.kind == "rule") | .verdicts[] |
		(.ci | length == 2) and (.value | type == "number") and .stopped_by == "different"] ==
		[true, true, true, true]' "$JSON" >/dev/null ||
		fail "$(jq -c '[.tables[].notes[] | select(.kind == "rule")]' "$JSON")"
}

@test "the suite check fails on one cell or one number otherwise" {
	render suite.json
	# A cell the text shows otherwise, then an interval's end the JSON has otherwise.
	perl -pe 's/^(\| 8 \| 0\.92 \(1\.9\) \| [0-9.]*)([0-9])( )/$1.(($2 + 1) % 10).$3/e' \
		"$TEXT" >"$TEXT.1"
	run -1 python3 "$CHECK" --suite "$TEXT.1" "$JSON"
	assert_line --regexp '^tables\.1\.rows\.0\.cells\.2 \(gmean\): text '
	assert_line --regexp '; 1 differ$'
	jq -c '.tables[1].rows[0].cells[4].ci95[0] *= 1.5' "$JSON" >"$JSON.2"
	run -1 python3 "$CHECK" --suite "$TEXT" "$JSON.2"
	assert_line --regexp '^tables\.1\.rows\.0\.cells\.4 \(ratio_ci\): text '
	# A paragraph the JSON lacks.
	jq -c 'del(.tables[2].notes[0])' "$JSON" >"$JSON.3"
	run -1 python3 "$CHECK" --suite "$TEXT" "$JSON.3"
}

# The last digit of the first number on the text's line matching RE,
# one up: a text that shows a number the JSON does not have.
bump() {
	perl -pe 's/^('"$1"'.*?)([0-9])(?=[ –]|$)/$1.(($2 + 1) % 10)/e if /^'"$1"'/' "$TEXT"
}

@test "the check fails on one number the text shows otherwise" {
	render workload.json
	bump '  gmean ' >"$TEXT.1"
	run -1 python3 "$CHECK" "$TEXT.1" "$JSON"
	assert_line --regexp '^summary\.legacy\.gmean: text '
	assert_line --regexp '; 1 differ$'
	# A run's value in the runs' table, a bound of an interval.
	bump ' +5  optimized ' >"$TEXT.2"
	run -1 python3 "$CHECK" "$TEXT.2" "$JSON"
	assert_line --regexp '^samples\.4\.value: text '
	bump '    ci95: ' >"$TEXT.3"
	run -1 python3 "$CHECK" "$TEXT.3" "$JSON"
	assert_line --regexp '^summary\.ratio\.ci95: text '
}
