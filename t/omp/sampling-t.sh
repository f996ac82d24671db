#!/bin/sh
# sampling-t.sh - STATE and CURRENT_PRID from signal handlers at 10 kHz per thread over a workload that sits in each state, clang and gcc code.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
for cc in $(workload_compilers); do
    binary=$(build_workload "$cc" sampling.c sampling -lrt) || { tap_result fail "$cc: sampling workload builds"; continue; }
    gcc_flag=
    [ "$cc" = gcc ] && gcc_flag=WORKLOAD_IS_GCC=1
    run_workload "$cc" env LD_PRELOAD="$LIBOMP $SHIM" $gcc_flag "$binary"
done
tap_finish
