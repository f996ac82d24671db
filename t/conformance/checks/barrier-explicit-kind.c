/* barrier-explicit-kind.c - a barrier directive in clang code is reported as an explicit barrier. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "#pragma omp barrier (clang code) is a sync_region of kind barrier_explicit"
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
