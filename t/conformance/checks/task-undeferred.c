/* task-undeferred.c - a task with a false if clause is created undeferred. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "#pragma omp task if(0) gives task_create with ompt_task_explicit and ompt_task_undeferred set"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_task_create);
}

static volatile int sink;

int main(void)
{
    volatile int defer = 0;
#pragma omp parallel num_threads(2)
#pragma omp master
    {
#pragma omp task if (defer)
        sink = 1;
    }
    ck_require_tool();
    int create = ck_find(-1, 0, EV_TASK_CREATE, -1, -1);
    while (create >= 0 && !(ck_log[create].kind & ompt_task_explicit))
        create = ck_find(create, 0, EV_TASK_CREATE, -1, -1);
    int flags = create >= 0 ? ck_log[create].kind : 0;
    ck_result((flags & ompt_task_undeferred) != 0, "flags 0x%x", (unsigned)flags);
}
