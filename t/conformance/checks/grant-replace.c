/* grant-replace.c - setting a callback a second time replaces the handler. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a callback set twice (before any thread dispatches) calls only the second handler"
#include "check.h"

static _Atomic int first_calls, second_calls;
static void first(ompt_data_t *t, const ompt_frame_t *f, ompt_data_t *p, unsigned r, int fl, const void *c)
{
    (void)t, (void)f, (void)p, (void)r, (void)fl, (void)c;
    atomic_fetch_add(&first_calls, 1);
}
static void second(ompt_data_t *t, const ompt_frame_t *f, ompt_data_t *p, unsigned r, int fl, const void *c)
{
    (void)t, (void)f, (void)p, (void)r, (void)fl, (void)c;
    atomic_fetch_add(&second_calls, 1);
}

static void check_setup(void)
{
    ck_set(ompt_callback_parallel_begin, (ompt_callback_t)first);
    ck_set(ompt_callback_parallel_begin, (ompt_callback_t)second);
}

int main(void)
{
#pragma omp parallel num_threads(2)
    (void)0;
    ck_require_tool();
    ck_result(first_calls == 0 && second_calls == 1, "first handler called %d times, second %d",
              (int)first_calls, (int)second_calls);
}
