#!/bin/sh
# rendezvous-t.sh - a collector finds the shim and runs a session on real libomp by every loading route, with clang- and gcc-compiled workloads, gcc's by both routes to libomp.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
shim_dir=$(dirname "$SHIM")

for cc in $(workload_compilers); do
    plain=$(build_workload "$cc" workload.c workload) || { tap_result fail "$cc: workload builds"; continue; }
    linked=$(build_workload "$cc" workload.c workload-linked -L"$shim_dir" -Wl,--no-as-needed -lompcollector \
        -Wl,-rpath,"$shim_dir") || { tap_result fail "$cc: linked workload builds"; continue; }

    main_dlopen=$(build_workload "$cc" dlopen-main.c dlopen-main) || { tap_result fail "$cc: dlopen-main builds"; continue; }
    main_dlopen_construct=$(build_workload "$cc" dlopen-main.c dlopen-main-construct -DCONSTRUCT_IN_MAIN) ||
        { tap_result fail "$cc: dlopen-main with a construct builds"; continue; }
    # clang enters libomp in the prologue of a function holding a construct; gcc only at the construct.
    construct_expect=attached
    [ "$cc" = clang ] && construct_expect=too-late

    for route in $(runtime_routes "$cc"); do
        prefix=$(route_label "$cc" "$route")
        run_routed "$route" "$prefix dlopen RTLD_GLOBAL from main" "" SHIM="$SHIM" "$main_dlopen" attached
        run_routed "$route" "$prefix dlopen RTLD_GLOBAL from a main holding a construct" "" SHIM="$SHIM" \
            "$main_dlopen_construct" "$construct_expect"
        run_routed "$route" "$prefix linked" "" WORKLOAD_START_IN_CTOR=1 "$linked" session
        run_routed "$route" "$prefix LD_PRELOAD" "$SHIM" WORKLOAD_START_IN_CTOR=1 "$plain" session
        run_routed "$route" "$prefix OMP_TOOL_LIBRARIES" "" OMP_TOOL_LIBRARIES="$SHIM" "$plain" session
        run_routed "$route" "$prefix dlopen RTLD_GLOBAL from a constructor" "" WORKLOAD_DLOPEN="$SHIM" \
            WORKLOAD_START_IN_CTOR=1 "$plain" session
        run_routed "$route" "$prefix dlopen after init" "" SHIM="$SHIM" "$plain" late-dlopen
        run_routed "$route" "$prefix OMP_TOOL=disabled" "$SHIM" OMP_TOOL=disabled "$plain" refused
        run_routed "$route" "$prefix no parallel region" "$SHIM" WORKLOAD_START_IN_CTOR=1 "$plain" no-openmp
    done
done
tap_finish
