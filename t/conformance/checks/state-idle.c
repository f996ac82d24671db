/* state-idle.c - a worker between parallel regions is idle. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a worker thread parked between parallel regions settles in ompt_state_idle"
#define KNOWN_BUG "libomp leaves a worker in its team's implicit-barrier wait state until it is next released (lib/tool.c: region_end_marks)"
#include "check.h"

static void check_setup(void) {}

static _Atomic pid_t worker;

int main(void)
{
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        atomic_store(&worker, ck_tid());
    ck_require_tool();
    int state = ck_settled_state(atomic_load(&worker), NULL);
    ck_result(state == ompt_state_idle, "the worker settled in 0x%x", (unsigned)state);
}
