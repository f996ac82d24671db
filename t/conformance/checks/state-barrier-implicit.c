/* state-barrier-implicit.c - a thread waiting at a parallel region's end is in the implicit-barrier wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread parked in a parallel region's ending barrier settles in ompt_state_wait_barrier_implicit_parallel (or 5.0's wait_barrier_implicit)"
#include "check.h"

static _Atomic pid_t parked;
static _Atomic int announced;

static void on_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *p, ompt_data_t *t,
                    const void *c)
{
    (void)p, (void)t, (void)c;
    if ((kind == ompt_sync_region_barrier_implicit || kind == ompt_sync_region_barrier_implicit_parallel)
        && endpoint == ompt_scope_begin && omp_get_thread_num() == 1 && !atomic_load(&announced)) {
        atomic_store(&parked, ck_tid());
        atomic_store(&announced, 1);
    }
}

static void check_setup(void)
{
    ck_set(ompt_callback_sync_region_wait, (ompt_callback_t)on_wait);
}

static _Atomic int state = -1;

int main(void)
{
    (void)omp_get_max_threads();
    ck_require_tool();
#pragma omp parallel num_threads(2)
    {
        /* The master arrives last: it probes the worker parked in the ending barrier first. */
        if (omp_get_thread_num() == 0) {
            ck_await(&announced);
            atomic_store(&state, ck_settled_state(atomic_load(&parked), NULL));
        }
    }
    ck_result(state == ompt_state_wait_barrier_implicit_parallel || state == ompt_state_wait_barrier_implicit,
              "the worker settled in 0x%x", (unsigned)state);
}
