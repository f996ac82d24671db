/* state.c - thread state, wait id and region id for the calling thread, safe inside signal handlers. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <stddef.h>

/*
 * The region the runtime has put this thread in before the shim saw the
 * thread begin there: a thread taken into a team (an inner team, another
 * root's team, the next region of a hot team) is in that team as soon as
 * its master forks, and reports its implicit task only once it notices it
 * has been released -- on a busy machine, or when a sample's signal is what
 * wakes it, much later.  Until then it waits in a barrier of that region,
 * not idle.  0 when the runtime names no such region (the thread is in the
 * pool, or its region is the one the shim knows, or has ended).  Reads
 * ompt_get_parallel_info, which OMPT defines as async-signal-safe; libomp
 * keeps team structures for reuse, so the data it points at stays mapped.
 * Async-signal-safe: yes; any thread.
 */
static uint64_t region_joined_unseen(const struct oc_frame *frame)
{
    ompt_data_t *parallel_data = NULL;
    int team_size = 0;
    if (oc_runtime.get_parallel_info == NULL
        || oc_runtime.get_parallel_info(0, &parallel_data, &team_size) != 2
        || parallel_data == NULL || team_size <= 1)
        return 0;
    uint64_t id = __atomic_load_n(&parallel_data->value, __ATOMIC_RELAXED);
    if (id == 0 || (frame != NULL && frame->region_id == id) || oc_region_has_ended(id))
        return 0;
    return id;
}

/*
 * The state of a thread waiting for a lock, critical, ordered or atomic,
 * from its row and (for a mutex) the kind of the last mutex it asked for;
 * 0 for any other row.  These rows need nothing else of the thread: none
 * is a work or barrier state that a reduction or task wait refines.
 * Async-signal-safe: yes; reads only this thread's TLS.
 */
static int object_wait_state(const struct oc_state_row *row, int refinement)
{
    if (row == NULL || (refinement != OC_REFINE_NONE && refinement != OC_REFINE_MUTEX))
        return 0;
    struct oc_state_context context = {.last_mutex_kind = oc_self.last_mutex_kind};
    int state = refinement == OC_REFINE_MUTEX ? oc_refine_state(row, &context) : row->legacy_state;
    switch (state) {
    case THR_LKWT_STATE:
    case THR_CTWT_STATE:
    case THR_ODWT_STATE:
    case THR_ATWT_STATE:
        return state;
    default:
        return 0;
    }
}

/*
 * oc_current_state for any OMPT state but WORK_PARALLEL and WORK_SERIAL,
 * given what ompt_get_state answered (the runtime's wait id in
 * `runtime_wait_id`); out of line so that the common path stays small.
 * It answers those two as the inline path does.
 * Async-signal-safe: yes; reads only this thread's TLS, atomics and
 * ompt_get_parallel_info.
 */
int oc_refined_state(int ompt_state, uint64_t runtime_wait_id, uint64_t *wait_id)
{
    /* One row lookup; only what its refinement reads is worked out: samplers call this at kHz rates. */
    const struct oc_state_row *row = oc_state_row(ompt_state);
    int refinement = row != NULL ? row->refinement : OC_REFINE_NONE;
    int object_wait = object_wait_state(row, refinement);
    if (object_wait != 0) {
        *wait_id = runtime_wait_id;
        return object_wait;
    }
    const struct oc_frame *frame = oc_top_frame(&oc_self);
    struct oc_state_context context = {
        .region_ended = refinement == OC_REFINE_IDLE
                        && (oc_self.idle || (frame != NULL && oc_region_has_ended(frame->region_id))),
        .last_mutex_kind = oc_self.last_mutex_kind,
        .last_sync_kind = oc_self.last_sync_kind,
        .in_task_wait = (refinement == OC_REFINE_WORK || refinement == OC_REFINE_SERIAL)
                        && (oc_self.task_top != NULL ? oc_self.task_top->in_task_wait
                                                     : oc_self.in_task_wait),
        .taskwait_state = atomic_load_explicit(&oc_taskwait_state, memory_order_relaxed),
        .in_reduction = oc_self.task_top != NULL && oc_self.task_top->in_reduction,
        .in_region = frame != NULL,
    };
    /* Waiting in a barrier of a region the runtime has put it in already: not idle. */
    uint64_t joined = context.region_ended ? region_joined_unseen(frame) : 0;
    if (joined != 0)
        context.region_ended = 0;
    int state = oc_refine_state(row, &context);
    if (joined != 0 && (state == THR_IBAR_STATE || state == THR_EBAR_STATE)) {
        *wait_id = joined << 24; /* barrier 0 of the region: the one that starts it */
        return state;
    }
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
        if (oc_state_row_is_barrier_wait(row))
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
uint64_t oc_current_region_id_slow(int state)
{
    if (oc_self.fork_region_id != 0)
        return oc_self.fork_region_id;
    if (state == THR_SERIAL_STATE || state == THR_IDLE_STATE)
        return 0;
    const struct oc_frame *frame = oc_top_frame(&oc_self);
    /* The barrier of a region the thread was put in but has not reported beginning (see above). */
    if ((state == THR_IBAR_STATE || state == THR_EBAR_STATE)
        && (frame == NULL || oc_self.idle || oc_region_has_ended(frame->region_id))) {
        uint64_t joined = region_joined_unseen(frame);
        if (joined != 0)
            return joined;
    }
    return frame != NULL ? frame->region_id : 0;
}
