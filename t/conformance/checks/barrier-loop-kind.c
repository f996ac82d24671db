/* barrier-loop-kind.c - the barrier ending a loop in clang code is reported as an implicit barrier. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "the barrier ending a worksharing loop (clang code) is a sync_region of kind barrier_implicit_workshare (or barrier_implicit)"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_sync_region);
}

static volatile int sink[64];

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 64; i++)
            sink[i] = i;
        /* Code after the loop keeps gcc from merging its barrier into the region's. */
        sink[omp_get_thread_num()] += 1;
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_SYNC_REGION, -1, ompt_scope_begin);
    int kind = begin >= 0 ? ck_log[begin].kind : -1;
    ck_result(kind == ompt_sync_region_barrier_implicit_workshare || kind == ompt_sync_region_barrier_implicit,
              "the loop's barrier's kind %d", kind);
}
