/* task-info-implicit.c - ompt_get_task_info at level 0 in a region describes the thread's implicit task. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "in a parallel region, ompt_get_task_info(0) gives implicit-task flags, the region's parallel_data and the thread's number, on every thread"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
}

static _Atomic int bad = -1;
static uint64_t seen[2];

int main(void)
{
#pragma omp parallel num_threads(2)
    {
        int flags = 0, thread_num = -1, me = omp_get_thread_num();
        ompt_data_t *task = NULL, *parallel = NULL;
        ompt_frame_t *frame = NULL;
        int answer = ck_get_task_info(0, &flags, &task, &frame, &parallel, &thread_num);
        seen[me] = parallel ? parallel->value : 0;
        if (answer != 2 || !(flags & ompt_task_implicit) || thread_num != me)
            atomic_store(&bad, me);
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    ck_result(bad == -1 && begin >= 0 && seen[0] == ck_log[begin].a && seen[1] == ck_log[begin].a,
              "thread %d answered wrongly; parallel data %llu and %llu", (int)bad, (unsigned long long)seen[0],
              (unsigned long long)seen[1]);
}
