/* task-create-flags.c - an explicit task is created with the explicit flag and a return address in the creating function. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "#pragma omp task gives task_create with ompt_task_explicit set and codeptr_ra inside the function holding the directive"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_task_create);
}

static volatile int sink;

__attribute__((noinline)) void create_one_task(void)
{
#pragma omp task
    sink = 1;
#pragma omp taskwait
}

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp master
    create_one_task();
    ck_require_tool();
    int create = ck_find(-1, 0, EV_TASK_CREATE, -1, -1);
    while (create >= 0 && !(ck_log[create].kind & ompt_task_explicit))
        create = ck_find(create, 0, EV_TASK_CREATE, -1, -1);
    const char *where = create >= 0 ? ck_function_of(ck_log[create].codeptr) : "(no event)";
    ck_result(create >= 0 && strcmp(where, "create_one_task") == 0, "codeptr_ra in %s", where);
}
