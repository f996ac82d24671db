/* thread-end.c - every worker that began also ends, with the data its thread_begin set, by the time the tool is finalized. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "by ompt_finalize_tool's return, every worker's thread_end has fired with the thread_data its thread_begin set"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_thread_begin);
    ck_follow(ompt_callback_thread_end);
}

int main(void)
{
#pragma omp parallel num_threads(3)
    (void)0;
    ck_require_tool();
    if (ck_finalize_tool == NULL)
        ck_skip("the runtime has no ompt_finalize_tool");
    ck_finalize_tool();
    int threads = atomic_load(&ck_threads), ended = 0;
    for (int t = 1; t < threads; t++) {
        int begin = ck_find(-1, t, EV_THREAD_BEGIN, -1, -1);
        int end = ck_find(begin, t, EV_THREAD_END, -1, -1);
        ended += begin >= 0 && end >= 0 && ck_log[end].a == ck_log[begin].a;
    }
    ck_result(threads >= 3 && ended == threads - 1, "%d of %d workers ended", ended, threads - 1);
}
