/* implicit-task-end.c - every team member's implicit task ends after its implicit barrier. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "on every thread of a team, implicit_task end follows the end of the region's implicit barrier"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_implicit_task);
    ck_follow(ompt_callback_sync_region);
}

static _Atomic int arrived;

int main(void)
{
#pragma omp parallel num_threads(2)
    (void)0;
    /* A worker ends its first task before it joins the second region: counting there waits for it. */
#pragma omp parallel num_threads(2)
    atomic_fetch_add(&arrived, 1);
    ck_require_tool();
    int threads = atomic_load(&ck_threads), checked = 0;
    for (int t = 0; t < threads; t++) {
        int begin = ck_find(-1, t, EV_IMPLICIT_TASK, -1, ompt_scope_begin);
        if (begin < 0 || !(ck_log[begin].kind & ompt_task_implicit))
            begin = ck_find(begin, t, EV_IMPLICIT_TASK, -1, ompt_scope_begin);
        if (begin < 0)
            continue;
        int barrier_end = ck_find(begin, t, EV_SYNC_REGION, -1, ompt_scope_end);
        int task_end = ck_find(begin, t, EV_IMPLICIT_TASK, -1, ompt_scope_end);
        if (barrier_end < 0 || task_end < 0 || task_end < barrier_end)
            ck_result(0, "thread %d: barrier end at %d, implicit task end at %d", t, barrier_end, task_end);
        checked++;
    }
    ck_result(checked >= 2, "%d threads checked", checked);
}
