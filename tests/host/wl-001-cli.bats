#!/usr/bin/env bats
# Workloads: the command-line contract (help, usage errors, exit codes).

load wl-common

setup_file() {
	wl_build
}

@test "every workload is built" {
	for w in $WL_ALL; do
		[ -x "$WL_DIR/$w" ] || fail "$w missing"
	done
}

@test "--help and -h print usage on stdout and exit 0" {
	for w in $WL_ALL; do
		run -0 --separate-stderr "$WL_DIR/$w" --help
		assert_line --index 0 "Usage: $w [OPTIONS]"
		assert_output --partial "--json"
		[ -z "$stderr" ] || fail "$w --help wrote to stderr"
		run -0 "$WL_DIR/$w" -h
		assert_line --index 0 "Usage: $w [OPTIONS]"
	done
}

@test "an unknown option exits 2 with usage on stderr" {
	for w in $WL_ALL; do
		run -2 --separate-stderr "$WL_DIR/$w" --no-such-option
		assert_output ""
		[[ $stderr == *"Usage: $w [OPTIONS]"* ]] || fail "$w: no usage: $stderr"
		run -2 "$WL_DIR/$w" -Z
	done
}

@test "a positional argument exits 2" {
	for w in $WL_ALL; do
		run -2 --separate-stderr "$WL_DIR/$w" extra
		[[ $stderr == *"unexpected argument 'extra'"* ]] || fail "$w: $stderr"
	done
}

@test "bad option values exit 2 and name the option" {
	local -a bad=(
		"pound-times -n 0" "pound-times -c x" "pound-clock --threads=-1"
		"forkexit -i 0" "forkexit -N 1.5" "thread-churn -m abc"
		"itimer-threads -I 0" "itimer-threads -t 0" "itimer-threads --tolerance=-1"
		"itimer-threads -w 5 -W 5" "itimer-threads --initial 0" "itimer-threads -W x"
		"sleep-loop -T bogus" "sleep-loop -T select,select" "sleep-loop -s -5"
		"softirq-rate -S nope" "softirq-rate -t 0" "softirq-rate -k -1"
	)
	for cmd in "${bad[@]}"; do
		local -a argv=($cmd)
		run -2 --separate-stderr "$WL_DIR/${argv[0]}" "${argv[@]:1}"
		[[ $stderr == "${argv[0]}: "* ]] || fail "$cmd: $stderr"
		[[ $stderr == *"Usage: ${argv[0]}"* ]] || fail "$cmd: no usage"
	done
}

@test "make STATIC=1 links static binaries, make clean removes them" {
	local d="$BATS_TEST_TMPDIR/src"
	mkdir "$d"
	cp "$WL_DIR"/*.[ch] "$WL_DIR/Makefile" "$d/"
	run -0 make -s -C "$d" STATIC=1 forkexit
	run -0 file "$d/forkexit"
	assert_output --partial "statically linked"
	run -0 make -s -C "$d" install DESTDIR="$d/root" LIBEXECDIR=/lx
	[ -x "$d/root/lx/abpath/softirq-rate" ]
	run -0 make -s -C "$d" clean
	[ ! -e "$d/forkexit" ] && [ ! -e "$d/wl.o" ]
}
