#!/bin/sh
# stress-t.sh - control requests (REGISTER, UNREGISTER, PAUSE, RESUME, STOP, START) race events and samples on real libomp, and the issue-11 reproducer, clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
# STRESS_SECONDS (default 3) and REPRODUCER_SECONDS (default 2) set how long each run lasts.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
use_sanitizer_symbolizer
stress_s=${STRESS_SECONDS:-3} reproducer_s=${REPRODUCER_SECONDS:-2}
WORKLOAD_TIMEOUT=$((${stress_s%.*} + ${reproducer_s%.*} + 180))

for cc in $(workload_compilers); do
    binary=$(build_workload "$cc" stress.c stress "$top_srcdir/t/omp/sampler.c" -lpthread -lrt) || {
        tap_result fail "$cc: stress workload builds"
        continue
    }
    gcc_flag=
    [ "$cc" = gcc ] && gcc_flag=WORKLOAD_IS_GCC=1
    for route in $(runtime_routes "$cc"); do
        route_name=$(route_label "$cc" "$route")
        run_routed "$route" "$route_name stress" "$SHIM" $gcc_flag "$binary" stress
        run_routed "$route" "$route_name reproducer" "$SHIM" $gcc_flag "$binary" reproducer
    done
done
tap_finish
