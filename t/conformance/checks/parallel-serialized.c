/* parallel-serialized.c - a serialized parallel region is still reported, as a team of one. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a parallel if(0) region gets parallel_begin and an implicit task with actual_parallelism 1"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
    ck_follow(ompt_callback_implicit_task);
}

int main(void)
{
    volatile int run = 0;
#pragma omp parallel if (run)
    (void)0;
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    int task = ck_find(begin, 0, EV_IMPLICIT_TASK, -1, ompt_scope_begin);
    ck_result(begin >= 0 && task >= 0 && (ck_log[task].b >> 32) == 1, "parallel_begin at %d, implicit task at %d",
              begin, task);
}
