/* state.c - thread state, wait id and region id for the calling thread, safe inside signal handlers. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <stddef.h>

/*
 * The calling thread's legacy state, and its wait id through `wait_id`.
 * Reads only this thread's TLS, atomics and the runtime's ompt_get_state,
 * which OMPT defines as async-signal-safe.
 * Async-signal-safe: yes; any thread, OpenMP or not.
 */
int oc_current_state(uint64_t *wait_id)
{
    *wait_id = 0;
    if (!atomic_load_explicit(&oc_tool_attached, memory_order_acquire))
        return THR_SERIAL_STATE;
    ompt_wait_id_t runtime_wait_id = 0;
    int ompt_state = oc_runtime.get_state(&runtime_wait_id);
    const struct oc_frame *frame = oc_top_frame(&oc_self);
    struct oc_state_context context = {
        .region_ended = oc_self.idle
                        || (frame != NULL && oc_region_has_ended(frame->region_id)),
        .last_mutex_kind = oc_self.last_mutex_kind,
        .last_sync_kind = oc_self.last_sync_kind,
        .in_task_wait = oc_self.in_task_wait,
        .taskwait_state = atomic_load_explicit(&oc_taskwait_state, memory_order_relaxed),
    };
    int state = oc_map_state(ompt_state, &context);
    /*
     * A sample must agree with itself: region id 0 means SERIAL or IDLE.
     * Inside FORK/JOIN delivery the master works for the runtime on the
     * region CURRENT_PRID names; and libomp marks a thread as working just
     * before it reports the implicit task, so in that gap the thread is
     * still where the shim last saw it, outside any region.
     */
    if (oc_self.fork_region_id != 0)
        return THR_OVHD_STATE;
    if (state == THR_WORK_STATE && frame == NULL)
        return oc_self.is_worker ? THR_IDLE_STATE : THR_SERIAL_STATE;
    switch (state) {
    case THR_LKWT_STATE:
    case THR_CTWT_STATE:
    case THR_ODWT_STATE:
    case THR_ATWT_STATE:
        *wait_id = runtime_wait_id;
        break;
    case THR_IBAR_STATE:
    case THR_EBAR_STATE:
        /* A task wait also reads EBAR; the last barrier's id would name a wait long over. */
        if (oc_state_is_barrier_wait(ompt_state))
            *wait_id = oc_self.barrier_wait_id;
        break;
    default:
        break;
    }
    return state;
}

/*
 * The region id CURRENT_PRID answers, given the thread's state.  Inside
 * FORK and JOIN delivery the master answers for the region being forked or
 * joined, whatever its state says.
 * Async-signal-safe: yes; any thread.
 */
uint64_t oc_current_region_id(int state)
{
    if (oc_self.fork_region_id != 0)
        return oc_self.fork_region_id;
    if (state == THR_SERIAL_STATE || state == THR_IDLE_STATE)
        return 0;
    const struct oc_frame *frame = oc_top_frame(&oc_self);
    return frame != NULL ? frame->region_id : 0;
}
