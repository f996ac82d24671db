/* implicit-task-index.c - each team member's implicit task begins with its own index and the team's size. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "implicit_task begin fires once per team member with distinct indices 0..n-1, actual_parallelism n and the region's parallel_data"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
    ck_follow(ompt_callback_implicit_task);
}

int main(void)
{
    int team = 0;
#pragma omp parallel num_threads(3)
#pragma omp master
    team = omp_get_num_threads();
    ck_require_tool();
    /* Every begin precedes its thread's share of the region, which the master's return waits for. */
    int begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    unsigned seen = 0;
    int count = 0;
    for (int i = ck_find(-1, -1, EV_IMPLICIT_TASK, -1, ompt_scope_begin); i >= 0;
         i = ck_find(i, -1, EV_IMPLICIT_TASK, -1, ompt_scope_begin)) {
        if (!(ck_log[i].kind & ompt_task_implicit))
            continue; /* the initial task */
        unsigned index = (unsigned)(ck_log[i].b & 0xffffffffu), actual = (unsigned)(ck_log[i].b >> 32);
        if (index >= 32 || (int)actual != team || ck_log[i].a != ck_log[begin].a)
            ck_result(0, "index %u, actual %u of %d", index, actual, team);
        seen |= 1u << index;
        count++;
    }
    ck_result(count == team && seen == (1u << team) - 1, "%d begins for a team of %d, indices 0x%x", count, team,
              seen);
}
