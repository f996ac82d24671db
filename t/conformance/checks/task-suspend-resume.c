/* task-suspend-resume.c - a task that runs its child inside its taskwait is switched away from and back to, which OMPCOLLECTOR_EVENT_TASK's SUSPEND and RESUME rest on. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a task whose taskwait runs its child on its thread: task_schedule(parent, switch, child), then task_schedule(child, complete, parent) on that thread"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_task_create);
    ck_follow(ompt_callback_task_schedule);
}

static volatile int sink;

int main(void)
{
    /* One thread: the child can only run inside its parent's taskwait. */
#pragma omp parallel num_threads(1)
#pragma omp master
    {
#pragma omp task
        {
#pragma omp task
            sink = 1;
#pragma omp taskwait
        }
#pragma omp taskwait
    }
    ck_require_tool();
    int parent = ck_find(-1, 0, EV_TASK_CREATE, -1, -1);
    while (parent >= 0 && !(ck_log[parent].kind & ompt_task_explicit))
        parent = ck_find(parent, 0, EV_TASK_CREATE, -1, -1);
    int child = parent >= 0 ? ck_find(parent, -1, EV_TASK_CREATE, -1, -1) : -1;
    uint64_t p = parent >= 0 ? ck_log[parent].a : 0, c = child >= 0 ? ck_log[child].a : 0;
    int away = -1, back = -1;
    for (int i = ck_find(child, -1, EV_TASK_SCHEDULE, -1, -1); i >= 0; i = ck_find(i, -1, EV_TASK_SCHEDULE, -1, -1)) {
        if (away < 0 && ck_log[i].a == p && ck_log[i].b == c)
            away = i;
        if (away >= 0 && back < 0 && ck_log[i].a == c && ck_log[i].b == p && ck_log[i].kind == ompt_task_complete
            && ck_log[i].thread == ck_log[away].thread)
            back = i;
    }
    ck_result(p != 0 && c != 0 && away >= 0 && back > away, "parent created at %d, child at %d, away at %d, back at %d",
              parent, child, away, back);
}
