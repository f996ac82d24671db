/* critical-wait-id.c - a thread waiting to enter a held critical section reports the wait id its mutex_acquire gave. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread blocked on a held critical section answers ompt_get_state with the wait_id its mutex_acquire gave"
#include "check.h"

static _Atomic pid_t blocked;
static _Atomic uint64_t acquire_wait_id;
static _Atomic int holding, announced;

static void on_acquire(ompt_mutex_t kind, unsigned int h, unsigned int i, ompt_wait_id_t wait_id, const void *c)
{
    (void)h, (void)i, (void)c;
    if (kind == ompt_mutex_critical && atomic_load(&holding) && !atomic_load(&announced)) {
        atomic_store(&blocked, ck_tid());
        atomic_store(&acquire_wait_id, (uint64_t)wait_id);
        atomic_store(&announced, 1);
    }
}

static void check_setup(void)
{
    ck_set(ompt_callback_mutex_acquire, (ompt_callback_t)on_acquire);
}

static _Atomic int state = -1;
static uint64_t state_wait_id;

int main(void)
{
    (void)omp_get_max_threads();
    ck_require_tool();
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
#pragma omp critical
            {
                /* Holding it: the other thread announces from its acquire, then is probed. */
                atomic_store(&holding, 1);
                ck_await(&announced);
                atomic_store(&state, ck_settled_state(atomic_load(&blocked), &state_wait_id));
            }
        } else {
            while (!atomic_load(&holding))
                ck_pause_us(20);
#pragma omp critical
            (void)0;
        }
    }
    ck_result(state >= 0 && state_wait_id == acquire_wait_id,
              "the blocked thread settled in 0x%x, wait id %#llx (acquire's %#llx)", (unsigned)state,
              (unsigned long long)state_wait_id, (unsigned long long)acquire_wait_id);
}
