/* taskwait-kind.c - a taskwait is reported as a sync region of its own kind. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "#pragma omp taskwait is a sync_region of kind taskwait with begin and end"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_sync_region);
}

static volatile int sink;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp master
    {
#pragma omp task
        sink = 1;
#pragma omp taskwait
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_SYNC_REGION, ompt_sync_region_taskwait, ompt_scope_begin);
    int end = ck_find(begin, 0, EV_SYNC_REGION, ompt_sync_region_taskwait, ompt_scope_end);
    ck_result(begin >= 0 && end >= 0, "taskwait begin at %d, end at %d", begin, end);
}
