# abpath's paths, from the module's one table of them (module/paths.h),
# for every test, in the VM or on the host, that goes over all of them.
# The VM image carries the table at the same place relative to this file
# (/abpath/module/paths.h and its reader, module/tables, beside
# /abpath/tests/suite/), so the suite
# checks what the running module shows against what it was built from,
# not against itself. tests/host/paths-table.bats finds every list of
# the paths still written by hand and checks it against the table.
# shellcheck shell=bash

PATHS_H=$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)/module/paths.h

# module_paths [PATHS_H], backend_requires BACKEND, resolution_requires
# RESOLUTION, resolutions, requires_table: the one shell reader of
# paths.h and requires.h, beside them (module/tables).
. "${PATHS_H%/*}/tables"
