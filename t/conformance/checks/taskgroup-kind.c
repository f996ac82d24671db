/* taskgroup-kind.c - a taskgroup is reported as a sync region of its own kind. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "#pragma omp taskgroup is a sync_region of kind taskgroup with begin and end"
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
#pragma omp taskgroup
    {
#pragma omp task
        sink = 1;
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_SYNC_REGION, ompt_sync_region_taskgroup, ompt_scope_begin);
    int end = ck_find(begin, 0, EV_SYNC_REGION, ompt_sync_region_taskgroup, ompt_scope_end);
    ck_result(begin >= 0 && end >= 0, "taskgroup begin at %d, end at %d", begin, end);
}
