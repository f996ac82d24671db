/* mutex-lock.c - omp_set_lock and omp_unset_lock report acquire, acquired and released for the lock's wait id. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "omp_set_lock/omp_unset_lock give mutex_acquire, mutex_acquired, mutex_released of kind lock, in order, with the wait_id lock_init gave"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_lock_init);
    ck_follow(ompt_callback_mutex_acquire);
    ck_follow(ompt_callback_mutex_acquired);
    ck_follow(ompt_callback_mutex_released);
}

int main(void)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_set_lock(&lock);
    omp_unset_lock(&lock);
    omp_destroy_lock(&lock);
    ck_require_tool();
    int init = ck_find(-1, 0, EV_LOCK_INIT, ompt_mutex_lock, -1);
    int acquire = ck_find(init, 0, EV_MUTEX_ACQUIRE, ompt_mutex_lock, -1);
    int acquired = ck_find(acquire, 0, EV_MUTEX_ACQUIRED, ompt_mutex_lock, -1);
    int released = ck_find(acquired, 0, EV_MUTEX_RELEASED, ompt_mutex_lock, -1);
    ck_result(init >= 0 && acquire >= 0 && acquired >= 0 && released >= 0 && ck_log[init].a == ck_log[acquire].a
                  && ck_log[acquire].a == ck_log[acquired].a && ck_log[acquire].a == ck_log[released].a,
              "events at %d %d %d %d", init, acquire, acquired, released);
}
