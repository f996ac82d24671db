#!/bin/sh
# lifecycle-t.sh - the shim over a process's life on real libomp: 1000 START/REGISTER/STOP cycles (LeakSanitizer in ASan builds), fork, exec, dlclose, and a program with no OpenMP runtime at all; clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
# LIFECYCLE_CYCLES (default 1000) sets the number of cycles.  The rendezvous
# group (rendezvous-t.sh) covers the loading routes themselves.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
use_sanitizer_symbolizer

for cc in $(workload_compilers); do
    binary=$(build_workload "$cc" lifecycle.c lifecycle) || {
        tap_result fail "$cc: lifecycle workload builds"
        continue
    }
    gcc_flag=
    [ "$cc" = gcc ] && gcc_flag=WORKLOAD_IS_GCC=1
    for route in $(runtime_routes "$cc"); do
        route_name=$(route_label "$cc" "$route")
        run_routed "$route" "$route_name cycles" "$SHIM" $gcc_flag "$binary" cycles
        run_routed "$route" "$route_name fork" "$SHIM" $gcc_flag "$binary" fork
        run_routed "$route" "$route_name exec" "$SHIM" $gcc_flag "$binary" exec
        run_routed "$route" "$route_name dlclose" "" $gcc_flag "$binary" dlclose "$SHIM"
    done

    # No OpenMP anywhere: built without -fopenmp, only the shim preloaded.
    serial="$top_builddir/t/omp/bin-$cc/lifecycle-serial"
    # shellcheck disable=SC2086
    if "$cc" -std=gnu11 -O1 -g ${SANITIZER_CFLAGS:-} -I"$top_srcdir/include" -o "$serial" \
        "$top_srcdir/t/omp/lifecycle-serial.c" -ldl -lpthread >"$serial.build.log" 2>&1; then
        run_workload "$cc no OpenMP runtime" env LD_PRELOAD="$SHIM" "$serial"
    else
        sed 's/^/# /' "$serial.build.log"
        tap_result fail "$cc: lifecycle-serial builds"
    fi
done
tap_finish
