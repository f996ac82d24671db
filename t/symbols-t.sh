#!/bin/sh
# symbols-t.sh - the installed library exports exactly __omp_collector_api and ompt_start_tool, and links no OpenMP runtime.
# SPDX-License-Identifier: BSD-3-Clause
lib=${SHIM:?SHIM must name the built libompcollector.so}
echo "1..3"
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' | sort | tr '\n' ' ')
if [ "$exports" = "__omp_collector_api ompt_start_tool " ]; then
    echo "ok 1 - exactly two dynamic symbols are exported"
else
    echo "not ok 1 - exactly two dynamic symbols are exported"
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
