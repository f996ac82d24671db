/* tool.c - the OMPT tool half: rendezvous with the runtime and the on_ompt_callback_* handlers. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "internal.h"

#include <dlfcn.h>
#include <stddef.h>

__thread struct oc_thread oc_self __attribute__((tls_model("initial-exec")));

struct oc_runtime oc_runtime;
_Atomic int oc_tool_attached;
_Atomic int oc_tool_finalized;
oc_callback_mask oc_granted;
_Atomic uint64_t oc_next_region_id = 1;

/* Callbacks currently set with the runtime; changed under the control lock. */
static oc_callback_mask callbacks_set;

/*
 * Ended-region marks, indexed by region id modulo their number.  A worker
 * whose team's region has ended is idle, but libomp tells the worker so only
 * when it is next released; the master's parallel_end is the first word of
 * it.  A slot holds the largest id of its residue class that has ended.
 */
#define OC_REGION_MARKS 4096
static _Atomic uint64_t region_end_marks[OC_REGION_MARKS];

/* Records that `region_id` has ended.  Async-signal-safe: yes; any thread. */
static void mark_region_ended(uint64_t region_id)
{
    _Atomic uint64_t *slot = &region_end_marks[region_id % OC_REGION_MARKS];
    uint64_t seen = atomic_load_explicit(slot, memory_order_relaxed);
    while (seen < region_id
           && !atomic_compare_exchange_weak_explicit(slot, &seen, region_id, memory_order_release,
                                                     memory_order_relaxed)) {
    }
}

/*
 * Whether `region_id` has ended.  A later region of the same residue having
 * ended counts too: it can only mislabel a thread that has waited through
 * thousands of younger regions, as idle, which it then all but is.
 * Async-signal-safe: yes; any thread.
 */
int oc_region_has_ended(uint64_t region_id)
{
    if (region_id == 0)
        return 0;
    return atomic_load_explicit(&region_end_marks[region_id % OC_REGION_MARKS],
                                memory_order_acquire)
           >= region_id;
}

/* Ends a mutex wait left open by an acquire that never waited (a failed omp_test_lock on 13-16). */
static void close_open_wait(void)
{
    if (oc_self.open_wait_source != 0) {
        int source = oc_self.open_wait_source - 1;
        oc_self.open_wait_source = 0;
        oc_end_pair(source);
    }
}

/*
 * gcc-compiled code never reports the end of a single region to libomp;
 * the single has ended by the time its thread meets the next barrier or
 * leaves the team at the same depth, so the END is delivered then.
 */
static void close_open_single(void)
{
    if (oc_self.open_single_depth != 0 && oc_self.open_single_depth == oc_self.depth + 1) {
        oc_self.open_single_depth = 0;
        oc_end_pair(OC_SRC_single_executor);
    }
}

/* A worker has left its team: it is idle until its next implicit task. */
static void enter_idle(void)
{
    if (!oc_self.idle) {
        oc_self.idle = 1;
        oc_begin_pair(OC_SRC_worker_idle);
    }
}

static void leave_idle(void)
{
    if (oc_self.idle) {
        oc_self.idle = 0;
        oc_end_pair(OC_SRC_worker_idle);
    }
}

/* A thread is born; workers start out idle. */
static void on_ompt_callback_thread_begin(ompt_thread_t thread_type, ompt_data_t *thread_data)
{
    (void)thread_data;
    if (thread_type == ompt_thread_worker) {
        oc_self.is_worker = 1;
        enter_idle();
    }
}

/* A thread dies; close whatever it still has open so pairs stay balanced. */
static void on_ompt_callback_thread_end(ompt_data_t *thread_data)
{
    (void)thread_data;
    close_open_wait();
    leave_idle();
}

/*
 * A new region: give it its id (ids below 2^31 for the first 2^31 regions,
 * as clients keep them in 32 bits) and deliver FORK while CURRENT_PRID and
 * PARENT_PRID answer for it.
 */
static void on_ompt_callback_parallel_begin(ompt_data_t *encountering_task_data,
                                            const ompt_frame_t *encountering_task_frame,
                                            ompt_data_t *parallel_data,
                                            unsigned int requested_parallelism, int flags,
                                            const void *codeptr_ra)
{
    (void)encountering_task_data, (void)encountering_task_frame, (void)requested_parallelism;
    (void)flags, (void)codeptr_ra;
    close_open_wait();
    uint64_t region_id = atomic_fetch_add_explicit(&oc_next_region_id, 1, memory_order_relaxed);
    if (parallel_data != NULL)
        parallel_data->value = region_id;
    struct oc_frame *enclosing = oc_top_frame(&oc_self);
    oc_self.fork_parent_id = enclosing != NULL ? enclosing->region_id : 0;
    oc_self.fork_region_id = region_id;
    if (oc_self.forked_depth < OC_MAX_NEST)
        oc_self.forked[oc_self.forked_depth] = region_id;
    oc_self.forked_depth++;
    oc_emit(OMP_EVENT_FORK);
    oc_self.fork_region_id = 0;
}

/*
 * The id of the region whose end the calling master is told of.  The
 * regions one thread forks end in the reverse order, so its own list names
 * the region; parallel_data cannot be trusted here, because libomp frees a
 * nested team before reporting its end, and on a busy machine another
 * thread's fork can take the team over and overwrite its data in between.
 * A region forked before the shim was watching falls back to the data.
 */
static uint64_t ending_region_id(const ompt_data_t *parallel_data)
{
    if (oc_self.forked_depth > 0) {
        oc_self.forked_depth--;
        if (oc_self.forked_depth < OC_MAX_NEST)
            return oc_self.forked[oc_self.forked_depth];
    }
    return parallel_data != NULL ? parallel_data->value : 0;
}

/* The team has passed its closing barrier: mark the region ended and deliver JOIN. */
static void on_ompt_callback_parallel_end(ompt_data_t *parallel_data,
                                          ompt_data_t *encountering_task_data, int flags,
                                          const void *codeptr_ra)
{
    (void)encountering_task_data, (void)flags, (void)codeptr_ra;
    close_open_wait();
    uint64_t region_id = ending_region_id(parallel_data);
    mark_region_ended(region_id);
    struct oc_frame *enclosing = oc_top_frame(&oc_self);
    oc_self.fork_parent_id = enclosing != NULL ? enclosing->region_id : 0;
    oc_self.fork_region_id = region_id;
    oc_emit(OMP_EVENT_JOIN);
    oc_self.fork_region_id = 0;
}

/*
 * The id of a region whose team a thread enters.  A region forked before
 * the shim set parallel_begin (START came later) has none yet: the first
 * thread of its team to arrive gives it one, so that a thread inside a
 * region never answers region id 0.
 */
static uint64_t region_id_of(ompt_data_t *parallel_data)
{
    if (parallel_data == NULL)
        return 0;
    uint64_t id = __atomic_load_n(&parallel_data->value, __ATOMIC_ACQUIRE);
    if (id != 0)
        return id;
    uint64_t fresh = atomic_fetch_add_explicit(&oc_next_region_id, 1, memory_order_relaxed);
    if (__atomic_compare_exchange_n(&parallel_data->value, &id, fresh, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return fresh;
    return id;
}

/*
 * A thread enters or leaves a team.  Frames beyond OC_MAX_NEST share the
 * last slot: ids stay right on the way in, and on the way out the thread
 * reports the deepest region it remembers until it is back in range.
 */
static void on_ompt_callback_implicit_task(ompt_scope_endpoint_t endpoint,
                                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                                           unsigned int actual_parallelism, unsigned int index,
                                           int flags)
{
    (void)task_data, (void)actual_parallelism;
    if (flags & ompt_task_initial)
        return;
    close_open_wait();
    if ((int)endpoint == OC_SCOPE_BEGIN) {
        if (oc_self.depth == 0 && index != 0)
            oc_self.is_worker = 1;
        leave_idle();
        int level = oc_self.depth < OC_MAX_NEST ? oc_self.depth : OC_MAX_NEST - 1;
        struct oc_frame *frame = &oc_self.frames[level];
        frame->region_id = region_id_of(parallel_data);
        frame->barrier_seq = 0;
        frame->team_index = (int32_t)index;
        oc_self.depth++;
    } else if ((int)endpoint == OC_SCOPE_END && oc_self.depth > 0) {
        close_open_single();
        oc_self.depth--;
        if (oc_self.depth == 0 && oc_self.is_worker)
            enter_idle();
    }
}

static int is_barrier_kind(int kind)
{
    return kind == OC_SYNC_BARRIER || kind == OC_SYNC_BARRIER_IMPLICIT
           || kind == OC_SYNC_BARRIER_EXPLICIT || kind == OC_SYNC_BARRIER_IMPLEMENTATION
           || kind == OC_SYNC_BARRIER_IMPLICIT_WORKSHARE
           || kind == OC_SYNC_BARRIER_IMPLICIT_PARALLEL || kind == OC_SYNC_BARRIER_TEAMS;
}

/*
 * Barrier and task waits.  Every thread of a team meets the same barriers in
 * the same order, so (region id, barrier count) names one barrier instance
 * identically on all of them: that is the wait id STATE reports.
 */
static void on_ompt_callback_sync_region_wait(ompt_sync_region_t kind,
                                              ompt_scope_endpoint_t endpoint,
                                              ompt_data_t *parallel_data, ompt_data_t *task_data,
                                              const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)codeptr_ra;
    int sync_kind = (int)kind;
    close_open_wait();
    if (sync_kind == OC_SYNC_TASKWAIT || sync_kind == OC_SYNC_TASKGROUP) {
        oc_self.in_task_wait = (int)endpoint == OC_SCOPE_BEGIN;
        return;
    }
    if (!is_barrier_kind(sync_kind))
        return;
    if ((int)endpoint == OC_SCOPE_BEGIN) {
        close_open_single();
        struct oc_frame *frame = oc_top_frame(&oc_self);
        uint32_t seq = frame != NULL ? ++frame->barrier_seq : 0;
        uint64_t region_id = frame != NULL ? frame->region_id : 0;
        oc_self.last_sync_kind = sync_kind;
        oc_self.barrier_wait_id = (region_id << 24) | (seq & 0xffffffu);
        int source = oc_source_begun_by(OC_CB_sync_region_wait, sync_kind);
        if (source >= 0)
            oc_begin_pair(source);
    } else {
        int source = oc_source_ended_by(OC_CB_sync_region_wait, sync_kind);
        if (source >= 0)
            oc_end_pair(source);
    }
}

/* A thread tries to take a lock, critical, atomic or ordered: remember which, open the wait. */
static void on_ompt_callback_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                                           ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)hint, (void)impl, (void)wait_id, (void)codeptr_ra;
    close_open_wait();
    oc_self.last_mutex_kind = (int)kind;
    int source = oc_source_begun_by(OC_CB_mutex_acquire, (int)kind);
    if (source >= 0) {
        oc_self.open_wait_source = source + 1;
        oc_begin_pair(source);
    }
}

/* The wait is over; for ordered, the ordered region itself begins. */
static void on_ompt_callback_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                            const void *codeptr_ra)
{
    (void)wait_id, (void)codeptr_ra;
    close_open_wait();
    int source = oc_source_begun_by(OC_CB_mutex_acquired, (int)kind);
    if (source >= 0)
        oc_begin_pair(source);
}

/* Leaving an ordered region (other releases end no legacy pair). */
static void on_ompt_callback_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                            const void *codeptr_ra)
{
    (void)wait_id, (void)codeptr_ra;
    int source = oc_source_ended_by(OC_CB_mutex_released, (int)kind);
    if (source >= 0)
        oc_end_pair(source);
}

/* Re-taking a nest lock the thread owns ends its (zero-length) wait. */
static void on_ompt_callback_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                                       const void *codeptr_ra)
{
    (void)endpoint, (void)wait_id, (void)codeptr_ra;
    close_open_wait();
}

/* Worksharing constructs; only the single executor maps to a legacy pair. */
static void on_ompt_callback_work(ompt_work_t work_type, ompt_scope_endpoint_t endpoint,
                                  ompt_data_t *parallel_data, ompt_data_t *task_data,
                                  uint64_t count, const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)count, (void)codeptr_ra;
    close_open_wait();
    if ((int)endpoint == OC_SCOPE_BEGIN) {
        close_open_single();
        int source = oc_source_begun_by(OC_CB_work, (int)work_type);
        if (source == OC_SRC_single_executor)
            oc_self.open_single_depth = oc_self.depth + 1;
        if (source >= 0)
            oc_begin_pair(source);
    } else {
        int source = oc_source_ended_by(OC_CB_work, (int)work_type);
        if (source == OC_SRC_single_executor)
            oc_self.open_single_depth = 0;
        if (source >= 0)
            oc_end_pair(source);
    }
}

/* master and masked constructs. */
static void on_ompt_callback_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                    ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)codeptr_ra;
    close_open_wait();
    if ((int)endpoint == OC_SCOPE_BEGIN)
        oc_begin_pair(OC_SRC_masked);
    else
        oc_end_pair(OC_SRC_masked);
}

/* Handlers in callback-bit order, cast to the generic type set_callback takes. */
static const ompt_callback_t handlers[OC_CB_COUNT] = {
#define OC_HANDLER(name) (ompt_callback_t)on_ompt_callback_##name,
    OC_OMPT_CALLBACKS(OC_HANDLER)
#undef OC_HANDLER
};

/*
 * Sets, with the runtime, every callback in `wanted` (limited to what it
 * granted) that is not set yet.  A callback once set stays set until the
 * runtime finalizes: libomp dispatches by testing an enabled flag and then
 * loading the pointer, and its set_callback stores the pointer before it
 * clears the flag, so unsetting (or replacing) a callback while another
 * thread is inside the runtime can make that thread call NULL.  Handlers
 * left set after UNREGISTER or STOP cost a few loads each and deliver
 * nothing: oc_emit decides, lock-free, whether a legacy event is wanted.
 * Caller holds the control lock.
 */
void oc_apply_callbacks(oc_callback_mask wanted)
{
    if (!atomic_load(&oc_tool_attached) || oc_runtime.set_callback == NULL)
        return;
    oc_callback_mask missing = wanted & oc_granted & ~callbacks_set;
    for (int i = 0; i < OC_CB_COUNT; i++)
        if (missing & ((oc_callback_mask)1u << i))
            oc_runtime.set_callback((ompt_callbacks_t)oc_callback_ompt_id(i), handlers[i]);
    callbacks_set |= missing;
}

/*
 * The runtime accepted the tool.  Learn what it grants by setting and
 * unsetting each callback once -- safe here only because the runtime is
 * still initialising and no thread can be dispatching yet -- then set what
 * a session started early (from a collector's constructor) already needs.
 */
static int on_tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                              ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    oc_control_lock();
    oc_runtime.set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    oc_runtime.get_state = (ompt_get_state_t)lookup("ompt_get_state");
    oc_runtime.get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    if (oc_runtime.set_callback == NULL || oc_runtime.get_state == NULL) {
        oc_log("runtime lacks ompt_set_callback or ompt_get_state; not attaching");
        oc_control_unlock();
        return 0;
    }
    oc_granted = 0;
    for (int i = 0; i < OC_CB_COUNT; i++) {
        ompt_callbacks_t id = (ompt_callbacks_t)oc_callback_ompt_id(i);
        int result = (int)oc_runtime.set_callback(id, handlers[i]);
        if (result >= (int)ompt_set_sometimes)
            oc_granted |= (oc_callback_mask)1u << i;
        oc_runtime.set_callback(id, NULL);
        oc_log("callback %s: set_callback answered %d", oc_callback_name(i), result);
    }
    callbacks_set = 0;
    atomic_store(&oc_tool_attached, 1);
    oc_apply_callbacks(oc_wanted_callbacks());
    oc_control_unlock();
    return 1;
}

/* The runtime is shutting down; this is the only place the shim lets go of it. */
static void on_tool_finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    oc_control_lock();
    atomic_store(&oc_tool_attached, 0);
    atomic_store(&oc_tool_finalized, 1);
    callbacks_set = 0;
    oc_control_unlock();
    oc_log("runtime finalized the tool");
}

static ompt_start_tool_result_t start_tool_result = {on_tool_initialize, on_tool_finalize, {0}};

/*
 * When the runtime loaded us from OMP_TOOL_LIBRARIES it did so RTLD_LOCAL,
 * where a collector's dlsym(RTLD_DEFAULT, ...) cannot see us.  Reopening our
 * own file with RTLD_NOLOAD | RTLD_GLOBAL puts us in the global scope.
 */
static void make_symbols_global(void)
{
    Dl_info self_info;
    if (dladdr((void *)&start_tool_result, &self_info) == 0 || self_info.dli_fname == NULL)
        return;
    void *handle = dlopen(self_info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
    if (handle == NULL)
        oc_log("could not make %s global", self_info.dli_fname);
}

/* What the exported ompt_start_tool does; internal callers use this name. */
ompt_start_tool_result_t *oc_start_tool(unsigned int omp_version, const char *runtime_version)
{
    oc_log_init();
    oc_log("offered by runtime '%s' (OpenMP %u)", runtime_version ? runtime_version : "?",
           omp_version);
    make_symbols_global();
    return &start_tool_result;
}

OC_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                    const char *runtime_version)
{
    return oc_start_tool(omp_version, runtime_version);
}

/*
 * START came before the runtime took us on.  If an OpenMP runtime is in the
 * process, enter it once: its first entry runs tool discovery, which finds
 * us if we are visible, and does nothing if it already ran without us.
 * Returns 1 attached, 0 impossible, -1 no runtime yet (stay pending).
 * Called without the control lock: discovery calls on_tool_initialize.
 */
int oc_try_attach(void)
{
    if (atomic_load(&oc_tool_attached))
        return 1;
    if (atomic_load(&oc_tool_finalized))
        return 0;
    int (*runtime_entry)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    if (runtime_entry == NULL)
        return -1;
    (void)runtime_entry();
    return atomic_load(&oc_tool_attached) ? 1 : 0;
}
