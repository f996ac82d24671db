/* task-info-nested.c - from a nested region's implicit task, ompt_get_task_info level 1 is the outer region's implicit task. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "in a nested region, ompt_get_task_info(1) gives the encountering implicit task of the outer region (the outer parallel_data)"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
}

static int answer, flags;
static uint64_t parallel_seen;

int main(void)
{
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0) {
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 0) {
            ompt_data_t *parallel = NULL;
            answer = ck_get_task_info(1, &flags, NULL, NULL, &parallel, NULL);
            parallel_seen = parallel ? parallel->value : 0;
        }
    }
    ck_require_tool();
    int outer = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    ck_result(answer == 2 && (flags & ompt_task_implicit) && outer >= 0 && parallel_seen == ck_log[outer].a,
              "answer %d, flags 0x%x, parallel %llu", answer, (unsigned)flags, (unsigned long long)parallel_seen);
}
