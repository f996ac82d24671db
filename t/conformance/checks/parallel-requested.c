/* parallel-requested.c - parallel_begin reports the team size the program asked for. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "parallel_begin's requested_parallelism is the num_threads clause's value"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
}

int main(void)
{
#pragma omp parallel num_threads(3)
    (void)0;
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    ck_result(begin >= 0 && ck_log[begin].b == 3, "requested %d",
              begin >= 0 ? (int)ck_log[begin].b : -1);
}
