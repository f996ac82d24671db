/* mutex-ordered.c - an ordered region is reported as a mutex of kind ordered. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "an ordered region in an ordered loop gives mutex_acquire and mutex_acquired of kind ordered"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_mutex_acquire);
    ck_follow(ompt_callback_mutex_acquired);
}

static volatile int sink;

int main(void)
{
#pragma omp parallel for ordered num_threads(2) schedule(static, 1)
    for (int i = 0; i < 4; i++) {
#pragma omp ordered
        sink += i;
    }
    ck_require_tool();
    int acquire = ck_find(-1, -1, EV_MUTEX_ACQUIRE, ompt_mutex_ordered, -1);
    int acquired = ck_find(acquire, ck_log[acquire < 0 ? 0 : acquire].thread, EV_MUTEX_ACQUIRED, ompt_mutex_ordered, -1);
    ck_result(acquire >= 0 && acquired >= 0, "acquire at %d, acquired at %d", acquire, acquired);
}
