/* codeptr-critical.c - a critical section's mutex callbacks give a return address in the user's function. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a critical section's mutex_acquire gives codeptr_ra inside the function holding the directive"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_mutex_acquire);
}

static volatile int counter;

__attribute__((noinline)) void count_critically(void)
{
#pragma omp critical
    counter++;
}

int main(void)
{
#pragma omp parallel num_threads(2)
    count_critically();
    ck_require_tool();
    int acquire = ck_find(-1, 0, EV_MUTEX_ACQUIRE, ompt_mutex_critical, -1);
    const char *where = acquire >= 0 ? ck_function_of(ck_log[acquire].codeptr) : "(no event)";
    ck_result(strcmp(where, "count_critically") == 0, "codeptr_ra in %s", where);
}
