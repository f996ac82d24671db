/* work-single.c - a single construct is reported as executor on one thread and other on the rest. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a single construct in a team of three gives work single_executor on one thread and single_other on two"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_work);
}

static volatile int sink;

int main(void)
{
#pragma omp parallel num_threads(3)
    {
#pragma omp single
        sink = 1;
    }
    ck_require_tool();
    int executors = ck_count(-1, EV_WORK, ompt_work_single_executor, ompt_scope_begin);
    int others = ck_count(-1, EV_WORK, ompt_work_single_other, ompt_scope_begin);
    ck_result(executors == 1 && others == 2, "%d executors, %d others", executors, others);
}
