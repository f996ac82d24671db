/* state-lock.c - a thread waiting for a held lock is in the lock wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread blocked in omp_set_lock on a held lock settles in ompt_state_wait_lock"
#include "check.h"

static _Atomic pid_t blocked;
static _Atomic uint64_t acquire_wait_id;
static _Atomic int holding, announced;

static void on_acquire(ompt_mutex_t kind, unsigned int h, unsigned int i, ompt_wait_id_t wait_id, const void *c)
{
    (void)h, (void)i, (void)c;
    if (kind == ompt_mutex_lock && atomic_load(&holding) && !atomic_load(&announced)) {
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
    omp_lock_t lock;
    omp_init_lock(&lock);
    ck_require_tool();
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&lock);
            atomic_store(&holding, 1);
            ck_await(&announced);
            atomic_store(&state, ck_settled_state(atomic_load(&blocked), &state_wait_id));
            omp_unset_lock(&lock);
        } else {
            while (!atomic_load(&holding))
                ck_pause_us(20);
            omp_set_lock(&lock);
            omp_unset_lock(&lock);
        }
    }
    omp_destroy_lock(&lock);
    ck_result(state == ompt_state_wait_lock,
              "the blocked thread settled in 0x%x, wait id %#llx (acquire's %#llx)", (unsigned)state,
              (unsigned long long)state_wait_id, (unsigned long long)acquire_wait_id);
}
