/* barrier-implicit-kind.c - the barrier ending a parallel region is reported as an implicit one. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "the barrier at the end of a parallel region is a sync_region of kind barrier_implicit_parallel (or 5.0's barrier_implicit)"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_sync_region);
}

/* A region with a body: gcc drops an empty one altogether. */
static volatile int sink;

int main(void)
{
#pragma omp parallel num_threads(2)
    sink = 1;
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_SYNC_REGION, -1, ompt_scope_begin);
    int kind = begin >= 0 ? ck_log[begin].kind : -1;
    ck_result(kind == ompt_sync_region_barrier_implicit_parallel || kind == ompt_sync_region_barrier_implicit,
              "kind %d", kind);
}
