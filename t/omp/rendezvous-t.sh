#!/bin/sh
# rendezvous-t.sh - a collector finds the shim and runs a session on real libomp by every loading route, with clang- and gcc-compiled workloads, gcc's by both routes to libomp.
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
shim_dir=$(dirname "$SHIM")

for cc in $(workload_compilers); do
    plain=$(build_workload "$cc" workload.c workload) || { tap_result fail "$cc: workload builds"; continue; }
    linked=$(build_workload "$cc" workload.c workload-linked -L"$shim_dir" -Wl,--no-as-needed -lompcollector \
        -Wl,-rpath,"$shim_dir") || { tap_result fail "$cc: linked workload builds"; continue; }

    for route in $(runtime_routes "$cc"); do
        prefix=$(route_label "$cc" "$route")
        run_routed "$route" "$prefix linked" "" WORKLOAD_START_IN_CTOR=1 "$linked" session
        run_routed "$route" "$prefix LD_PRELOAD" "$SHIM" WORKLOAD_START_IN_CTOR=1 "$plain" session
        run_routed "$route" "$prefix OMP_TOOL_LIBRARIES" "" OMP_TOOL_LIBRARIES="$SHIM" "$plain" session
        run_routed "$route" "$prefix dlopen RTLD_GLOBAL before init" "" WORKLOAD_DLOPEN="$SHIM" \
            WORKLOAD_START_IN_CTOR=1 "$plain" session
        run_routed "$route" "$prefix dlopen after init" "" SHIM="$SHIM" "$plain" late-dlopen
        run_routed "$route" "$prefix OMP_TOOL=disabled" "$SHIM" OMP_TOOL=disabled "$plain" refused
        run_routed "$route" "$prefix no parallel region" "$SHIM" WORKLOAD_START_IN_CTOR=1 "$plain" no-openmp
    done
done
tap_finish
