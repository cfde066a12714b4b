# The patched kernel trees tests/vm/build-kernel keeps in the cache, for
# the host tests that read them.

CACHE=${ABPATH_CACHE:-/var/cache/abpath}

# objects_only VERSION: skips when CI built only the objects VERSION's
# hook patch touches (tests/bin/check), so there is no whole tree.
objects_only() {
	[[ " ${ABPATH_OBJECTS_ONLY:-} " != *" $1 "* ]] ||
		skip "CI builds only the objects the $1 series touches; make check-full builds the kernel"
}
