/* parallel-order.c - the encountering thread sees parallel_begin, its implicit task's begin and end, then parallel_end. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "on the master: parallel_begin, implicit_task begin, implicit_task end, parallel_end, in that order, for one parallel_data"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
    ck_follow(ompt_callback_parallel_end);
    ck_follow(ompt_callback_implicit_task);
}

/* A region with a body: gcc drops an empty one altogether. */
static volatile int sink;

int main(void)
{
#pragma omp parallel num_threads(2)
    sink = 1;
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    int task_begin = ck_find(begin, 0, EV_IMPLICIT_TASK, -1, ompt_scope_begin);
    int task_end = ck_find(task_begin, 0, EV_IMPLICIT_TASK, -1, ompt_scope_end);
    int end = ck_find(task_end, 0, EV_PARALLEL_END, -1, -1);
    ck_result(begin >= 0 && task_begin >= 0 && task_end >= 0 && end >= 0
                  && ck_log[begin].a == ck_log[task_begin].a && ck_log[begin].a == ck_log[end].a,
              "events at %d %d %d %d", begin, task_begin, task_end, end);
}
