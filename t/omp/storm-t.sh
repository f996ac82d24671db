#!/bin/sh
# storm-t.sh - a 10 kHz per-thread signal storm samples STATE + CURRENT_PRID on every OpenMP thread while control requests race events (t/omp/stress.c storm), with a watchdog for hangs, clang and gcc code by every route to libomp.
# SPDX-License-Identifier: BSD-3-Clause
# STORM_SECONDS (default 2; CI sets 5) sets how long each run lasts.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
use_sanitizer_symbolizer
seconds=${STORM_SECONDS:-2}
WORKLOAD_TIMEOUT=$((${seconds%.*} + 180))

for cc in $(workload_compilers); do
    binary=$(build_workload "$cc" stress.c storm "$top_srcdir/t/omp/sampler.c" -lpthread -lrt) || {
        tap_result fail "$cc: storm workload builds"
        continue
    }
    gcc_flag=
    [ "$cc" = gcc ] && gcc_flag=WORKLOAD_IS_GCC=1
    for route in $(runtime_routes "$cc"); do
        run_routed "$route" "$(route_label "$cc" "$route") storm" "$SHIM" $gcc_flag "$binary" storm
    done
done
tap_finish
