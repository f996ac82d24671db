/* gcc-explicit-barrier.c - a barrier directive in gcc code is reported as an explicit barrier. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: gcc */
#define CHECK_MEANING "#pragma omp barrier in gcc code (GOMP_barrier) is a sync_region of kind barrier_explicit"
#define KNOWN_BUG "libomp's GOMP_barrier reports barrier_implementation, the kind it also gives gcc's loop-ending barriers (lib/gomp.c works around it)"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_sync_region);
}

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_SYNC_REGION, -1, ompt_scope_begin);
    int kind = begin >= 0 ? ck_log[begin].kind : -1;
    ck_result(kind == ompt_sync_region_barrier_explicit, "first barrier's kind %d", kind);
}
