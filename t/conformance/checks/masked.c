/* masked.c - a master construct is bracketed by the masked callback on the master only. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a master construct gives masked (5.0: master) begin and end on thread 0 only"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_masked);
}

static volatile int sink;

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        sink = 1;
#pragma omp barrier
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_MASKED, -1, ompt_scope_begin);
    int end = ck_find(begin, 0, EV_MASKED, -1, ompt_scope_end);
    int all = ck_count(-1, EV_MASKED, -1, ompt_scope_begin);
    ck_result(begin >= 0 && end >= 0 && all == 1, "begin at %d, end at %d, %d begins in all", begin, end, all);
}
