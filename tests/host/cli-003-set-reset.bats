#!/usr/bin/env bats
# abpath set and reset against a fake sysfs/debugfs.

load cli-helper

setup() {
	cli_setup
}

@test "set PATH MODE writes the path's mode file" {
	fake_module
	local p
	for p in "${CLI_PATHS[@]}"; do
		run -0 "$ABPATH" set "$p" legacy
		assert_output ''
		assert_equal "$(cat "$ABPATH_SYSFS/$p/mode")" legacy
	done
	run -0 "$ABPATH" set exit_reparent optimized
	assert_equal "$(cat "$ABPATH_SYSFS/exit_reparent/mode")" optimized
}

@test "set all MODE writes the global mode file" {
	fake_module
	run -0 "$ABPATH" set all legacy
	assert_equal "$(cat "$ABPATH_SYSFS/mode")" legacy
	# Only the global file: the module propagates.
	assert_equal "$(cat "$ABPATH_SYSFS/group_cputime/mode")" 'legacy [optimized]'
}

@test "set accepts a path the module adds" {
	fake_module
	mkdir "$ABPATH_SYSFS/new_path"
	echo 'legacy [optimized]' >"$ABPATH_SYSFS/new_path/mode"
	run -0 "$ABPATH" set new_path legacy
	assert_equal "$(cat "$ABPATH_SYSFS/new_path/mode")" legacy
	assert_usage_error set other_path legacy
	[[ $stderr == *new_path* ]]
}

@test "set without the module tells how to load it" {
	fake_kernel
	run -1 --separate-stderr "$ABPATH" set all legacy
	assert_equal "$output" ''
	[[ $stderr == "abpath: error: module abpath is not loaded; load it with 'abpath load' or 'modprobe abpath'" ]]
}

@test "set on a kernel without the hooks tells how to get them" {
	fake_unpatched_kernel
	run -1 --separate-stderr "$ABPATH" set group_cputime legacy
	[[ $stderr == *"one built with CONFIG_ABPATH_HOOKS=y (patches/linux-6.12, patches/linux-6.1 or patches/linux-7.3)"* ]] ||
		fail "stderr: $stderr"
}

@test "set, reset and stats as a user say run as root and change nothing" {
	fake_module
	refused_as_user set group_cputime legacy
	assert_equal "$(cat "$ABPATH_SYSFS/group_cputime/mode")" 'legacy [optimized]'
	# sysfs reset is written by root only, like the real one (0200).
	chmod 0600 "$ABPATH_SYSFS/reset"
	refused_as_user reset
	assert_equal "$(cat "$ABPATH_SYSFS/reset")" 0
	# debugfs is root's only.
	chmod 0700 "$FAKE/sys/kernel/debug"
	refused_as_user stats
}

@test "reset writes 1 to sysfs reset, not to debugfs" {
	fake_module
	run -0 "$ABPATH" reset
	assert_output ''
	assert_equal "$(cat "$ABPATH_SYSFS/reset")" 1
	assert_equal "$(cat "$ABPATH_DEBUGFS/reset")" 0
}

@test "reset works without debugfs, which lockdown makes read-only" {
	fake_module stock
	rm -r "$FAKE/sys/kernel/debug"
	mkdir "$FAKE/sys/kernel/debug"
	chmod 0555 "$FAKE/sys/kernel/debug"
	run -0 --separate-stderr "$ABPATH" reset
	assert_equal "$stderr" ''
	assert_equal "$(cat "$ABPATH_SYSFS/reset")" 1
}

@test "reset without the module tells how to load it" {
	fake_kernel
	run -1 --separate-stderr "$ABPATH" reset
	[[ $stderr == *"module abpath is not loaded"*"abpath load"* ]]
}

# sysfs returns errors a regular file cannot: an LD_PRELOAD shim makes
# write() on a file named "mode" fail with $FAIL_ERRNO instead (0: take
# the write and stay optimized).
build_write_shim() {
	command -v cc >/dev/null || skip "no C compiler for the write() shim"
	cat >"$BATS_TEST_TMPDIR/shim.c" <<-'EOF'
		#define _GNU_SOURCE
		#include <dlfcn.h>
		#include <errno.h>
		#include <stdio.h>
		#include <stdlib.h>
		#include <string.h>
		#include <unistd.h>

		ssize_t write(int fd, const void *buf, size_t len)
		{
			static ssize_t (*real)(int, const void *, size_t);
			char link[64], path[4096];
			ssize_t n;

			if (!real)
				real = (ssize_t (*)(int, const void *, size_t))
					dlsym(RTLD_NEXT, "write");
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			n = readlink(link, path, sizeof(path) - 1);
			if (n > 5 && getenv("FAIL_ERRNO")) {
				path[n] = '\0';
				if (!strcmp(path + n - 5, "/mode")) {
					errno = atoi(getenv("FAIL_ERRNO"));
					if (errno)
						return -1;
					/* Taken, but the mode stays. */
					if (real(fd, "optimized\n", 10) < 0)
						return -1;
					return (ssize_t)len;
				}
			}
			return real(fd, buf, len);
		}
	EOF
	cc -shared -fPIC -o "$BATS_TEST_TMPDIR/shim.so" "$BATS_TEST_TMPDIR/shim.c" -ldl
}

@test "set names why a path cannot run legacy on this kernel" {
	build_write_shim
	fake_module stock
	local eopnotsupp=95
	echo "unavailable: update_process_times() does not call rcu_sched_clock_irq()" \
		>"$ABPATH_SYSFS/timer_softirq/site"
	run -1 --separate-stderr env LD_PRELOAD="$BATS_TEST_TMPDIR/shim.so" \
		FAIL_ERRNO=$eopnotsupp "$ABPATH" set timer_softirq legacy
	assert_equal "$stderr" "abpath: error: timer_softirq cannot run legacy on this kernel: unavailable: update_process_times() does not call rcu_sched_clock_irq()"
	run -1 --separate-stderr env LD_PRELOAD="$BATS_TEST_TMPDIR/shim.so" \
		FAIL_ERRNO=$eopnotsupp "$ABPATH" set all legacy
	assert_equal "$stderr" "abpath: error: timer_softirq cannot run legacy on this kernel (unavailable: update_process_times() does not call rcu_sched_clock_irq()), so no path was changed; set the others one by one with 'abpath set PATH legacy'"
}

@test "set reports a mode the module rejects" {
	build_write_shim
	fake_module
	local einval=22
	run -1 --separate-stderr env LD_PRELOAD="$BATS_TEST_TMPDIR/shim.so" \
		FAIL_ERRNO=$einval "$ABPATH" set group_cputime optimized
	[[ $stderr == "abpath: error: the module rejected 'optimized' for group_cputime"* ]]
}

@test "set says so when the module takes the write but does not switch" {
	build_write_shim
	fake_module
	run -1 --separate-stderr env LD_PRELOAD="$BATS_TEST_TMPDIR/shim.so" \
		FAIL_ERRNO=0 "$ABPATH" set exit_reparent legacy
	assert_equal "$stderr" "abpath: error: $ABPATH_SYSFS/exit_reparent/mode reads 'optimized' after writing 'legacy'; the module did not switch"
	# "all" is the module's to spread, path by path: its own file is not
	# read back.
	run -0 env LD_PRELOAD="$BATS_TEST_TMPDIR/shim.so" FAIL_ERRNO=0 \
		"$ABPATH" set all legacy
}
