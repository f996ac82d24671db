/* tool.c - the OMPT tool half: rendezvous with the runtime and the on_ompt_callback_* handlers. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "internal.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

__thread struct oc_thread oc_self __attribute__((tls_model("initial-exec"))) = {
    .delivery_slot = &oc_slot_unclaimed,
};

struct oc_runtime oc_runtime;
_Atomic int oc_tool_attached;
_Atomic int oc_tool_finalized;
oc_callback_mask oc_granted;
_Atomic uint64_t oc_next_region_id = 1;

/* Callbacks currently set with the runtime; changed under the control lock. */
static oc_callback_mask callbacks_set;
/* The same, for readers on any thread (GOMP_barrier's trampoline). */
static _Atomic oc_callback_mask callbacks_followed;

/*
 * Ended-region marks, indexed by region id modulo their number.  A worker
 * whose team's region has ended is idle, but libomp tells the worker so only
 * when it is next released (t/conformance/checks/state-idle.c); the
 * master's parallel_end is the first word of it.  A slot holds the largest id of its residue class that has ended.
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

/*
 * Task ids count from 1 for the life of the process; thread tags likewise.
 * A thread takes task ids in blocks of OC_TASK_ID_BLOCK, so that a fine
 * task program does not write one shared cache line for every task (a
 * locked add per task was most of the shim's task_create cost in GCC's
 * fib).  Ids still grow with time on each thread, and a task's id stays
 * above its parent's, which the report's task graph relies on: a thread
 * whose next id is not above the parent's (a task another thread made,
 * from a later block) takes a fresh block, above every id given so far.
 */
#define OC_TASK_ID_BLOCK 256
static _Atomic uint64_t oc_next_task_id = 1;
static _Atomic uint32_t next_thread_tag = 1;

/* The first id of a fresh block, which becomes this thread's (the uncommon half of task_id_after). */
static __attribute__((noinline)) uint64_t task_id_block(void)
{
    uint64_t first = atomic_fetch_add_explicit(&oc_next_task_id, OC_TASK_ID_BLOCK, memory_order_relaxed);
    oc_self.task_id_end = first + OC_TASK_ID_BLOCK;
    return first;
}

/* A new task id, above `parent_id` and above every id this thread gave before. */
static inline __attribute__((always_inline)) uint64_t task_id_after(uint64_t parent_id)
{
    uint64_t id = oc_self.task_id_next;
    if (__builtin_expect(id <= parent_id || id >= oc_self.task_id_end, 0))
        id = task_id_block();
    oc_self.task_id_next = id + 1;
    return id;
}

void oc_task_ids_restart(uint64_t next)
{
    atomic_store_explicit(&oc_next_task_id, next, memory_order_relaxed);
    oc_self.task_id_next = oc_self.task_id_end = 0;
}

/* This thread's tag, given at first need; 0 is skipped, it means "unknown". */
static uint32_t thread_tag(void)
{
    while (oc_self.tag == 0)
        oc_self.tag = atomic_fetch_add_explicit(&next_thread_tag, 1, memory_order_relaxed);
    return oc_self.tag;
}

/*
 * A task's record travels from the thread that creates it to the thread
 * that runs it through the runtime's queues, whose synchronisation the
 * compiler and ThreadSanitizer cannot see; publishing the pointer with
 * release and reading it with acquire makes the record's fields visible
 * whole on the thread that picks it up.
 */
static void task_publish(ompt_data_t *task_data, struct oc_task *task)
{
    __atomic_store_n(&task_data->ptr, task, __ATOMIC_RELEASE);
}

/* The record published for `task_data`, NULL when none is. */
static struct oc_task *task_of(ompt_data_t *task_data)
{
    return task_data != NULL ? __atomic_load_n(&task_data->ptr, __ATOMIC_ACQUIRE) : NULL;
}

/*
 * Task records a thread keeps for reuse: every region gives each thread an
 * implicit task and every task construct a record, and one taken from here
 * costs a few instructions where calloc and free cost a few hundred.  A
 * record goes to the list of the thread that frees it, whichever thread
 * made it, and is taken by that thread's next task: a thread that creates
 * tasks others run keeps allocating, one that runs them keeps at most
 * this many (72 bytes each).  libomp's task deque holds 256 tasks before
 * it runs the next one at once, so a thread creating and then running its
 * own tasks cycles through no more records between two task waits.
 */
#define OC_SPARE_TASKS 256

/*
 * Whether finished explicit tasks' records are reused.  Not under the
 * sanitizers: a record read on one thread and freed on another is ordered
 * only by the runtime, which ThreadSanitizer cannot see and before which
 * free() and calloc() reset what it knows; AddressSanitizer finds a use
 * after free only in freed memory.
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define OC_REUSE_EXPLICIT_TASKS 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define OC_REUSE_EXPLICIT_TASKS 0
#endif
#endif
#ifndef OC_REUSE_EXPLICIT_TASKS
#define OC_REUSE_EXPLICIT_TASKS 1
#endif

/* A zeroed task record from the heap, NULL when memory is short (the uncommon half of task_new). */
static __attribute__((noinline)) struct oc_task *task_alloc(void)
{
    return calloc(1, sizeof(struct oc_task));
}

/* A fresh task with the next id, or NULL when memory is short: the task then goes unfollowed. */
static inline __attribute__((always_inline)) struct oc_task *task_new(uint64_t parent_id)
{
    struct oc_task *task = oc_self.spare_tasks;
    if (task != NULL) {
        oc_self.spare_tasks = task->below;
        oc_self.spare_task_count--;
        memset(task, 0, sizeof *task);
    } else {
        task = task_alloc();
        if (task == NULL)
            return NULL;
    }
    task->id = task_id_after(parent_id);
    task->parent_id = parent_id;
    return task;
}

/* Frees this thread's spare task records (its end). */
static void free_spare_tasks(void)
{
    struct oc_task *task;
    while ((task = oc_self.spare_tasks) != NULL) {
        oc_self.spare_tasks = task->below;
        free(task);
    }
    oc_self.spare_task_count = 0;
}

/* The id a task made now would name as its parent: the running task's, 0 when none is followed. */
static uint64_t running_task_id(void)
{
    const struct oc_task *task = oc_self.task_top;
    return task != NULL ? task->id : 0;
}

/*
 * Region -> the task that met its parallel construct, for the workers'
 * implicit tasks: the master writes it at parallel_begin, before any worker
 * reports its implicit task.  The region word is cleared while a slot
 * changes, so a reader that sees its region before and after reading the
 * parent read a whole pair; a slot taken over by a later region of the same
 * residue answers "unknown", never a wrong parent.
 */
#define OC_REGION_PARENT_SLOTS 1024
static _Atomic uint64_t region_parent_slots[OC_REGION_PARENT_SLOTS][2];

static void remember_region_parent(uint64_t region_id, uint64_t parent_task_id)
{
    _Atomic uint64_t *slot = region_parent_slots[region_id % OC_REGION_PARENT_SLOTS];
    atomic_store(&slot[0], 0);
    atomic_store(&slot[1], parent_task_id);
    atomic_store(&slot[0], region_id);
}

static uint64_t region_parent(uint64_t region_id)
{
    _Atomic uint64_t *slot = region_parent_slots[region_id % OC_REGION_PARENT_SLOTS];
    if (region_id == 0 || atomic_load(&slot[0]) != region_id)
        return 0;
    uint64_t parent = atomic_load(&slot[1]);
    return atomic_load(&slot[0]) == region_id ? parent : 0;
}

/* Puts `task` on top of this thread's chain; a signal handler sees it only once it is whole. */
static void chain_push(struct oc_task *task)
{
    task->below = oc_self.task_top;
    task->running = 1;
    task->suspended = 0;
    task->in_task_wait = 0;
    task->in_reduction = 0;
    atomic_signal_fence(memory_order_seq_cst);
    oc_self.task_top = task;
    atomic_signal_fence(memory_order_seq_cst);
}

/* Takes the top task off this thread's chain; once this returns it may be freed. */
static struct oc_task *chain_pop(void)
{
    struct oc_task *task = oc_self.task_top;
    oc_self.task_top = task->below;
    atomic_signal_fence(memory_order_seq_cst);
    task->below = NULL;
    task->running = 0;
    return task;
}

/* Whether `task` is on this thread's chain. */
static int chain_holds(const struct oc_task *task)
{
    for (const struct oc_task *t = oc_self.task_top; t != NULL; t = t->below)
        if (t == task)
            return 1;
    return 0;
}

/* What OMPCOLLECTOR_EVENT_TASK says of `task`'s flags: OMPCOLLECTOR_TASK_*. */
static int task_public_flags(int ompt_flags)
{
    return (ompt_flags & OC_TASK_FLAG_UNDEFERRED ? OMPCOLLECTOR_TASK_UNDEFERRED : 0)
           | (ompt_flags & OC_TASK_FLAG_UNTIED ? OMPCOLLECTOR_TASK_UNTIED : 0)
           | ((unsigned int)ompt_flags & OC_TASK_FLAG_MERGED ? OMPCOLLECTOR_TASK_MERGED : 0);
}

/*
 * Phase `phase` of the payload events for a task the shim follows (an
 * explicit one; an implicit one's task waits), with its record as the
 * payload; out of line, so that handlers without a collector of them pay
 * one test.  `open` as oc_emit_task's.
 */
static inline __attribute__((always_inline)) void task_phase_here(int phase, const struct oc_task *task, int flags,
                                                                  uint32_t *open)
{
    ompcollector_task_event_t payload = {task->id, task->parent_id, task->codeptr,
                                         oc_current_region_id(THR_WORK_STATE),
                                         task->public_flags | flags, (int)task->parts};
    oc_emit_task(phase, &payload, open);
}

static OC_SLOW_PATH void task_phase(int phase, const struct oc_task *task, int flags, uint32_t *open)
{
    task_phase_here(phase, task, flags, open);
}

/* Whether any of `events` (OC_EVENT_BIT of payload events) is live: the one load a handler pays for them. */
static inline int payload_live(uint64_t events)
{
    return (atomic_load_explicit(&oc_live_events, memory_order_relaxed) & events) != 0;
}

/* The payload events with BEGIN and END (OMPCOLLECTOR_EVENT_TASK, _TASK_LOG). */
#define OC_RUN_PHASE_EVENTS (OC_EVENT_BIT(OC_EVENT_TASK) | OC_EVENT_BIT(OC_EVENT_TASK_LOG))

/* The running task leaves the thread for another one: SUSPEND opens while TASK_ID still names it. */
static inline __attribute__((always_inline)) void suspend_top(void)
{
    struct oc_task *top = oc_self.task_top;
    if (top != NULL && !top->suspended) {
        top->suspended = 1;
        oc_begin_pair(OC_SRC_task_suspend);
        if (!top->implicit && payload_live(OC_EVENT_BIT(OC_EVENT_TASK)))
            task_phase(OMPCOLLECTOR_TASK_SUSPEND, top, 0, &top->suspend_open);
    }
}

/* The task on top has the thread back. */
static inline __attribute__((always_inline)) void resume_top(void)
{
    struct oc_task *top = oc_self.task_top;
    if (top != NULL && top->suspended) {
        top->suspended = 0;
        if (top->suspend_open != 0)
            task_phase(OMPCOLLECTOR_TASK_RESUME, top, 0, &top->suspend_open);
        oc_end_pair(OC_SRC_task_suspend);
    }
}

/*
 * An explicit task starts running on this thread, on top of the task it
 * suspends.  A task the runtime queued is scheduled first (SCHD, with
 * STEAL when another thread made it, and FETCHED); one created undeferred
 * runs at once.  TASK_ID names the new task from SCHD on.
 */
static void start_task(struct oc_task *task)
{
    suspend_top();
    chain_push(task);
    task->parts++;
    if (!(task->flags & OC_TASK_FLAG_UNDEFERRED)) {
        oc_begin_pair(OC_SRC_task_schedule);
        if (task->creator != 0 && task->creator != thread_tag()) {
            oc_begin_pair(OC_SRC_task_steal);
            oc_end_pair(OC_SRC_task_steal);
        }
        oc_emit(OMP_EVENT_THR_FETCHED_TASK);
        oc_end_pair(OC_SRC_task_schedule);
    }
    oc_begin_pair(OC_SRC_task_execute);
    if (payload_live(OC_RUN_PHASE_EVENTS)) {
        int stolen = !(task->flags & OC_TASK_FLAG_UNDEFERRED) && task->creator != 0 && task->creator != thread_tag();
        task_phase(OMPCOLLECTOR_TASK_BEGIN, task, stolen ? OMPCOLLECTOR_TASK_STOLEN : 0, &task->run_open);
    }
}

/*
 * The top task's run on this thread ends.  For an explicit task EXEC's pair
 * closes with the BEGIN_FINISH that the FINISH pair delivers (once), then
 * END_FINISH, all while TASK_ID still names the task.  Returns the task,
 * off the chain.
 */
static inline __attribute__((always_inline)) struct oc_task *finish_top(void)
{
    struct oc_task *top = oc_self.task_top;
    if (top->suspended)
        resume_top();
    if (!top->implicit) {
        /* oc_drop_pair's test inline: most threads have no EXEC pair open. */
        if (oc_self.open_pair_rows & OC_SOURCE_BIT(OC_SRC_task_execute))
            oc_drop_pair(OC_SRC_task_execute);
        oc_begin_pair(OC_SRC_task_finish);
        oc_end_pair(OC_SRC_task_finish);
        if (top->run_open != 0)
            task_phase(OMPCOLLECTOR_TASK_END, top, top->completing ? OMPCOLLECTOR_TASK_COMPLETING : 0, &top->run_open);
    }
    return chain_pop();
}

/* Frees a task that will not run again (or keeps its record for reuse), and forgets it in the runtime's data. */
static inline __attribute__((always_inline)) void task_free(struct oc_task *task, ompt_data_t *task_data)
{
    if (task_of(task_data) == task)
        task_publish(task_data, NULL);
    /* Off every chain and out of the runtime's data: nothing names it now but a reuse (OC_SPARE_TASKS). */
    if ((task->implicit || OC_REUSE_EXPLICIT_TASKS) && oc_self.spare_task_count < OC_SPARE_TASKS) {
        task->below = oc_self.spare_tasks;
        oc_self.spare_tasks = task;
        oc_self.spare_task_count++;
        return;
    }
    free(task);
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

/* A thread dies; close whatever it still has open so pairs stay balanced, then free its delivery slot. */
static void on_ompt_callback_thread_end(ompt_data_t *thread_data)
{
    (void)thread_data;
    close_open_wait();
    leave_idle();
    oc_release_delivery_slot();
    free_spare_tasks();
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
    close_open_wait();
    uint64_t region_id = atomic_fetch_add_explicit(&oc_next_region_id, 1, memory_order_relaxed);
    if (parallel_data != NULL)
        __atomic_store_n(&parallel_data->value, region_id, __ATOMIC_RELEASE); /* region_id_of reads it */
    struct oc_frame *enclosing = oc_self.top_frame;
    oc_self.fork_parent_id = enclosing != NULL ? enclosing->region_id : 0;
    oc_self.fork_region_id = region_id;
    if (oc_self.forked_depth < OC_MAX_NEST)
        oc_self.forked[oc_self.forked_depth] = region_id;
    oc_self.forked_depth++;
    remember_region_parent(region_id, running_task_id());
    /* A team's initial thread forks at the depth its league's task began: the league encloses that fork. */
    uint64_t enclosing_id = oc_self.league_region_id != 0 && oc_self.depth == oc_self.league_depth
                                ? oc_self.league_region_id : oc_self.fork_parent_id;
    oc_remember_region(region_id, enclosing_id, codeptr_ra, flags);
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
    struct oc_frame *enclosing = oc_self.top_frame;
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
 * The implicit task a thread runs in a team goes on its chain of tasks.
 * Its parent is the task that met the parallel construct: on the master
 * the task it runs, on a worker the one the master remembered for the
 * region.
 */
static void begin_implicit_task(uint64_t region_id, unsigned int index, ompt_data_t *task_data)
{
    struct oc_task *task = task_new(index == 0 ? running_task_id() : region_parent(region_id));
    if (task == NULL)
        return;
    task->implicit = 1;
    task->flags = OC_TASK_FLAG_IMPLICIT;
    task->region_id = region_id;
    if (task_data != NULL)
        task_publish(task_data, task);
    chain_push(task);
}

/* The innermost implicit task on the chain ends; explicit tasks still above it never reported theirs. */
static void end_implicit_task(ompt_data_t *task_data)
{
    struct oc_task *top;
    while ((top = oc_self.task_top) != NULL && !top->implicit) {
        top->completing = 1;
        (void)finish_top();
    }
    if (top != NULL)
        task_free(chain_pop(), task_data);
}

/*
 * The initial task of a team of a league begins or ends on this thread
 * (the program's own initial task too, whose region is no league): it
 * opens no frame, as for the program's, but the regions the team forks
 * at this depth are told to be the league's own teams by it.
 */
static void initial_task_of_a_team(ompt_scope_endpoint_t endpoint, const ompt_data_t *parallel_data)
{
    if ((int)endpoint == OC_SCOPE_BEGIN) {
        uint64_t id = parallel_data != NULL ? __atomic_load_n(&parallel_data->value, __ATOMIC_ACQUIRE) : 0;
        if (oc_region_is_league(id)) {
            oc_self.league_region_id = id;
            oc_self.league_depth = oc_self.depth;
        }
    } else if ((int)endpoint == OC_SCOPE_END && oc_self.depth == oc_self.league_depth) {
        oc_self.league_region_id = 0;
    }
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
    (void)actual_parallelism;
    if (flags & ompt_task_initial) {
        initial_task_of_a_team(endpoint, parallel_data);
        return;
    }
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
        oc_self.top_frame = frame;
        begin_implicit_task(frame->region_id, index, task_data);
    } else if ((int)endpoint == OC_SCOPE_END) {
        if (oc_self.depth > 0)
            close_open_single();
        end_implicit_task(task_data);
        if (oc_self.depth > 0) {
            int32_t depth = --oc_self.depth;
            /* oc_top_frame for the new depth: the frame below, or the shared last one past OC_MAX_NEST. */
            oc_self.top_frame = depth <= 0 ? NULL
                                : depth < OC_MAX_NEST ? oc_self.top_frame - 1
                                                      : oc_self.top_frame;
            if (oc_self.depth == 0 && oc_self.is_worker)
                enter_idle();
        }
    }
}

/* The sync-region kinds that are barriers, as a bit set: one test per callback. */
#define OC_BARRIER_KINDS                                                                     \
    ((1u << OC_SYNC_BARRIER) | (1u << OC_SYNC_BARRIER_IMPLICIT) | (1u << OC_SYNC_BARRIER_EXPLICIT) \
     | (1u << OC_SYNC_BARRIER_IMPLEMENTATION) | (1u << OC_SYNC_BARRIER_IMPLICIT_WORKSHARE)     \
     | (1u << OC_SYNC_BARRIER_IMPLICIT_PARALLEL) | (1u << OC_SYNC_BARRIER_TEAMS))

static int is_barrier_kind(int kind)
{
    return (unsigned)kind < 32 && ((OC_BARRIER_KINDS >> kind) & 1u);
}

/*
 * The barrier kind to go by.  gcc code calls GOMP_barrier for its explicit
 * barriers and also to end a single or a statically scheduled loop, and
 * libomp reports every such barrier as an implementation barrier
 * (t/conformance/checks/gcc-explicit-barrier.c, gcc-loop-barrier.c).  With
 * OMPCOLLECTOR_GCC_BARRIERS=explicit, a barrier wait that begins right
 * after such a call (lib/gomp.c marked the thread) counts as explicit,
 * unless a single began at this depth since the last barrier (that is the
 * single's own); a static loop's end cannot be told apart and counts as
 * explicit too (doc/mapping.md).  The end is matched by depth, since a task
 * run inside the wait may meet barriers of a nested team in between.
 */
static int explicit_in_gcc_code(int sync_kind, int endpoint)
{
    int level = oc_self.depth < 31 ? oc_self.depth : 31;
    uint32_t level_bit = 1u << level;
    if (endpoint == OC_SCOPE_BEGIN) {
        int marked = oc_self.explicit_barrier_pending != 0
                     && !(oc_self.single_since_barrier & level_bit);
        oc_self.explicit_barrier_pending = 0;
        oc_self.single_since_barrier &= ~level_bit;
        if (marked && (sync_kind == OC_SYNC_BARRIER_IMPLEMENTATION || sync_kind == OC_SYNC_BARRIER)) {
            oc_self.promoted_barriers |= level_bit;
            return OC_SYNC_BARRIER_EXPLICIT;
        }
        oc_self.promoted_barriers &= ~level_bit;
        return sync_kind;
    }
    if (oc_self.promoted_barriers & level_bit) {
        oc_self.promoted_barriers &= ~level_bit;
        return OC_SYNC_BARRIER_EXPLICIT;
    }
    return sync_kind;
}


/*
 * Barrier and task waits.  Every thread of a team meets the same barriers in
 * the same order, so (region id, barrier count) names one barrier instance
 * identically on all of them: that is the wait id STATE reports.
 */
static OC_SLOW_PATH void sync_region_wait_general(ompt_sync_region_t kind,
                                                               ompt_scope_endpoint_t endpoint,
                                                               ompt_data_t *parallel_data,
                                                               ompt_data_t *task_data,
                                                               const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data;
    int sync_kind = (int)kind;
    int begin = (int)endpoint == OC_SCOPE_BEGIN;
    close_open_wait();
    if (sync_kind == OC_SYNC_TASKWAIT || sync_kind == OC_SYNC_TASKGROUP) {
        /*
         * The wait and where it is belong to the waiting task: a task run
         * inside the wait has its own, and a task run inside a barrier's
         * wait must leave the barrier's call site as it was.
         */
        int wait = !begin ? 0 : sync_kind == OC_SYNC_TASKWAIT ? OMPCOLLECTOR_WAIT_TASKWAIT : OMPCOLLECTOR_WAIT_TASKGROUP;
        struct oc_task *task = oc_self.task_top;
        if (task != NULL) {
            task->in_task_wait = (uint8_t)wait;
            task->wait_codeptr = (uint64_t)(uintptr_t)codeptr_ra; /* as the runtime gave it: extension.c, task_wait_site */
        } else {
            oc_self.in_task_wait = wait;
            oc_self.task_wait_codeptr = (uint64_t)(uintptr_t)codeptr_ra;
        }
        /* OMPCOLLECTOR_EVENT_BEGIN/END_TASK_WAIT, delivered while the waiting task is still the one TASK_ID names. */
        /* OMPCOLLECTOR_EVENT_TASK_LOG's WAIT_BEGIN after the BEGIN, its WAIT_END before the END: the pairs nest. */
        int implicit = task != NULL && task->implicit ? OMPCOLLECTOR_TASK_IMPLICIT : 0;
        if (begin) {
            oc_begin_pair_by(OC_CB_sync_region_wait, sync_kind);
            if (task != NULL && payload_live(OC_EVENT_BIT(OC_EVENT_TASK_LOG)))
                task_phase(OMPCOLLECTOR_TASK_WAIT_BEGIN, task, implicit, &task->wait_open);
        } else {
            if (task != NULL && task->wait_open != 0)
                task_phase(OMPCOLLECTOR_TASK_WAIT_END, task, implicit, &task->wait_open);
            oc_end_pair_by(OC_CB_sync_region_wait, sync_kind);
        }
        return;
    }
    if (begin)
        oc_self.sync_codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    if (!is_barrier_kind(sync_kind))
        return;
    /* All three clear (always, unless gcc barriers count as explicit): the kind stands as reported. */
    if (oc_self.explicit_barrier_pending | oc_self.promoted_barriers | oc_self.single_since_barrier)
        sync_kind = explicit_in_gcc_code(sync_kind, (int)endpoint);
    if (begin) {
        close_open_single();
        struct oc_frame *frame = oc_top_frame(&oc_self);
        uint32_t seq = frame != NULL ? ++frame->barrier_seq : 0;
        uint64_t region_id = frame != NULL ? frame->region_id : 0;
        oc_self.last_sync_kind = sync_kind;
        oc_self.barrier_wait_id = (region_id << 24) | (seq & 0xffffffu);
        oc_begin_pair_by(OC_CB_sync_region_wait, sync_kind);
    } else {
        oc_end_pair_by(OC_CB_sync_region_wait, sync_kind);
    }
}

/*
 * Barrier and task waits, the callback libomp makes most often.  A thread
 * with nothing left open (no mutex wait, no single, no gcc barrier marks)
 * takes the path below, which calls nothing until the pair it may open or
 * close; anything else takes the general one.
 */
static void on_ompt_callback_sync_region_wait(ompt_sync_region_t kind,
                                              ompt_scope_endpoint_t endpoint,
                                              ompt_data_t *parallel_data, ompt_data_t *task_data,
                                              const void *codeptr_ra)
{
    int sync_kind = (int)kind;
    /* Task waits and reductions take the general path too: they are rare next to barriers. */
    if ((oc_self.sync_marks[0] | oc_self.sync_marks[1] | oc_self.sync_marks[2]) != 0
        || !is_barrier_kind(sync_kind)) {
        sync_region_wait_general(kind, endpoint, parallel_data, task_data, codeptr_ra);
        return;
    }
    /* Barrier kinds are all below OC_KIND_CELLS (is_barrier_kind's set): the row lookups need no range test. */
    _Static_assert(OC_BARRIER_KINDS < (1u << OC_KIND_CELLS), "barrier kinds index the cell tables");
    if ((int)endpoint != OC_SCOPE_BEGIN) {
        oc_end_pair_by_cell(OC_CB_sync_region_wait, sync_kind);
        return;
    }
    oc_self.sync_codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    struct oc_frame *frame = oc_self.top_frame;
    uint32_t seq = frame != NULL ? ++frame->barrier_seq : 0;
    uint64_t region_id = frame != NULL ? frame->region_id : 0;
    oc_self.last_sync_kind = sync_kind;
    oc_self.barrier_wait_id = (region_id << 24) | (seq & 0xffffffu);
    oc_begin_pair_by_cell(OC_CB_sync_region_wait, sync_kind);
}

static inline __attribute__((always_inline)) void mutex_acquire_body(ompt_mutex_t kind,
                                                                     ompt_wait_id_t wait_id,
                                                                     const void *codeptr_ra);

/* mutex_acquire on a thread that has a mutex wait still open: close it first. */
static OC_SLOW_PATH void mutex_acquire_closing(ompt_mutex_t kind, unsigned int hint,
                                               unsigned int impl, ompt_wait_id_t wait_id,
                                               const void *codeptr_ra)
{
    (void)hint, (void)impl;
    close_open_wait();
    mutex_acquire_body(kind, wait_id, codeptr_ra);
}

/*
 * A thread tries to take a lock, critical, atomic or ordered: remember which, open the wait.
 * A wait left open goes out of line, so the common call saves no registers.
 */
static void on_ompt_callback_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                                           ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    if (oc_self.open_wait_source != 0) {
        mutex_acquire_closing(kind, hint, impl, wait_id, codeptr_ra);
        return;
    }
    mutex_acquire_body(kind, wait_id, codeptr_ra);
}

/* What mutex_acquire does once no wait is open. */
static inline __attribute__((always_inline)) void mutex_acquire_body(ompt_mutex_t kind,
                                                                     ompt_wait_id_t wait_id,
                                                                     const void *codeptr_ra)
{
    oc_self.last_mutex_kind = (int)kind;
    oc_self.mutex_codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    oc_self.mutex_object = (uint64_t)wait_id;
    /* With no event live no pair opens, so there is no wait to close later either. */
    if (atomic_load_explicit(&oc_live_events, memory_order_relaxed) == 0)
        return;
    int source = oc_source_begun_by(OC_CB_mutex_acquire, (int)kind);
    if (source >= 0) {
        oc_self.open_wait_source = source + 1;
        oc_begin_pair(source);
    }
}

/*
 * The wait is over; for ordered, the ordered region itself begins.  The
 * thread now holds the lock, critical, atomic or ordered: the outermost
 * one held is what SAMPLE names in WORK (OMPCOLLECTOR_WAIT_HELD), so that
 * a sampler measures the serialised body apart from the rest of the work.
 */
static inline __attribute__((always_inline)) void mutex_acquired_body(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                                                      const void *codeptr_ra)
{
    if (oc_self.held_depth++ == 0) {
        oc_self.held_object = (uint64_t)wait_id;
        oc_self.held_codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    }
    int source = oc_source_begun_by(OC_CB_mutex_acquired, (int)kind);
    if (source >= 0)
        oc_begin_pair(source);
}

/* mutex_acquired closing the wait its mutex_acquire opened (out of line: see mutex_acquire). */
static OC_SLOW_PATH void mutex_acquired_closing(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                                const void *codeptr_ra)
{
    close_open_wait();
    mutex_acquired_body(kind, wait_id, codeptr_ra);
}

/* The mutex_acquired callback: the common call saves no registers (see mutex_acquire). */
static void on_ompt_callback_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                            const void *codeptr_ra)
{
    if (oc_self.open_wait_source != 0) {
        mutex_acquired_closing(kind, wait_id, codeptr_ra);
        return;
    }
    mutex_acquired_body(kind, wait_id, codeptr_ra);
}

/* Leaving a lock, critical, atomic or ordered: nothing held any more once the outermost is left; an ordered region's end ends its legacy pair (other releases end none). */
static void on_ompt_callback_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id,
                                            const void *codeptr_ra)
{
    (void)wait_id, (void)codeptr_ra;
    /* A release whose acquisition came before the callback was set finds nothing held. */
    if (oc_self.held_depth > 0 && --oc_self.held_depth == 0)
        oc_self.held_codeptr = oc_self.held_object = 0;
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
static inline __attribute__((always_inline)) void work_body(ompt_work_t work_type,
                                                            ompt_scope_endpoint_t endpoint,
                                                            int anything_open)
{
    if ((int)endpoint == OC_SCOPE_BEGIN) {
        if (anything_open)
            close_open_single();
        /*
         * gcc ends a single with a call of GOMP_barrier: that barrier is the
         * single's, not explicit.  Only then is it looked at, and while the
         * bit is set every barrier wait takes the general path.
         */
        if (((int)work_type == OC_WORK_SINGLE_EXECUTOR || (int)work_type == OC_WORK_SINGLE_OTHER)
            && oc_gomp_barriers_explicit())
            oc_self.single_since_barrier |= 1u << (oc_self.depth < 31 ? oc_self.depth : 31);
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

/* work on a thread with a mutex wait or a single still open (out of line: see mutex_acquire). */
static OC_SLOW_PATH void work_closing(ompt_work_t work_type, ompt_scope_endpoint_t endpoint,
                                      ompt_data_t *parallel_data, ompt_data_t *task_data,
                                      uint64_t count, const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)count, (void)codeptr_ra;
    close_open_wait();
    work_body(work_type, endpoint, 1);
}

/* The work callback: the common call saves no registers (see mutex_acquire). */
static void on_ompt_callback_work(ompt_work_t work_type, ompt_scope_endpoint_t endpoint,
                                  ompt_data_t *parallel_data, ompt_data_t *task_data,
                                  uint64_t count, const void *codeptr_ra)
{
    /* sync_marks[0]: open_wait_source and open_single_depth. */
    if (oc_self.sync_marks[0] != 0) {
        work_closing(work_type, endpoint, parallel_data, task_data, count, codeptr_ra);
        return;
    }
    work_body(work_type, endpoint, 0);
}

/* master and masked constructs. */
static inline __attribute__((always_inline)) void masked_body(ompt_scope_endpoint_t endpoint)
{
    if ((int)endpoint == OC_SCOPE_BEGIN)
        oc_begin_pair(OC_SRC_masked);
    else
        oc_end_pair(OC_SRC_masked);
}

/* masked on a thread with a mutex wait still open (out of line: see mutex_acquire). */
static OC_SLOW_PATH void masked_closing(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                        ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)parallel_data, (void)task_data, (void)codeptr_ra;
    close_open_wait();
    masked_body(endpoint);
}

/* The masked callback: the common call saves no registers (see mutex_acquire). */
static void on_ompt_callback_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                                    ompt_data_t *task_data, const void *codeptr_ra)
{
    if (oc_self.open_wait_source != 0) {
        masked_closing(endpoint, parallel_data, task_data, codeptr_ra);
        return;
    }
    masked_body(endpoint);
}

/*
 * The call site of a task construct.  libomp 14 now and then hands a task
 * GCC code creates (GOMP_task) the return address the master stored for
 * the enclosing GOMP_parallel and left unconsumed: its return-address slot
 * is filled only when empty (measured with a bare OMPT tool: about 1 run
 * of the tasksites program in 100 under load, up to 5 tasks a run).  A
 * task construct's call never returns where the parallel construct's call
 * does, so on that match the site is read where GOMP_task's caller left
 * it: the encountering task's enter frame is a frame pointer
 * (OC_FRAME_FRAMEPOINTER) whose next word is the return address.  That
 * frame is live on this thread's stack, above this callback's frame, and
 * is used only when it lies within 1 MiB of it.
 */
static const void *task_construct_site(const ompt_frame_t *frame, const void *codeptr_ra)
{
    const struct oc_frame *top = oc_top_frame(&oc_self);
    if (codeptr_ra == NULL || top == NULL)
        return codeptr_ra;
    /* The region's address, looked up once per region a thread makes tasks in (a known one stays known). */
    if (oc_self.site_region_id != top->region_id || oc_self.site_region_codeptr == 0) {
        oc_self.site_region_id = top->region_id;
        oc_self.site_region_codeptr = oc_region_codeptr(top->region_id);
    }
    if (oc_self.site_region_codeptr != (uint64_t)(uintptr_t)codeptr_ra)
        return codeptr_ra;
    if (frame == NULL || (frame->enter_frame_flags & OC_FRAME_FRAMEPOINTER) == 0)
        return codeptr_ra;
    char here;
    uintptr_t entry = (uintptr_t)frame->enter_frame.ptr;
    if (entry <= (uintptr_t)&here || entry - (uintptr_t)&here > ((uintptr_t)1 << 20)
        || entry % sizeof(void *) != 0)
        return codeptr_ra;
    const void *site = ((void *const *)entry)[1];
    return site != NULL ? site : codeptr_ra;
}

/* What END_CREATE_TASK delivery names for a task the shim does not follow: no id, no parent; never written. */
static struct oc_task unfollowed_task;

/* OMPCOLLECTOR_EVENT_TASK's CREATE: the task's record, or for one the shim does not follow (merged) its construct and flags. */
static OC_SLOW_PATH void create_phase(const struct oc_task *task, int flags, const void *codeptr_ra)
{
    if (task != NULL) {
        task_phase(OMPCOLLECTOR_TASK_CREATE, task, 0, NULL);
        return;
    }
    ompcollector_task_event_t payload = {0, running_task_id(), (uint64_t)(uintptr_t)codeptr_ra,
                                         oc_current_region_id(THR_WORK_STATE), task_public_flags(flags), 0};
    oc_emit_task(OMPCOLLECTOR_TASK_CREATE, &payload, NULL);
}

/*
 * A task is created, on the thread that meets the task construct.  The
 * shim follows it from here: its id, its parent (the task running here)
 * and its creator's tag hang off new_task_data.  BEGIN_CREATE_TASK is
 * delivered while TASK_ID names the creator, END_CREATE_TASK_IMM (undeferred
 * or included: it runs at once) or _DEL (queued) while it names the new task.
 */
static void on_ompt_callback_task_create(ompt_data_t *encountering_task_data,
                                         const ompt_frame_t *encountering_task_frame,
                                         ompt_data_t *new_task_data, int flags,
                                         int has_dependences, const void *codeptr_ra)
{
    (void)encountering_task_data, (void)has_dependences;
    close_open_wait();
    codeptr_ra = task_construct_site(encountering_task_frame, codeptr_ra);
    int undeferred = (flags & OC_TASK_FLAG_UNDEFERRED) != 0;
    struct oc_task *task = NULL;
    /* A merged task never runs on its own, so nothing would free its record. */
    if (new_task_data != NULL && !((unsigned int)flags & OC_TASK_FLAG_MERGED)) {
        task = task_new(running_task_id());
        if (task != NULL) {
            task->creator = thread_tag();
            task->flags = flags;
            task->public_flags = (uint8_t)task_public_flags(flags);
            task->codeptr = (uint64_t)(uintptr_t)codeptr_ra;
        }
    }
    int source = oc_source_begun_by(OC_CB_task_create,
                                    undeferred ? OC_TASK_UNDEFERRED : OC_TASK_DEFERRED);
    oc_begin_pair(source);
    /* For OMPCOLLECTOR_REQ_TASK_INFO in END's delivery, merged tasks too; nonzero flags (EXPLICIT set) mark it. */
    oc_self.creating_codeptr = (uint64_t)(uintptr_t)codeptr_ra;
    oc_self.creating_flags = flags | OC_TASK_FLAG_EXPLICIT;
    /* A task the shim does not follow (merged, or no memory) has no id: TASK_ID must not name its creator then. */
    oc_self.creating = task != NULL ? task : &unfollowed_task;
    atomic_signal_fence(memory_order_seq_cst);
    oc_end_pair(source);
    if (atomic_load_explicit(&oc_live_events, memory_order_relaxed)
        & (OC_RUN_PHASE_EVENTS | OC_EVENT_BIT(OC_EVENT_TASK_CREATE)))
        create_phase(task, flags, codeptr_ra);
    /*
     * Published last: the release store is what orders this thread's
     * reads of the record (the deliveries above) before the writes of the
     * thread that runs it, which synchronises through libomp's queue where
     * a race detector does not see it.  The runtime schedules the task only
     * after this callback returns.
     */
    if (task != NULL)
        task_publish(new_task_data, task);
    atomic_signal_fence(memory_order_seq_cst);
    oc_self.creating = NULL;
    oc_self.creating_flags = 0;
}

/* Whether a task leaving its thread with `status` never runs there again: completed, cancelled or detached (one test). */
static inline __attribute__((always_inline)) int status_is_terminal(int status)
{
    return (unsigned)status < 32
           && ((1u << status) & ((1u << OC_TASK_COMPLETE) | (1u << OC_TASK_CANCEL) | (1u << OC_TASK_DETACH)));
}

/*
 * The thread switches tasks.  The prior task leaves it -- for good when
 * it completed (or was cancelled or detached), for a while when it is
 * suspended at a task scheduling point -- and the next one comes on: a
 * task starting, or a suspended one resuming.  libomp runs tasks on one
 * thread's stack, so the chain is a stack; anything else the runtime
 * reports is absorbed without breaking a pair.  Every switch that
 * on_ompt_callback_task_schedule's quiet path leaves comes here.
 */
static OC_SLOW_PATH void task_schedule_general(ompt_data_t *prior_task_data,
                                              ompt_task_status_t prior_task_status,
                                              ompt_data_t *next_task_data)
{
    int status = (int)prior_task_status;
    close_open_wait();
    /* One test for the three statuses after which the prior task never runs again. */
    int terminal = status_is_terminal(status);
    /* Fulfilling a detached task's event, or a taskwait's completion, switches nothing here. */
    if (!terminal && status != OC_TASK_SWITCH && status != OC_TASK_YIELD)
        return;
    struct oc_task *prior = task_of(prior_task_data);
    struct oc_task *next = task_of(next_task_data);
    struct oc_task *top = oc_self.task_top;

    if (prior != NULL && terminal) {
        /* Mostly the task on top completes: no walk of the chain for it. */
        if (prior->running && (prior == top || chain_holds(prior))) {
            /* Tasks above it never reported their end: none of them runs again either. */
            while (oc_self.task_top != prior) {
                oc_self.task_top->completing = 1;
                (void)finish_top();
            }
            prior->completing = 1;
            task_free(finish_top(), prior_task_data);
        } else if (!prior->running) {
            task_free(prior, prior_task_data); /* cancelled before it ever ran */
        }
    } else if (prior != NULL && prior == top && !top->implicit && next != NULL
               && next == top->below) {
        (void)finish_top(); /* an untied task's part ended; it may run on elsewhere */
    }

    top = oc_self.task_top;
    if (next == NULL) {
        /* Back to a task the shim does not follow, or on to one made before it watched. */
        if (terminal || next_task_data == NULL || (next = task_new(0)) == NULL)
            return;
        task_publish(next_task_data, next);
    } else if (next == top) {
        resume_top();
        return;
    } else if (next->running) {
        if (chain_holds(next)) {
            while (oc_self.task_top != next)
                (void)finish_top();
            resume_top();
        }
        return;
    } else if (next->implicit) {
        return;
    }
    start_task(next);
}

/*
 * Whether a task switch on this thread delivers nothing but
 * OMPCOLLECTOR_EVENT_TASK_LOG's phases: no event of the rows a switch
 * opens or closes is live, none of their pairs is open here (an open one
 * would be owed its END), OMPCOLLECTOR_EVENT_TASK is not live and no
 * mutex wait is left open.  Then the switch is the chain's bookkeeping
 * and, with the log's event live, its BEGIN or END (task_schedule_logged).
 * Every mask folds to a constant.
 */
static inline __attribute__((always_inline)) int task_switch_quiet(uint64_t live)
{
#define OC_ROW_EVENTS(row) (OC_EVENT_BIT(oc_source_begin_event(row)) | OC_EVENT_BIT(oc_source_end_event(row)))
    const uint64_t events = OC_ROW_EVENTS(OC_SRC_task_suspend) | OC_ROW_EVENTS(OC_SRC_task_schedule)
                            | OC_ROW_EVENTS(OC_SRC_task_steal) | OC_ROW_EVENTS(OC_SRC_task_fetch)
                            | OC_ROW_EVENTS(OC_SRC_task_execute) | OC_ROW_EVENTS(OC_SRC_task_finish)
                            | OC_EVENT_BIT(OC_EVENT_TASK);
#undef OC_ROW_EVENTS
    const uint32_t rows = OC_SOURCE_BIT(OC_SRC_task_suspend) | OC_SOURCE_BIT(OC_SRC_task_schedule)
                          | OC_SOURCE_BIT(OC_SRC_task_steal) | OC_SOURCE_BIT(OC_SRC_task_execute)
                          | OC_SOURCE_BIT(OC_SRC_task_finish);
    return (live & events) == 0 && (oc_self.open_pair_rows & rows) == 0 && oc_self.open_wait_source == 0;
}

/*
 * Whether the quiet paths follow the end of `top`'s run onto `next`, the
 * task below it: the prior task is that explicit task, not suspended,
 * `next` is owed no RESUME, and the run switches, or completes with its
 * record kept for reuse (task_free's, without its call).
 */
static inline __attribute__((always_inline)) int quiet_end_fits(ompt_data_t *prior_task_data, const struct oc_task *top,
                                                                const struct oc_task *next, int terminal, int switches)
{
    return task_of(prior_task_data) == top && !top->implicit && !top->suspended && next->suspend_open == 0
           && (switches || (terminal && OC_REUSE_EXPLICIT_TASKS && oc_self.spare_task_count < OC_SPARE_TASKS));
}

/* Whether the quiet paths follow `next`, neither running nor implicit, starting (a part) on top of `top`. */
static inline __attribute__((always_inline)) int quiet_start_fits(const struct oc_task *top, const struct oc_task *next,
                                                                  int switches)
{
    return switches && next != top && !next->running && !next->implicit;
}

/* start_task's bookkeeping with nothing to deliver: the top task is suspended, `next` goes on top for one more part. */
static inline __attribute__((always_inline)) void quiet_start(struct oc_task *top, struct oc_task *next)
{
    top->suspended = 1;
    chain_push(next);
    next->parts++;
}

/* A task's run on this thread ends: a completion's record kept for reuse (quiet_end_fits made sure it may be). */
static inline __attribute__((always_inline)) void quiet_end(struct oc_task *top, int terminal,
                                                            ompt_data_t *prior_task_data)
{
    (void)chain_pop();
    if (terminal) {
        task_publish(prior_task_data, NULL);
        top->below = oc_self.spare_tasks;
        oc_self.spare_tasks = top;
        oc_self.spare_task_count++;
    }
}

/*
 * The two common switches of the quiet path when
 * OMPCOLLECTOR_EVENT_TASK_LOG is live (a log of every run: --task-graph):
 * what task_schedule_general does for them, with the log's END before the
 * top task leaves the chain and its BEGIN once the next is on it, and
 * nothing else to deliver (task_switch_quiet); everything else goes whole
 * to the general path.  About two thirds of the general path's instructions.
 */
static OC_SLOW_PATH void task_schedule_logged(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                                              ompt_data_t *next_task_data)
{
    int status = (int)prior_task_status;
    struct oc_task *top = oc_self.task_top;
    struct oc_task *next = task_of(next_task_data);
    int terminal = status_is_terminal(status);
    int switches = status == OC_TASK_SWITCH || status == OC_TASK_YIELD;
    if (top != NULL && next != NULL && next == top->below) {
        if (quiet_end_fits(prior_task_data, top, next, terminal, switches)) {
            top->completing = (uint8_t)terminal;
            if (top->run_open != 0)
                task_phase_here(OMPCOLLECTOR_TASK_END, top, terminal ? OMPCOLLECTOR_TASK_COMPLETING : 0, &top->run_open);
            quiet_end(top, terminal, prior_task_data);
            next->suspended = 0;
            return;
        }
    } else if (top != NULL && next != NULL && quiet_start_fits(top, next, switches)) {
        quiet_start(top, next);
        int stolen = !(next->flags & OC_TASK_FLAG_UNDEFERRED) && next->creator != 0 && next->creator != thread_tag();
        task_phase_here(OMPCOLLECTOR_TASK_BEGIN, next, stolen ? OMPCOLLECTOR_TASK_STOLEN : 0, &next->run_open);
        return;
    }
    task_schedule_general(prior_task_data, prior_task_status, next_task_data);
}

/*
 * The thread switches tasks (task_schedule_general has the whole story).
 * libomp reports a switch twice per tied task and four times per untied
 * one, and in most sessions no event of a switch is live: then the three
 * common switches -- a task starts, the top task's run (or an untied
 * task's part) ends back onto the task below it, the top task completes
 * so -- are followed here with what task_schedule_general would do when
 * it delivers nothing (but for the thread's tag, which the steal test
 * would give: the next creation or steal test gives it).  This function
 * calls nothing but the general one,
 * as a tail call, so the compiler saves no registers on its path; it
 * writes nothing before it has chosen a path.  The rest is left whole to
 * task_schedule_general.
 */
static void on_ompt_callback_task_schedule(ompt_data_t *prior_task_data,
                                           ompt_task_status_t prior_task_status,
                                           ompt_data_t *next_task_data)
{
    /* Sessions that follow task runs leave first, for the fewest instructions before the general path. */
    uint64_t live = atomic_load_explicit(&oc_live_events, memory_order_relaxed);
    if (!task_switch_quiet(live)) {
        task_schedule_general(prior_task_data, prior_task_status, next_task_data);
        return;
    }
    if (live & OC_EVENT_BIT(OC_EVENT_TASK_LOG)) {
        task_schedule_logged(prior_task_data, prior_task_status, next_task_data);
        return;
    }
    int status = (int)prior_task_status;
    struct oc_task *top = oc_self.task_top;
    struct oc_task *next = task_of(next_task_data);
    if (top == NULL || next == NULL) {
        task_schedule_general(prior_task_data, prior_task_status, next_task_data);
        return;
    }
    int terminal = status_is_terminal(status);
    int switches = status == OC_TASK_SWITCH || status == OC_TASK_YIELD;
    if (next == top->below) {
        /* The top task's run ends onto `next`: finish_top and resume_top with nothing to deliver. */
        if (top->run_open != 0 || !quiet_end_fits(prior_task_data, top, next, terminal, switches)) {
            task_schedule_general(prior_task_data, prior_task_status, next_task_data);
            return;
        }
        top->completing = (uint8_t)terminal;
        quiet_end(top, terminal, prior_task_data);
        next->suspended = 0;
        return;
    }
    if (!quiet_start_fits(top, next, switches)) {
        task_schedule_general(prior_task_data, prior_task_status, next_task_data);
        return;
    }
    quiet_start(top, next);
}

/*
 * A reduction's combine (libomp reports it with the critical and tree
 * methods; its default atomic method for teams of up to four, and gcc
 * code, report none: t/conformance/checks/reduction-bracket.c).  Like a task wait, the fact belongs to the task the
 * thread runs: a task run inside the reduction's barrier works.
 */
static inline __attribute__((always_inline)) void reduction_body(ompt_scope_endpoint_t endpoint)
{
    struct oc_task *task = oc_self.task_top;
    if (task != NULL)
        task->in_reduction = (int)endpoint == OC_SCOPE_BEGIN;
}

/* The reduction callback on a thread with a mutex wait still open (out of line: see mutex_acquire). */
static OC_SLOW_PATH void reduction_closing(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                                           const void *codeptr_ra)
{
    (void)kind, (void)parallel_data, (void)task_data, (void)codeptr_ra;
    close_open_wait();
    reduction_body(endpoint);
}

/* The reduction callback: the common call saves no registers (see mutex_acquire). */
static void on_ompt_callback_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                       ompt_data_t *parallel_data, ompt_data_t *task_data,
                                       const void *codeptr_ra)
{
    if (oc_self.open_wait_source != 0) {
        reduction_closing(kind, endpoint, parallel_data, task_data, codeptr_ra);
        return;
    }
    reduction_body(endpoint);
}

/*
 * A dependence between two tasks from their depend clauses: `sink` may not
 * start before `source` completes (libomp reports it as the sink is
 * created, while the source is still pending).  Delivered as
 * OMPCOLLECTOR_EVENT_TASK_DEPENDENCE with both tasks named for
 * OMPCOLLECTOR_REQ_TASK_DEPENDENCE in the delivery.  A task the shim does
 * not follow is named 0.
 */
static void on_ompt_callback_task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data)
{
    close_open_wait();
    const struct oc_task *source = task_of(src_task_data), *sink = task_of(sink_task_data);
    oc_self.dependence_source = source != NULL ? source->id : 0;
    oc_self.dependence_sink = sink != NULL ? sink->id : 0;
    atomic_signal_fence(memory_order_seq_cst);
    oc_emit(OC_EVENT_TASK_DEPENDENCE);
    atomic_signal_fence(memory_order_seq_cst);
    oc_self.dependence_source = oc_self.dependence_sink = 0;
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
 * thread is inside the runtime can make that thread call NULL
 * (t/conformance/checks/set-callback-race.c reproduces it).  Handlers
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
    atomic_store_explicit(&callbacks_followed, callbacks_set, memory_order_relaxed);
}

/*
 * Whether the runtime reports barrier waits to the shim: sync_region_wait
 * is set, and stays set once it is.  Any thread.
 */
int oc_sync_waits_followed(void)
{
    return atomic_load_explicit(&oc_tool_attached, memory_order_acquire)
           && (atomic_load_explicit(&callbacks_followed, memory_order_relaxed)
               & OC_BIT(sync_region_wait));
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
    oc_runtime.get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
    if (oc_runtime.set_callback == NULL || oc_runtime.get_state == NULL) {
        oc_log("runtime lacks ompt_set_callback or ompt_get_state; not attaching");
        oc_control_unlock();
        return 0;
    }
    /* An OMPT entry point lies in the runtime's code; a task wait's address there names no user place. */
    oc_runtime_code_note((const void *)(uintptr_t)oc_runtime.get_state);
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
    atomic_store(&callbacks_followed, 0);
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
