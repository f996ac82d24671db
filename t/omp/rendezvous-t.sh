#!/bin/sh
# rendezvous-t.sh - a collector finds the shim and runs a session on real libomp by every loading route, with clang- and gcc-compiled workloads.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
shim_dir=$(dirname "$SHIM")

for cc in $(workload_compilers); do
    plain=$(build_workload "$cc" workload.c workload) || { tap_result fail "$cc: workload builds"; continue; }
    linked=$(build_workload "$cc" workload.c workload-linked -L"$shim_dir" -Wl,--no-as-needed -lompcollector \
        -Wl,-rpath,"$shim_dir") || { tap_result fail "$cc: linked workload builds"; continue; }

    run_workload "$cc linked" env LD_PRELOAD="$LIBOMP" WORKLOAD_START_IN_CTOR=1 "$linked" session
    run_workload "$cc LD_PRELOAD" env LD_PRELOAD="$LIBOMP $SHIM" WORKLOAD_START_IN_CTOR=1 "$plain" session
    run_workload "$cc OMP_TOOL_LIBRARIES" env LD_PRELOAD="$LIBOMP" OMP_TOOL_LIBRARIES="$SHIM" "$plain" session
    run_workload "$cc dlopen RTLD_GLOBAL before init" env LD_PRELOAD="$LIBOMP" WORKLOAD_DLOPEN="$SHIM" \
        WORKLOAD_START_IN_CTOR=1 "$plain" session
    run_workload "$cc dlopen after init" env LD_PRELOAD="$LIBOMP" SHIM="$SHIM" "$plain" late-dlopen
    run_workload "$cc OMP_TOOL=disabled" env LD_PRELOAD="$LIBOMP $SHIM" OMP_TOOL=disabled "$plain" refused
    run_workload "$cc no parallel region" env LD_PRELOAD="$LIBOMP $SHIM" WORKLOAD_START_IN_CTOR=1 "$plain" no-openmp
done
tap_finish
