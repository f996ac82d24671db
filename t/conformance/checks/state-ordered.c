/* state-ordered.c - a thread waiting for its turn in an ordered region is in the ordered wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread waiting for its turn at #pragma omp ordered settles in ompt_state_wait_ordered"
#include "check.h"

static _Atomic pid_t blocked;
static _Atomic int announced;

/* Thread 1 runs iteration 1 only: its one ordered acquire waits for iteration 0's turn to end. */
static void on_acquire(ompt_mutex_t kind, unsigned int h, unsigned int i, ompt_wait_id_t w, const void *c)
{
    (void)h, (void)i, (void)w, (void)c;
    if (kind == ompt_mutex_ordered && omp_get_thread_num() == 1 && !atomic_load(&announced)) {
        atomic_store(&blocked, ck_tid());
        atomic_store(&announced, 1);
    }
}

static void check_setup(void)
{
    ck_set(ompt_callback_mutex_acquire, (ompt_callback_t)on_acquire);
}

static _Atomic int state = -1;

int main(void)
{
    (void)omp_get_max_threads();
    ck_require_tool();
#pragma omp parallel for ordered num_threads(2) schedule(static, 1)
    for (int i = 0; i < 2; i++) {
#pragma omp ordered
        if (i == 0) {
            /* Iteration 0 holds the turn until iteration 1's thread waits for it, and probes that thread. */
            ck_await(&announced);
            atomic_store(&state, ck_settled_state(atomic_load(&blocked), NULL));
        }
    }
    ck_result(state == ompt_state_wait_ordered, "the waiting thread settled in 0x%x", (unsigned)state);
}
