/* codeptr-parallel.c - parallel_begin's return address lies in the function holding the directive. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "parallel_begin and parallel_end give codeptr_ra inside the function holding the parallel directive"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
    ck_follow(ompt_callback_parallel_end);
}

static volatile int sink;

__attribute__((noinline)) void run_region(void)
{
#pragma omp parallel num_threads(2)
    sink = 1;
}

int main(void)
{
    run_region();
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    int end = ck_find(begin, 0, EV_PARALLEL_END, -1, -1);
    const char *at_begin = begin >= 0 ? ck_function_of(ck_log[begin].codeptr) : "(no event)";
    const char *at_end = end >= 0 ? ck_function_of(ck_log[end].codeptr) : "(no event)";
    ck_result(strcmp(at_begin, "run_region") == 0 && strcmp(at_end, "run_region") == 0, "begin in %s, end in %s",
              at_begin, at_end);
}
