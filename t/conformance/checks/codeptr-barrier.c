/* codeptr-barrier.c - an explicit barrier's return address lies in the user's function. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "an explicit barrier's sync_region gives codeptr_ra inside the function holding the directive"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_sync_region);
}

__attribute__((noinline)) void wait_at_barrier(void)
{
#pragma omp barrier
}

int main(void)
{
#pragma omp parallel num_threads(2)
    wait_at_barrier();
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_SYNC_REGION, -1, ompt_scope_begin);
    const char *where = begin >= 0 ? ck_function_of(ck_log[begin].codeptr) : "(no event)";
    ck_result(strcmp(where, "wait_at_barrier") == 0, "codeptr_ra in %s", where);
}
