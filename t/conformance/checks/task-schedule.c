/* task-schedule.c - an explicit task is switched to and completes, in task_schedule's terms. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "an explicit task's life: task_create, a task_schedule switching to it, then one leaving it with status complete"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_task_create);
    ck_follow(ompt_callback_task_schedule);
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
    int create = ck_find(-1, 0, EV_TASK_CREATE, -1, -1);
    while (create >= 0 && !(ck_log[create].kind & ompt_task_explicit))
        create = ck_find(create, 0, EV_TASK_CREATE, -1, -1);
    uint64_t task = create >= 0 ? ck_log[create].a : 0;
    int start = -1, complete = -1;
    for (int i = ck_find(create, -1, EV_TASK_SCHEDULE, -1, -1); i >= 0; i = ck_find(i, -1, EV_TASK_SCHEDULE, -1, -1)) {
        if (start < 0 && ck_log[i].b == task)
            start = i;
        if (start >= 0 && ck_log[i].a == task && ck_log[i].kind == ompt_task_complete
            && ck_log[i].thread == ck_log[start].thread)
            complete = i;
    }
    ck_result(task != 0 && start >= 0 && complete > start, "created at %d, switched to at %d, completed at %d",
              create, start, complete);
}
