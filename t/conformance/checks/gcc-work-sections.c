/* gcc-work-sections.c - a sections construct in gcc code is bracketed by the work callback. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: gcc */
#define CHECK_MEANING "a sections construct in gcc code (GOMP_sections_start/end) gives work begin and end of kind sections"
#define KNOWN_BUG "libomp's GOMP_sections_start and GOMP_sections_end report no work callback"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_work);
}

static volatile int sink[2];

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp sections
    {
#pragma omp section
        sink[0] = 1;
#pragma omp section
        sink[1] = 1;
    }
    ck_require_tool();
    int begin = ck_find(-1, 0, EV_WORK, ompt_work_sections, ompt_scope_begin);
    int end = ck_find(begin, 0, EV_WORK, ompt_work_sections, ompt_scope_end);
    ck_result(begin >= 0 && end >= 0, "begin at %d, end at %d", begin, end);
}
