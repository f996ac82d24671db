/* frame-enter-barrier.c - a task that entered the runtime at a barrier has its enter frame set, below its exit frame. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "in the sync_region callback of an explicit barrier, ompt_get_task_info(0)'s enter_frame is set, below exit_frame (the user code lies between)"
#include "check.h"

static _Atomic int seen;
static void *enter_seen, *exit_seen;

static void on_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *p, ompt_data_t *t,
                    const void *c)
{
    (void)p, (void)t, (void)c;
    if (kind != ompt_sync_region_barrier_explicit || endpoint != ompt_scope_begin || omp_get_thread_num() != 0
        || atomic_exchange(&seen, 1))
        return;
    ompt_frame_t *frame = NULL;
    ck_get_task_info(0, NULL, NULL, &frame, NULL, NULL);
    /* Whether the frames are flagged application or runtime, the spec versions word differently: not judged. */
    enter_seen = frame ? frame->enter_frame.ptr : NULL;
    exit_seen = frame ? frame->exit_frame.ptr : NULL;
}

static void check_setup(void)
{
    ck_set(ompt_callback_sync_region, (ompt_callback_t)on_sync);
}

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
    }
    ck_require_tool();
    ck_result(seen && enter_seen != NULL && exit_seen != NULL && (uintptr_t)enter_seen < (uintptr_t)exit_seen,
              "enter_frame %p, exit_frame %p", enter_seen, exit_seen);
}
