/* parallel-info-levels.c - ompt_get_parallel_info walks out through nested regions. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "in a nested region, ompt_get_parallel_info level 0 gives the inner region's data and team size, level 1 the outer's"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
}

static uint64_t inner_seen, outer_seen;
static int inner_size, outer_size, answers[2];

int main(void)
{
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 0) {
#pragma omp parallel num_threads(2)
        if (omp_get_thread_num() == 0) {
            ompt_data_t *inner = NULL, *outer = NULL;
            answers[0] = ck_get_parallel_info(0, &inner, &inner_size);
            answers[1] = ck_get_parallel_info(1, &outer, &outer_size);
            inner_seen = inner ? inner->value : 0;
            outer_seen = outer ? outer->value : 0;
        }
    }
    ck_require_tool();
    int outer_begin = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    int inner_begin = ck_find(outer_begin, 0, EV_PARALLEL_BEGIN, -1, -1);
    ck_result(outer_begin >= 0 && inner_begin >= 0 && answers[0] == 2 && answers[1] == 2
                  && inner_seen == ck_log[inner_begin].a && outer_seen == ck_log[outer_begin].a && inner_size == 2
                  && outer_size == 2,
              "answers %d %d, inner %llu (want %llu) of %d, outer %llu (want %llu) of %d", answers[0], answers[1],
              (unsigned long long)inner_seen, (unsigned long long)(inner_begin >= 0 ? ck_log[inner_begin].a : 0),
              inner_size, (unsigned long long)outer_seen,
              (unsigned long long)(outer_begin >= 0 ? ck_log[outer_begin].a : 0), outer_size);
}
