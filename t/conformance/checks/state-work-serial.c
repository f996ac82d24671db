/* state-work-serial.c - the initial thread outside any parallel region is working serially. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "ompt_get_state in sequential code, before and after a parallel region, answers ompt_state_work_serial"
#include "check.h"

static void check_setup(void) {}

int main(void)
{
    (void)omp_get_max_threads();
    int before = ck_started ? ck_get_state(NULL) : -1;
#pragma omp parallel num_threads(2)
    (void)0;
    ck_require_tool();
    int after = ck_get_state(NULL);
    ck_result(before == ompt_state_work_serial && after == ompt_state_work_serial, "before 0x%x, after 0x%x",
              (unsigned)before, (unsigned)after);
}
