/* state-work-parallel.c - a thread running user code in a parallel region is working in parallel. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "ompt_get_state in a parallel region's user code answers ompt_state_work_parallel on every thread"
#include "check.h"

static void check_setup(void) {}

static _Atomic int wrong = -1;

int main(void)
{
#pragma omp parallel num_threads(2)
    {
        int state = ck_get_state(NULL);
        if (state != ompt_state_work_parallel)
            atomic_store(&wrong, state);
    }
    ck_require_tool();
    ck_result(wrong == -1, "a thread answered 0x%x", (unsigned)wrong);
}
