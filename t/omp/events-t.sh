#!/bin/sh
# events-t.sh - a recording collector checks per-thread event sequences for every construct on real libomp, clang and gcc code.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
for cc in $(workload_compilers); do
    binary=$(build_workload "$cc" events.c events) || { tap_result fail "$cc: events workload builds"; continue; }
    gcc_flag=
    [ "$cc" = gcc ] && gcc_flag=WORKLOAD_IS_GCC=1
    run_workload "$cc" env LD_PRELOAD="$LIBOMP $SHIM" $gcc_flag "$binary"
done
tap_finish
