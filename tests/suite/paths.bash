# abpath's paths, from the module's one table of them (module/paths.h),
# for every test, in the VM or on the host, that goes over all of them.
# The VM image carries the table at the same place relative to this file
# (/abpath/module/paths.h beside /abpath/tests/suite/), so the suite
# checks what the running module shows against what it was built from,
# not against itself. tests/host/paths-table.bats finds every list of
# the paths still written by hand and checks it against the table.
# shellcheck shell=bash

PATHS_H=$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)/module/paths.h

# module_paths [PATHS_H]: one path a line, in the table's order (each
# path's id: the order of every per-path parameter, of sysfs and of the
# stats). The ABPATH_PATH() lines, read as Kbuild reads them.
module_paths() {
	sed -n 's/^ABPATH_PATH(\([a-z0-9_]*\))$/\1/p' "${1:-$PATHS_H}"
}

# backend_requires BACKEND: the config options BACKEND needs, one a line,
# from module/requires.h beside paths.h, as dkms.conf reads them.
backend_requires() {
	sed -n "s/^ABPATH_REQUIRE($1, \(CONFIG_[A-Z0-9_]*\), .*/\1/p" \
		"${PATHS_H%/*}/requires.h"
}

# resolution_requires RESOLUTION: the config options the stock backend's
# RESOLUTION (livepatch, kallsyms) needs, one a line, from requires.h.
resolution_requires() {
	sed -n "s/^ABPATH_RESOLVE($1, \(CONFIG_[A-Z0-9_]*\), .*/\1/p" \
		"${PATHS_H%/*}/requires.h"
}
