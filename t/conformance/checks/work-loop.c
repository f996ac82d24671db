/* work-loop.c - a worksharing loop is bracketed by the work callback on the master. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a worksharing loop gives work begin and end of a loop kind (5.0 loop or 5.2 loop_static) on the master, with the region's parallel_data"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
    ck_follow(ompt_callback_work);
}

static volatile int sink[16];

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 16; i++)
            sink[i] = i;
    }
    ck_require_tool();
    int region = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    int begin = ck_find(region, 0, EV_WORK, -1, ompt_scope_begin);
    int end = begin >= 0 ? ck_find(begin, 0, EV_WORK, ck_log[begin].kind, ompt_scope_end) : -1;
    int kind = begin >= 0 ? ck_log[begin].kind : -1;
    /* 10 is ompt_work_loop_static in OpenMP 5.2's numbering. */
    ck_result((kind == ompt_work_loop || kind == 10) && end >= 0 && ck_log[begin].a == ck_log[region].a,
              "kind %d, begin at %d, end at %d", kind, begin, end);
}
