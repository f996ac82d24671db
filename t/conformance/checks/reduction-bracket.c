/* reduction-bracket.c - every reduction's combine is bracketed by the reduction callback. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a reduction(+) clause in a team of two brackets each thread's combine with ompt_callback_reduction begin/end"
#define KNOWN_BUG "libomp brackets the combine only in its critical and tree methods; its default atomic method for small teams reports nothing (lib/tool.c, reduction_body)"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_reduction);
}

int main(void)
{
    int sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
    ck_require_tool();
    int begins = ck_count(-1, EV_REDUCTION, -1, ompt_scope_begin);
    int ends = ck_count(-1, EV_REDUCTION, -1, ompt_scope_end);
    ck_result(sum == 3 && begins == 2 && ends == 2, "sum %d, %d begins and %d ends", sum, begins, ends);
}
