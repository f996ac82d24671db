/* mutex-critical.c - a critical section reports acquire, acquired and released for one wait id. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a critical section gives mutex_acquire, mutex_acquired, mutex_released of kind critical, in order, with one wait_id"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_mutex_acquire);
    ck_follow(ompt_callback_mutex_acquired);
    ck_follow(ompt_callback_mutex_released);
}

static volatile int counter;

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp critical
        counter++;
    }
    ck_require_tool();
    int acquire = ck_find(-1, 0, EV_MUTEX_ACQUIRE, ompt_mutex_critical, -1);
    int acquired = ck_find(acquire, 0, EV_MUTEX_ACQUIRED, ompt_mutex_critical, -1);
    int released = ck_find(acquired, 0, EV_MUTEX_RELEASED, ompt_mutex_critical, -1);
    ck_result(acquire >= 0 && acquired >= 0 && released >= 0 && ck_log[acquire].a == ck_log[acquired].a
                  && ck_log[acquire].a == ck_log[released].a && ck_log[acquire].a != 0,
              "events at %d %d %d", acquire, acquired, released);
}
