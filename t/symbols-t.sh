#!/bin/sh
# symbols-t.sh - the installed library exports exactly __omp_collector_api, ompt_start_tool and the two GOMP barrier entry points it forwards, and links no OpenMP runtime.
# SPDX-License-Identifier: BSD-3-Clause
lib=${SHIM:?SHIM must name the built libompcollector.so}
echo "1..3"
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' | LC_ALL=C sort | tr '\n' ' ')
# GOMP_barrier and GOMP_barrier_cancel: gcc code's explicit barriers, forwarded to the runtime (lib/gomp.c).
if [ "$exports" = "GOMP_barrier GOMP_barrier_cancel __omp_collector_api ompt_start_tool " ]; then
    echo "ok 1 - exactly four dynamic symbols are exported: the API, the OMPT entry, GOMP_barrier(_cancel)"
else
    echo "not ok 1 - exactly four dynamic symbols are exported: the API, the OMPT entry, GOMP_barrier(_cancel)"
    echo "# exported: $exports"
fi
needed=$(readelf -d "$lib" | awk '/NEEDED/ { print $5 }' | tr '\n' ' ')
case $needed in
    *omp*) echo "not ok 2 - no OpenMP runtime among DT_NEEDED # $needed" ;;
    *) echo "ok 2 - no OpenMP runtime among DT_NEEDED" ;;
esac
if readelf -d "$lib" | grep -q 'SONAME.*libompcollector\.so\.0'; then
    echo "ok 3 - libtool-versioned soname libompcollector.so.0"
else
    echo "not ok 3 - libtool-versioned soname libompcollector.so.0"
fi
