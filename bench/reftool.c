/* reftool.c - the benchmark's reference: a minimal OMPT tool that sets the callbacks the shim sets and only counts them, or delivers. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Preloaded (LD_PRELOAD) in place of the shim.  BENCH_REFTOOL=idle makes it
 * an attached tool with no callback at all; BENCH_REFTOOL=all (the default)
 * sets every callback lib/mapping.h's OC_OMPT_CALLBACKS lists, each handler
 * one relaxed atomic increment.  That is what receiving the callbacks the
 * legacy events need costs at the least, and what the bench compares the
 * shim to (issue 17's ratios).
 *
 * Built with -DREF_DELIVER (reftool-deliver.so, BENCH_REFTOOL=deliver) it
 * goes one step further: the least a tool must do to hand the legacy
 * events on to a collector with the guarantee the collector API needs (a
 * STOP or UNREGISTER that returned is never followed by a call of the
 * callback it removed).  Each handler looks its (callback, kind) up in the
 * shim's own row tables and, where a row begins or ends, marks the thread
 * in flight in a slot of its own (one sequentially consistent store),
 * reads the event's callback, calls it and unmarks.  It follows no thread
 * state, no region or barrier ids, no BEGIN/END pairs and no nesting of
 * deliveries, and never drains (it has no STOP), so the shim, which must do
 * all of that, cannot be cheaper than this.
 */
#include "lib/mapping.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_EXPORT __attribute__((visibility("default")))

/* Handlers for callbacks the shim does not set (yet) stay unused. */
#pragma GCC diagnostic ignored "-Wunused-function"

/* Counts indexed by OMPT callback id; ids stay below 64 in every OMPT version. */
static _Atomic unsigned long counts[64];

/* The deliver mode: in-flight marks, one cache line per thread, and the callbacks. */
struct ref_slot {
    _Atomic unsigned long seq;
} __attribute__((aligned(64)));
static struct ref_slot ref_slots[256];
static _Atomic unsigned ref_slots_used;
static __thread struct ref_slot *ref_my_slot __attribute__((tls_model("initial-exec")));
static _Atomic(omp_collector_callback_t) ref_callbacks[64];

static ompt_get_state_t get_state;
static ompt_get_parallel_info_t get_parallel_info;

/* One relaxed increment: what every handler does. */
static inline void bump(int id)
{
    atomic_fetch_add_explicit(&counts[id], 1, memory_order_relaxed);
}

/* The collector's callback in deliver mode: nothing, as the bench client's. */
static void ref_on_event(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
}

/* A slot for this thread's in-flight mark; out of line, once per thread (past 256 threads slots are shared: the bench runs two). */
static __attribute__((noinline)) struct ref_slot *ref_claim_slot(void)
{
    unsigned index = atomic_fetch_add(&ref_slots_used, 1);
    return ref_my_slot = &ref_slots[index % 256];
}

/* Calls event's callback, marked in flight: the store-buffering pattern the shim's drain relies on. */
static inline void ref_deliver(int event)
{
    struct ref_slot *slot = ref_my_slot;
    if (slot == NULL)
        slot = ref_claim_slot();
    unsigned long seq = atomic_load_explicit(&slot->seq, memory_order_relaxed);
    atomic_store(&slot->seq, seq + 1);
    omp_collector_callback_t callback = atomic_load(&ref_callbacks[event]);
    if (callback != 0)
        callback((OMP_COLLECTORAPI_EVENT)event);
    atomic_store_explicit(&slot->seq, seq + 2, memory_order_release);
}

/*
 * Deliver mode: the event that callback `cb` with `kind` at an endpoint
 * that `begins` (or ends) a row stands for, if any.  A build of its own,
 * so that the counting tool's handlers stay one increment.
 */
static inline void ref_deliver_by(int cb, int kind, int begins)
{
#ifdef REF_DELIVER
    if ((unsigned)kind >= OC_KIND_CELLS)
        return;
    const signed char *cells = begins ? oc_source_begun_cells : oc_source_ended_cells;
    int row = cells[cb * OC_KIND_CELLS + kind] - 1;
    if (row >= 0)
        ref_deliver(begins ? oc_source_events_table[row].begin_event
                           : oc_source_events_table[row].end_event);
#else
    (void)cb, (void)kind, (void)begins;
#endif
}

/*
 * Handlers with each callback's own parameter list, for every callback the
 * shim sets or may come to set.  A name added to OC_OMPT_CALLBACKS without a
 * handler here fails to compile, naming ref_NAME: add it below.
 */
static void ref_thread_begin(int type, ompt_data_t *data)
{
    (void)type, (void)data;
    bump(ompt_callback_thread_begin);
}

static void ref_thread_end(ompt_data_t *data)
{
    (void)data;
    bump(ompt_callback_thread_end);
}

static void ref_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                               unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)parallel, (void)requested, (void)flags, (void)codeptr;
    bump(ompt_callback_parallel_begin);
    ref_deliver_by(OC_CB_parallel_begin, 0, 1);
}

static void ref_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
                             const void *codeptr)
{
    (void)parallel, (void)task, (void)flags, (void)codeptr;
    bump(ompt_callback_parallel_end);
    ref_deliver_by(OC_CB_parallel_end, 0, 0);
}

/* Deliver mode: both events of the row (cb, kind) begins and ends in one callback. */
static inline void ref_deliver_pair(int cb, int kind)
{
    ref_deliver_by(cb, kind, 1);
    ref_deliver_by(cb, kind, 0);
}

/*
 * In deliver mode a task's creation delivers its row's two events and the
 * task is marked explicit in its data word (libomp hands it over zeroed),
 * so that task_schedule delivers what the shim does for an explicit task
 * and nothing for an implicit one it returns to: no record, no state.
 */
static void ref_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task,
                            int flags, int has_dependences, const void *codeptr)
{
    (void)task, (void)frame, (void)has_dependences, (void)codeptr;
    bump(ompt_callback_task_create);
#ifdef REF_DELIVER
    if (new_task != NULL)
        new_task->value = 1;
    ref_deliver_pair(OC_CB_task_create, flags & ompt_task_undeferred ? OC_TASK_UNDEFERRED : OC_TASK_DEFERRED);
#else
    (void)new_task, (void)flags;
#endif
}

/* Deliver mode: an explicit task that completes ends its run and finishes; one that starts is scheduled, fetched and runs. */
static void ref_task_schedule(ompt_data_t *prior, int prior_status, ompt_data_t *next)
{
    bump(ompt_callback_task_schedule);
#ifdef REF_DELIVER
    if (prior != NULL && prior->value == 1 && prior_status == ompt_task_complete) {
        ref_deliver_by(OC_CB_task_schedule, OC_TASK_STEP_EXECUTE, 0);
        ref_deliver_pair(OC_CB_task_schedule, OC_TASK_STEP_FINISH);
    }
    if (next != NULL && next->value == 1) {
        ref_deliver_pair(OC_CB_task_schedule, OC_TASK_STEP_SCHEDULE);
        ref_deliver_by(OC_CB_task_schedule, OC_TASK_STEP_FETCH, 1);
        ref_deliver_by(OC_CB_task_schedule, OC_TASK_STEP_EXECUTE, 1);
    }
#else
    (void)prior, (void)prior_status, (void)next;
#endif
}

static void ref_implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                              unsigned int actual, unsigned int index, int flags)
{
    (void)parallel, (void)task, (void)actual, (void)flags;
    bump(ompt_callback_implicit_task);
    /* A worker's implicit task ends its idling and its end begins it; the master never idles. */
    if (index != 0)
        ref_deliver_by(OC_CB_implicit_task, 0, endpoint == ompt_scope_end);
}

static void ref_sync_region(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                            const void *codeptr)
{
    (void)kind, (void)endpoint, (void)parallel, (void)task, (void)codeptr;
    bump(ompt_callback_sync_region);
}

static void ref_sync_region_wait(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                                 const void *codeptr)
{
    (void)parallel, (void)task, (void)codeptr;
    bump(ompt_callback_sync_region_wait);
    ref_deliver_by(OC_CB_sync_region_wait, kind, endpoint == ompt_scope_begin);
}

static void ref_reduction(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task,
                          const void *codeptr)
{
    (void)kind, (void)endpoint, (void)parallel, (void)task, (void)codeptr;
    bump(ompt_callback_reduction);
}

static void ref_mutex_acquire(int kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                              const void *codeptr)
{
    (void)hint, (void)impl, (void)wait_id, (void)codeptr;
    bump(ompt_callback_mutex_acquire);
    ref_deliver_by(OC_CB_mutex_acquire, kind, 1);
}

static void ref_lock_init(int kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                          const void *codeptr)
{
    (void)kind, (void)hint, (void)impl, (void)wait_id, (void)codeptr;
    bump(ompt_callback_lock_init);
}

static void ref_mutex_acquired(int kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)wait_id, (void)codeptr;
    bump(ompt_callback_mutex_acquired);
    ref_deliver_by(OC_CB_mutex_acquired, kind, 0);
    ref_deliver_by(OC_CB_mutex_acquired, kind, 1);
}

static void ref_mutex_released(int kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)wait_id, (void)codeptr;
    bump(ompt_callback_mutex_released);
    ref_deliver_by(OC_CB_mutex_released, kind, 0);
}

static void ref_lock_destroy(int kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)kind, (void)wait_id, (void)codeptr;
    bump(ompt_callback_lock_destroy);
}

static void ref_nest_lock(int endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    (void)endpoint, (void)wait_id, (void)codeptr;
    bump(ompt_callback_nest_lock);
}

static void ref_work(int type, int endpoint, ompt_data_t *parallel, ompt_data_t *task, uint64_t count,
                     const void *codeptr)
{
    (void)parallel, (void)task, (void)count, (void)codeptr;
    bump(ompt_callback_work);
    ref_deliver_by(OC_CB_work, type, endpoint == ompt_scope_begin);
}

static void ref_masked(int endpoint, ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)parallel, (void)task, (void)codeptr;
    bump(ompt_callback_masked);
    ref_deliver_by(OC_CB_masked, 0, endpoint == ompt_scope_begin);
}

static void ref_dispatch(ompt_data_t *parallel, ompt_data_t *task, int kind, ompt_data_t instance)
{
    (void)parallel, (void)task, (void)kind, (void)instance;
    bump(ompt_callback_dispatch);
}

static void ref_dependences(ompt_data_t *task, const void *deps, int ndeps)
{
    (void)task, (void)deps, (void)ndeps;
    bump(ompt_callback_dependences);
}

static void ref_task_dependence(ompt_data_t *source, ompt_data_t *sink)
{
    (void)source, (void)sink;
    bump(ompt_callback_task_dependence);
}

static void ref_cancel(ompt_data_t *task, int flags, const void *codeptr)
{
    (void)task, (void)flags, (void)codeptr;
    bump(ompt_callback_cancel);
}

static void ref_flush(ompt_data_t *thread, const void *codeptr)
{
    (void)thread, (void)codeptr;
    bump(ompt_callback_flush);
}

/* Sets the shim's callbacks unless BENCH_REFTOOL=idle; always attaches. */
static int ref_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
    (void)device, (void)tool_data;
    ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    get_state = (ompt_get_state_t)lookup("ompt_get_state");
    get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    const char *mode = getenv("BENCH_REFTOOL");
    if (set_callback == NULL || (mode != NULL && strcmp(mode, "idle") == 0))
        return 1;
    if (mode != NULL && strcmp(mode, "deliver") == 0)
        for (int event = OMP_EVENT_FORK; event <= OC_EVENT_MAX; event++)
            atomic_store(&ref_callbacks[event], ref_on_event);
#define REF_SET(name) set_callback(ompt_callback_##name, (ompt_callback_t)ref_##name);
    OC_OMPT_CALLBACKS(REF_SET)
#undef REF_SET
    return 1;
}

/* BENCH_REFTOOL_VERBOSE=1 prints the counts, to check the callbacks came. */
static void ref_finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    const char *verbose = getenv("BENCH_REFTOOL_VERBOSE");
    if (verbose == NULL || strcmp(verbose, "1") != 0)
        return;
    for (int id = 0; id < 64; id++) {
        unsigned long count = atomic_load(&counts[id]);
        if (count != 0)
            fprintf(stderr, "reftool: callback %d came %lu times\n", id, count);
    }
}

static ompt_start_tool_result_t result = {ref_initialize, ref_finalize, {0}};

REF_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                     const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    return &result;
}

/*
 * What a sample costs at the OMPT level: the state and the current region,
 * the two raw inquiries the shim's STATE + CURRENT_PRID stand for.  The
 * workload finds this with dlsym and calls it in its inquiry mode.
 */
REF_EXPORT int bench_inquire(void)
{
    ompt_wait_id_t wait_id = 0;
    ompt_data_t *parallel_data = NULL;
    int team_size = 0;
    int state = get_state(&wait_id);
    get_parallel_info(0, &parallel_data, &team_size);
    return state + (parallel_data != NULL ? (int)parallel_data->value : 0);
}
