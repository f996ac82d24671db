/* thread-begin.c - every OpenMP thread begins with a thread_begin of the right type. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "thread_begin fires once as ompt_thread_initial on the initial thread and once as ompt_thread_worker on each worker, before its first event"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_thread_begin);
    ck_follow(ompt_callback_implicit_task);
}

/* A region with a body: gcc drops an empty one altogether. */
static volatile int sink;

int main(void)
{
#pragma omp parallel num_threads(3)
    sink = 1;
    ck_require_tool();
    int threads = atomic_load(&ck_threads);
    for (int t = 0; t < threads; t++) {
        int first = ck_find(-1, t, EV_THREAD_BEGIN, -1, -1);
        int other = ck_find(-1, t, EV_IMPLICIT_TASK, -1, -1);
        int want = t == 0 ? ompt_thread_initial : ompt_thread_worker;
        if (first < 0 || ck_log[first].kind != want || (other >= 0 && other < first)
            || ck_count(t, EV_THREAD_BEGIN, -1, -1) != 1)
            ck_result(0, "thread %d: thread_begin at %d (type %d), first implicit task at %d", t, first,
                      first >= 0 ? ck_log[first].kind : -1, other);
    }
    ck_result(threads >= 3, "%d threads checked", threads);
}
