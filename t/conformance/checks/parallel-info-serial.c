/* parallel-info-serial.c - sequential code is in the initial task's implicit region of one thread. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "outside any parallel region, ompt_get_task_info(0) gives an initial task (flags ompt_task_initial)"
#include "check.h"

static void check_setup(void) {}

int main(void)
{
    (void)omp_get_max_threads();
    ck_require_tool();
    int flags = 0;
    int answer = ck_get_task_info(0, &flags, NULL, NULL, NULL, NULL);
    ck_result(answer == 2 && (flags & ompt_task_initial), "answer %d, flags 0x%x", answer, (unsigned)flags);
}
