/* state-task-serialized.c - an explicit task running in a team of one is working in parallel: it is inside a parallel region. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "ompt_get_state in an explicit task of a team of one (a serialized parallel region) answers ompt_state_work_parallel, as in the region's implicit task"
#define KNOWN_BUG "libomp's __kmp_invoke_task sets ompt_state_work_serial for every task of a serialized team, though work_serial means outside all parallel regions (lib/mapping.h: OC_REFINE_SERIAL)"
#include "check.h"

static void check_setup(void) {}

int main(void)
{
    int implicit = -1, task = -1;
#pragma omp parallel num_threads(1)
    {
        implicit = ck_get_state != NULL ? ck_get_state(NULL) : -1;
#pragma omp task shared(task)
        task = ck_get_state != NULL ? ck_get_state(NULL) : -1;
#pragma omp taskwait
    }
    ck_require_tool();
    ck_result(implicit == ompt_state_work_parallel && task == ompt_state_work_parallel,
              "implicit task 0x%x, explicit task 0x%x", (unsigned)implicit, (unsigned)task);
}
