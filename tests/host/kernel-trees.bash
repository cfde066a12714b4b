# The patched kernel trees tests/vm/build-kernel keeps in the cache, for
# the host tests that read them.

CACHE=${ABPATH_CACHE:-/var/cache/abpath}

# objects_only VERSION: skips when the cache has no whole VERSION tree:
# make check (CI) builds only the objects VERSION's hook patch touches
# (tests/bin/check), and make check-host builds none.
# The Makefile says so in ABPATH_OBJECTS_ONLY; bats run by hand finds it
# the Makefile's way, a tree with no Module.symvers.
objects_only() {
	if [[ " ${ABPATH_OBJECTS_ONLY:-} " == *" $1 "* ]] ||
		[ ! -f "$CACHE/build-$1-default/Module.symvers" ]; then
		skip "no whole $1 tree: make check builds only the objects the $1 series touches; make check-full builds the kernel"
	fi
}
