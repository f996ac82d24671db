/* sync-wait-nesting.c - a barrier's wait lies inside the barrier's region, with the same kind. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "sync_region_wait begin/end nest inside sync_region begin/end of the same kind, on every thread"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_sync_region);
    ck_follow(ompt_callback_sync_region_wait);
}

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
    }
    /* Workers finish the first region's callbacks before they join this one; each marks where. */
#pragma omp parallel num_threads(2)
    ck_record(EV_MARK, 0, 0, 0, 0, NULL);
    ck_require_tool();
    int threads = atomic_load(&ck_threads), waits = 0;
    for (int t = 0; t < threads; t++) {
        int mark = ck_find(-1, t, EV_MARK, -1, -1);
        for (int b = ck_find(-1, t, EV_SYNC_REGION, -1, ompt_scope_begin); b >= 0 && b < mark;
             b = ck_find(b, t, EV_SYNC_REGION, -1, ompt_scope_begin)) {
            int kind = ck_log[b].kind;
            int end = ck_find(b, t, EV_SYNC_REGION, kind, ompt_scope_end);
            int wait = ck_find(b, t, EV_SYNC_WAIT, -1, ompt_scope_begin);
            int wait_end = ck_find(wait, t, EV_SYNC_WAIT, -1, ompt_scope_end);
            if (end < 0 || wait < 0 || wait_end < 0 || wait_end > end || ck_log[wait].kind != kind)
                ck_result(0, "thread %d, region at %d (kind %d): wait %d..%d, end %d", t, b, kind, wait, wait_end,
                          end);
            waits++;
        }
    }
    ck_result(waits >= 4, "%d barrier regions checked", waits);
}
