/* nest-lock-owned.c - re-setting a nest lock its owner holds is a nest_lock scope, not another acquisition. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "setting an owned nest lock again gives nest_lock begin, unsetting it back gives nest_lock end, with no second mutex_acquired"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_mutex_acquired);
    ck_follow(ompt_callback_nest_lock);
}

int main(void)
{
    omp_nest_lock_t lock;
    omp_init_nest_lock(&lock);
    omp_set_nest_lock(&lock);
    omp_set_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
    omp_destroy_nest_lock(&lock);
    ck_require_tool();
    int acquired = ck_find(-1, 0, EV_MUTEX_ACQUIRED, ompt_mutex_nest_lock, -1);
    int begin = ck_find(acquired, 0, EV_NEST_LOCK, -1, ompt_scope_begin);
    int end = ck_find(begin, 0, EV_NEST_LOCK, -1, ompt_scope_end);
    int acquisitions = ck_count(0, EV_MUTEX_ACQUIRED, ompt_mutex_nest_lock, -1);
    ck_result(acquired >= 0 && begin >= 0 && end >= 0 && acquisitions == 1,
              "acquired at %d, nest begin %d, end %d, %d acquisitions", acquired, begin, end, acquisitions);
}
