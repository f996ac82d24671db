/* lock-init-destroy.c - a lock's life is bracketed by lock_init and lock_destroy for one wait id. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "omp_init_nest_lock/omp_destroy_nest_lock give lock_init and lock_destroy of kind nest_lock with one wait_id"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_lock_init);
    ck_follow(ompt_callback_lock_destroy);
}

int main(void)
{
    omp_nest_lock_t lock;
    omp_init_nest_lock(&lock);
    omp_destroy_nest_lock(&lock);
    ck_require_tool();
    int init = ck_find(-1, 0, EV_LOCK_INIT, ompt_mutex_nest_lock, -1);
    int destroy = ck_find(init, 0, EV_LOCK_DESTROY, ompt_mutex_nest_lock, -1);
    ck_result(init >= 0 && destroy >= 0 && ck_log[init].a == ck_log[destroy].a, "init at %d, destroy at %d", init,
              destroy);
}
