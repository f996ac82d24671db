/* task-info-explicit.c - ompt_get_task_info at level 0 in an explicit task describes that task. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "in an explicit task, ompt_get_task_info(0) gives explicit-task flags, the task_data task_create gave and the team's parallel_data"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
    ck_follow(ompt_callback_task_create);
}

static int answer, flags;
static uint64_t task_seen, parallel_seen;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp master
    {
#pragma omp task
        {
            ompt_data_t *task = NULL, *parallel = NULL;
            ompt_frame_t *frame = NULL;
            int thread_num;
            answer = ck_get_task_info(0, &flags, &task, &frame, &parallel, &thread_num);
            task_seen = task ? task->value : 0;
            parallel_seen = parallel ? parallel->value : 0;
        }
#pragma omp taskwait
    }
    ck_require_tool();
    int region = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    int create = ck_find(region, 0, EV_TASK_CREATE, -1, -1);
    ck_result(answer == 2 && (flags & ompt_task_explicit) && create >= 0 && task_seen == ck_log[create].a
                  && parallel_seen == ck_log[region].a,
              "answer %d, flags 0x%x, task %llu, parallel %llu", answer, (unsigned)flags,
              (unsigned long long)task_seen, (unsigned long long)parallel_seen);
}
