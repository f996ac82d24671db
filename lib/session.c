/* session.c - session lifecycle, the registered-callback table and lock-free event delivery. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

_Atomic int oc_session_active;
_Atomic int oc_paused;
_Atomic uint32_t oc_session_generation;
_Atomic(omp_collector_callback_t) oc_event_callbacks[OMP_EVENT_THR_END_ATWT + 1];
/* Written at START, read by STATE on any thread and in signal handlers: atomic. */
_Atomic int oc_taskwait_state = THR_EBAR_STATE;

/*
 * Deliveries in flight, counted in two slots.  A delivery counts itself in
 * the slot of the current epoch; a drain bumps the epoch and waits for the
 * old slot to empty, so it waits only for deliveries that began before it
 * and cannot be starved by a stream of new ones.
 */
static _Atomic unsigned delivery_epoch;
static _Atomic long deliveries_in_flight[2];
/* In-flight deliveries of threads that drain from inside a delivery: they are not waited for. */
static _Atomic long deliveries_held_by_drainers[2];
/* One drain flips the epoch at a time, so each waits on a slot of its own epoch. */
static pthread_mutex_t drain_mutex = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t control_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Serialises the non-signal requests and the runtime's initialize/finalize. */
void oc_control_lock(void)
{
    pthread_mutex_lock(&control_mutex);
}

/* Counterpart of oc_control_lock. */
void oc_control_unlock(void)
{
    pthread_mutex_unlock(&control_mutex);
}

/*
 * The slow half of oc_emit.  The in-flight count is raised before the
 * session, pause flag and slot are read (all sequentially consistent), so a
 * controller that changed them and then saw the count at zero knows no
 * thread can still call what it removed.  The slot is read once: a
 * concurrent UNREGISTER can make it NULL, never make us call NULL.
 */
int oc_emit_slow(int event)
{
    int delivered = 0;
    unsigned slot = atomic_load(&delivery_epoch) & 1u;
    atomic_fetch_add(&deliveries_in_flight[slot], 1);
    oc_self.deliveries_in_slot[slot]++;
    if (atomic_load(&oc_session_active) && !atomic_load(&oc_paused)) {
        omp_collector_callback_t callback = atomic_load(&oc_event_callbacks[event]);
        if (callback != 0) {
            callback((OMP_COLLECTORAPI_EVENT)event);
            delivered = 1;
        }
    }
    oc_self.deliveries_in_slot[slot]--;
    atomic_fetch_sub(&deliveries_in_flight[slot], 1);
    return delivered;
}

/* Counts from an earlier session mean nothing in this one. */
static void sync_pair_generation(void)
{
    uint32_t generation = atomic_load_explicit(&oc_session_generation, memory_order_relaxed);
    if (oc_self.pair_generation != generation) {
        memset(oc_self.open_pairs, 0, sizeof oc_self.open_pairs);
        oc_self.pair_generation = generation;
    }
}

/*
 * Opens a BEGIN/END pair on this thread.  The pair is tracked whenever
 * either of its events has a callback, so that an END is delivered exactly
 * when this thread owes one: never without its BEGIN having been tracked,
 * which keeps pairs balanced across REGISTER, PAUSE and START.
 */
void oc_begin_pair(int source)
{
    const struct oc_event_source_row *row = &oc_event_source_rows[source];
    if (atomic_load_explicit(&oc_event_callbacks[row->begin_event], memory_order_relaxed) == 0
        && atomic_load_explicit(&oc_event_callbacks[row->end_event], memory_order_relaxed) == 0)
        return;
    if (!atomic_load(&oc_session_active) || atomic_load(&oc_paused))
        return;
    sync_pair_generation();
    if (oc_self.open_pairs[source] < UINT8_MAX)
        oc_self.open_pairs[source]++;
    oc_emit_slow(row->begin_event);
}

/* Closes the innermost open pair of `source` on this thread, if one is open. */
void oc_end_pair(int source)
{
    sync_pair_generation();
    if (oc_self.open_pairs[source] == 0)
        return;
    oc_self.open_pairs[source]--;
    oc_emit(oc_event_source_rows[source].end_event);
}

/*
 * Waits until every delivery that might have read the old slots or flags has
 * returned.  A thread draining from inside a delivery (a callback that sends
 * STOP, say) declares its own deliveries first so nobody waits on them,
 * itself included.  Must be called without the control lock: a callback
 * being waited for may itself make a request.
 */
void oc_drain_deliveries(void)
{
    long held[2] = {oc_self.deliveries_in_slot[0], oc_self.deliveries_in_slot[1]};
    for (int s = 0; s < 2; s++)
        if (held[s] != 0)
            atomic_fetch_add(&deliveries_held_by_drainers[s], held[s]);
    pthread_mutex_lock(&drain_mutex);
    unsigned old_slot = atomic_fetch_add(&delivery_epoch, 1u) & 1u;
    for (unsigned spins = 0;; spins++) {
        long busy = atomic_load(&deliveries_in_flight[old_slot])
                    - atomic_load(&deliveries_held_by_drainers[old_slot]);
        if (busy <= 0)
            break;
        if (spins > 64)
            sched_yield();
    }
    pthread_mutex_unlock(&drain_mutex);
    for (int s = 0; s < 2; s++)
        if (held[s] != 0)
            atomic_fetch_sub(&deliveries_held_by_drainers[s], held[s]);
}

/*
 * The OMPT callbacks this session needs right now: states always (thread
 * begin tells a new worker, idle, from a serial thread before its first
 * team), plus every registered event's.
 */
oc_callback_mask oc_wanted_callbacks(void)
{
    if (!atomic_load(&oc_session_active))
        return 0;
    oc_callback_mask wanted = OC_BIT(thread_begin) | OC_BIT(thread_end) | OC_BIT(parallel_begin)
                              | OC_BIT(parallel_end) | OC_BIT(implicit_task)
                              | OC_BIT(sync_region_wait) | OC_BIT(mutex_acquire);
    for (int event = OMP_EVENT_FORK; event <= OMP_EVENT_THR_END_ATWT; event++)
        if (atomic_load(&oc_event_callbacks[event]) != 0)
            wanted |= oc_event_needs(event);
    return wanted;
}

/* Forget every registration and the pause flag: what START after STOP needs. */
void oc_session_reset(void)
{
    for (int event = 0; event <= OMP_EVENT_THR_END_ATWT; event++)
        atomic_store(&oc_event_callbacks[event], (omp_collector_callback_t)0);
    atomic_store(&oc_paused, 0);
    atomic_fetch_add(&oc_session_generation, 1);
    const char *numbering = getenv("OMPCOLLECTOR_TASKWAIT_STATE");
    atomic_store_explicit(&oc_taskwait_state,
                          (numbering != NULL && strcmp(numbering, "12") == 0)
                              ? OC_THR_TASKWAIT_STATE_ORACLE
                              : THR_EBAR_STATE,
                          memory_order_relaxed);
}
