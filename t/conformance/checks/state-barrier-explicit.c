/* state-barrier-explicit.c - a thread waiting in an explicit barrier is in the explicit-barrier wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a thread parked in #pragma omp barrier settles in ompt_state_wait_barrier_explicit"
#define KNOWN_BUG "libomp reports the generic ompt_state_wait_barrier; the shim tells explicit from implicit by the last sync_region kind (lib/mapping.h: OC_REFINE_BARRIER)"
#include "check.h"

static _Atomic pid_t parked;
static _Atomic int announced;

/* The master announces from inside the barrier; the worker probes it then, before arriving itself. */
static void on_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *p, ompt_data_t *t,
                    const void *c)
{
    (void)p, (void)t, (void)c;
    if (kind == ompt_sync_region_barrier_explicit && endpoint == ompt_scope_begin && omp_get_thread_num() == 0) {
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
        if (omp_get_thread_num() == 1) {
            ck_await(&announced);
            atomic_store(&state, ck_settled_state(atomic_load(&parked), NULL));
        }
#pragma omp barrier
    }
    ck_result(state == ompt_state_wait_barrier_explicit, "the master settled in 0x%x", (unsigned)state);
}
