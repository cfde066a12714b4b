#!/usr/bin/env bats
# Where a make check's time went: every step that prints its time
# (tests/bin/check, lib.sh's stage, tests/bin/prefetch) lands under its
# stage in tests/tools/step-times' table, and lib.sh's stage gives the
# step before it its time.

load ../suite/last-run

TOP=$BATS_TEST_DIRNAME/../..
STEPS=$TOP/tests/tools/step-times

@test "each stage is a row with its steps under it, in the log's order" {
	cat >"$BATS_TEST_TMPDIR/log" <<'EOF'
==> build
==> prefetch in the background (log: build/check/prefetch.log)
    make all (the 6.12 test kernel, the module, the CLI, the workloads): 512s
    waiting for the prefetch: 3s
    prefetch: stock-trixie-rt: 41s
==> build took 530s
==> vm-stock
==> 22:01:02 stock-bookworm-6.12 is 6.12.57+deb12-amd64 (Debian bookworm)
    stock-bookworm-6.12 is 6.12.57+deb12-amd64 (Debian bookworm): 12s
==> 22:01:14 boot: 2 vCPUs, 1024 MiB, timeout 900s
    boot: 2 vCPUs, 1024 MiB, timeout 900s: 300s
ok - vm-stock-bookworm-6.12: the guest reported back and the kernel log is clean (320s)
ok 3 a test whose output ends like a step: 5s
==> vm-stock took 321s
==> stage times
    build        530s
    vm-stock     321s
    total          851s
EOF
	run -0 "$STEPS" "$BATS_TEST_TMPDIR/log"
	expected='| stage, step | s |
|---|---:|
| **build** | **530** |
| &nbsp;&nbsp;make all (the 6.12 test kernel, the module, the CLI, the workloads) | 512 |
| &nbsp;&nbsp;waiting for the prefetch | 3 |
| &nbsp;&nbsp;prefetch: stock-trixie-rt | 41 |
| **vm-stock** | **321** |
| &nbsp;&nbsp;stock-bookworm-6.12 is 6.12.57+deb12-amd64 (Debian bookworm) | 12 |
| &nbsp;&nbsp;boot: 2 vCPUs, 1024 MiB, timeout 900s | 300 |
| &nbsp;&nbsp;VM run vm-stock-bookworm-6.12, all told | 320 |
| **total** | **851** |'
	[ "$output" = "$expected" ] || fail "got:
$output
expected:
$expected"
}

@test "lib.sh's stage gives the step before it its time, and stamps its own start" {
	run -0 bash -c ". '$TOP/tests/vm/lib.sh'; stage one; sleep 1.1; stage two 2>&1 >/dev/null" 2>&1
	assert_line --regexp '^==> [0-9]{2}:[0-9]{2}:[0-9]{2} one$'
	assert_line --regexp '^    one: [1-9][0-9]*s$'
	assert_line --regexp '^==> [0-9]{2}:[0-9]{2}:[0-9]{2} two$'
}
