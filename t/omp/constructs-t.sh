#!/bin/sh
# constructs-t.sh - explicit barriers, master and ordered as clang and gcc code report them: with OMPCOLLECTOR_GCC_BARRIERS=explicit gcc's GOMP_barrier calls read EBAR where the shim's definition is found first; REGISTER says UNSUPPORTED where they cannot, and for gcc's inlined master.
# SPDX-License-Identifier: BSD-3-Clause
. "$top_srcdir/t/omp/tap-lib.sh"
require_libomp
for cc in $(workload_compilers); do
    # -rdynamic: the workload's own ompt_start_tool must be the one libomp finds.
    binary=$(build_workload "$cc" constructs.c constructs "$top_srcdir/t/omp/sampler.c" "$top_srcdir/t/omp/chain.c" -rdynamic -I"$top_srcdir/compat" -lrt) || {
        tap_result fail "$cc: constructs workload builds"
        continue
    }
    if [ "$cc" != gcc ]; then
        run_workload "$cc" env LD_PRELOAD="$LIBOMP $SHIM" "$binary"
        continue
    fi
    # OMPCOLLECTOR_GCC_BARRIERS=explicit takes gcc's GOMP_barrier calls for explicit barriers.
    run_workload "gcc, shim preloaded ahead of libomp, GOMP_barrier explicit" env \
        LD_PRELOAD="$SHIM $LIBOMP" OMPCOLLECTOR_GCC_BARRIERS=explicit WORKLOAD_IS_GCC=1 \
        EXPECT_GCC_EBAR=1 "$binary"
    if link_dir=$(gomp_link_dir); then
        run_workload "gcc, shim preloaded, libomp as libgomp.so.1, GOMP_barrier explicit" env \
            LD_PRELOAD="$SHIM" LD_LIBRARY_PATH="$link_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            EXPECT_NO_GNU_LIBGOMP=1 OMPCOLLECTOR_GCC_BARRIERS=explicit WORKLOAD_IS_GCC=1 \
            EXPECT_GCC_EBAR=1 "$binary"
    else
        tap_result fail "gcc: a libgomp.so.1 link to $expected_runtime can be made"
    fi
    run_workload "gcc, shim preloaded ahead of libomp, no setting" env LD_PRELOAD="$SHIM $LIBOMP" \
        WORKLOAD_IS_GCC=1 EXPECT_GCC_EBAR=0 "$binary"
    run_workload "gcc, libomp preloaded ahead of the shim" env LD_PRELOAD="$LIBOMP $SHIM" \
        OMPCOLLECTOR_GCC_BARRIERS=explicit WORKLOAD_IS_GCC=1 EXPECT_GCC_EBAR=0 "$binary"
    run_workload "gcc, shim loaded by the runtime (OMP_TOOL_LIBRARIES)" env LD_PRELOAD="$LIBOMP" \
        OMP_TOOL_LIBRARIES="$SHIM" OMPCOLLECTOR_GCC_BARRIERS=explicit WORKLOAD_IS_GCC=1 \
        EXPECT_GCC_EBAR=0 "$binary"
done
tap_finish
