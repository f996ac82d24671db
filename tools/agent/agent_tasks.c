/* agent_tasks.c - the agent's tasks by construct: in the task event callbacks, asks the shim which task construct the task came from and counts its creation, runs, completion, execution and suspended time in that construct's row of the record. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "agent.h"
#include "agent_tasks.h"
#include "omp_collector_api.h"
#include "request.h"

#include <string.h>

/*
 * The explicit tasks running on this thread, innermost last, each with the
 * clock of its current stretch (running, or suspended while another task
 * runs in its place) and what it has run so far.  Only this thread's
 * callbacks touch it; initial-exec TLS, as the agent is preloaded.
 */
struct task_run {
    uint64_t task_id;
    int32_t row;          /* in the task construct table, -1 none */
    int32_t suspended;
    uint64_t since;       /* the current stretch began */
    uint64_t exec_ns, suspend_ns;
};
enum { ROWS_SEEN = 4 };
struct task_scratch {
    struct task_run runs[OMPC_TASK_NEST_DEPTH];
    int32_t depth;
    uint64_t create_since;
    /*
     * The rows last found, for the next events of the same constructs:
     * tasks of one construct come in runs, or alternate with a few others
     * (fib's two task pragmas, every other task), which one entry misses.
     */
    const struct ompc_process *seen_owner;
    uint64_t seen_codeptr[ROWS_SEEN];
    int32_t seen_row[ROWS_SEEN];
    uint32_t seen_next;
    uint32_t seen_last; /* which of them row_at answered from last: its pending creations' entry too */
};
_Static_assert(ROWS_SEEN == OMPC_TASK_PENDING_ROWS, "a row seen has its pending creations' entry");
static __thread struct task_scratch scratch __attribute__((tls_model("initial-exec")));

/* OMPCOLLECTOR_REQ_TASK_INFO for the calling thread; 0 when answered. */
static int task_info(struct ompc_agent *agent, ompcollector_task_info_t *out)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(sizeof *out))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_TASK_INFO, sizeof *out);
    if (ompc_request_send(&batch, agent->api) != 0 || ompc_request_ec(&batch, entry) != OMP_ERRCODE_OK)
        return -1;
    memcpy(out, ompc_request_mem(&batch, entry), sizeof *out);
    return 0;
}

int ompc_task_info_probe(struct ompc_agent *agent)
{
    ompcollector_task_info_t probe;
    return task_info(agent, &probe) == 0;
}

/* A lock-free maximum. */
static void store_max(_Atomic uint64_t *into, uint64_t value)
{
    uint64_t seen = atomic_load_explicit(into, memory_order_relaxed);
    while (value > seen && !atomic_compare_exchange_weak(into, &seen, value))
        ;
}

/*
 * The row of the task construct at `codeptr`, NULL when unknown (0) or the
 * table is full (counted).  A row, once a construct's, stays its own, so
 * the last few found answer again without a lookup (row_at, inline); a
 * failed lookup is not kept, so each is counted as before.
 */
static __attribute__((noinline)) int row_lookup(struct ompc_process *owner, uint64_t codeptr)
{
    int row = ompc_record_task_construct(owner, codeptr);
    if (row >= 0) {
        if (scratch.seen_owner != owner) {
            memset(scratch.seen_codeptr, 0, sizeof scratch.seen_codeptr);
            scratch.seen_owner = owner;
        }
        uint32_t slot = scratch.seen_next++ % ROWS_SEEN;
        scratch.seen_codeptr[slot] = codeptr;
        scratch.seen_row[slot] = row;
        scratch.seen_last = slot;
    }
    return row;
}

static inline struct ompc_task_construct *row_at(struct ompc_process *owner, uint64_t codeptr, int32_t *index)
{
    int row = -2;
    uint32_t last = scratch.seen_last % ROWS_SEEN;
    if (codeptr == 0)
        row = -1;
    else if (owner == scratch.seen_owner && scratch.seen_codeptr[last] == codeptr) /* most often: the task before's */
        row = scratch.seen_row[last];
    else if (owner == scratch.seen_owner)
        for (uint32_t i = 0; i < ROWS_SEEN; i++)
            if (scratch.seen_codeptr[i] == codeptr) {
                row = scratch.seen_row[i];
                scratch.seen_last = i;
            }
    if (row == -2)
        row = row_lookup(owner, codeptr);
    if (index != NULL)
        *index = row;
    return row >= 0 ? &owner->task_constructs[row] : NULL;
}

static void add(_Atomic uint64_t *counter, uint64_t value)
{
    atomic_fetch_add_explicit(counter, value, memory_order_relaxed);
}

/* One more in a counter only the calling thread writes: no locked instruction. */
static inline void bump(_Atomic uint64_t *counter)
{
    atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1, memory_order_relaxed);
}

/*
 * Entry k of the thread's pending creations (record.h) taken for `row`:
 * the counts of the row it held go to that row first.  Added before they
 * are cleared, so a reader never misses them; only a process killed
 * between the two counts them twice.
 */
static __attribute__((noinline)) void pending_claim(struct ompc_process *owner, struct ompc_task_pending *pending,
                                                    uint32_t k, int32_t row)
{
    int32_t old = atomic_load_explicit(&pending->row[k], memory_order_relaxed);
    if (old > 0 && old <= OMPC_MAX_TASK_CONSTRUCTS) {
        struct ompc_task_construct *flushed = &owner->task_constructs[old - 1];
        add(&flushed->created, atomic_load_explicit(&pending->created[k], memory_order_relaxed));
        add(&flushed->undeferred, atomic_load_explicit(&pending->undeferred[k], memory_order_relaxed));
    }
    atomic_store_explicit(&pending->created[k], 0, memory_order_relaxed);
    atomic_store_explicit(&pending->undeferred[k], 0, memory_order_relaxed);
    atomic_store_explicit(&pending->row[k], row + 1, memory_order_relaxed);
}

/*
 * A task created on this thread counts for its construct's row `index`,
 * which row_at just answered: in the thread's own pending entry beside
 * the row seen (no shared cache line), or straight in the row for the
 * threads past the slot table, who share one slot.
 */
static void count_creation(struct ompc_process *owner, struct ompc_thread *slot, int32_t index, int undeferred)
{
    if (slot == &owner->untracked) {
        add(&owner->task_constructs[index].created, 1);
        if (undeferred)
            add(&owner->task_constructs[index].undeferred, 1);
        return;
    }
    struct ompc_task_pending *pending = &owner->task_pending[slot - owner->threads];
    uint32_t k = scratch.seen_last % OMPC_TASK_PENDING_ROWS;
    if (atomic_load_explicit(&pending->row[k], memory_order_relaxed) != index + 1)
        pending_claim(owner, pending, k, index);
    bump(&pending->created[k]);
    if (undeferred)
        bump(&pending->undeferred[k]);
}

/* The task just created (END_CREATE delivery names it) counts for its construct. */
static void created(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_info_t *info,
                    int event, uint64_t now)
{
    int32_t index;
    struct ompc_task_construct *row = row_at(owner, info->codeptr, &index);
    if (row == NULL)
        return;
    count_creation(owner, slot, index, event == OMP_EVENT_THR_END_CREATE_TASK_IMM);
    if (scratch.create_since != 0 && now > scratch.create_since)
        add(&row->create_ns, now - scratch.create_since);
}

/* A run of the task begins on this thread, on top of those already here. */
static void run_begins(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_info_t *info,
                       uint64_t now)
{
    int32_t index;
    struct ompc_task_construct *row = row_at(owner, info->codeptr, &index);
    if (row != NULL) {
        add(&row->runs, 1);
        if (slot != &owner->untracked)
            atomic_fetch_or_explicit(&row->thread_mask, UINT64_C(1) << ((slot - owner->threads) % 64),
                                     memory_order_relaxed);
    }
    if (scratch.depth >= OMPC_TASK_NEST_DEPTH) {
        add(&owner->task_nest_overflow, 1);
        scratch.depth++;
        return;
    }
    scratch.runs[scratch.depth++] = (struct task_run){info->task_id, index, 0, now, 0, 0};
}

/* The innermost run on this thread when it is `task_id`'s, else NULL (an implicit task, or nested too deep). */
static struct task_run *top_run(uint64_t task_id)
{
    int32_t depth = scratch.depth;
    if (depth <= 0 || depth > OMPC_TASK_NEST_DEPTH || task_id == 0)
        return NULL;
    struct task_run *run = &scratch.runs[depth - 1];
    return run->task_id == task_id ? run : NULL;
}

/* The task on top leaves the thread for another (BEGIN_SUSPEND) or has it back (END_SUSPEND). */
static void suspension(struct ompc_process *owner, const ompcollector_task_info_t *info, int begin, uint64_t now)
{
    struct task_run *run = top_run(info->task_id);
    if (run == NULL || run->suspended == begin || now < run->since)
        return;
    if (begin) {
        run->exec_ns += now - run->since;
        if (run->row >= 0)
            add(&owner->task_constructs[run->row].suspensions, 1);
    } else {
        run->suspend_ns += now - run->since;
    }
    run->suspended = begin;
    run->since = now;
}

/*
 * A completing task counts once for its construct: in the row its run
 * found at its start (the same construct), else looked up as then (a
 * full table counts the lookup dropped again).
 */
static void completes(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_info_t *info,
                      const struct task_run *run)
{
    if (!(info->flags & OMPCOLLECTOR_TASK_COMPLETING))
        return;
    add(&slot->task_completions, 1);
    struct ompc_task_construct *row = run != NULL && run->row >= 0 ? &owner->task_constructs[run->row]
                                                                   : row_at(owner, info->codeptr, NULL);
    if (row != NULL)
        add(&row->completed, 1);
}

/* The run on top ends (BEGIN_FINISH): its times go to its construct, and a completing task counts once. */
static void run_ends(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_info_t *info,
                     uint64_t now)
{
    if (scratch.depth > OMPC_TASK_NEST_DEPTH) {
        completes(owner, slot, info, NULL);
        scratch.depth--;
        return;
    }
    /* A run the shim ended without its own FINISH (it never reported it) is dropped with the one below it. */
    while (scratch.depth > 0 && scratch.runs[scratch.depth - 1].task_id != info->task_id)
        scratch.depth--;
    if (scratch.depth == 0) {
        completes(owner, slot, info, NULL);
        return;
    }
    struct task_run *run = &scratch.runs[--scratch.depth];
    /* Its row was looked up from the same construct when the run began. */
    completes(owner, slot, info, run);
    if (now > run->since) {
        if (run->suspended)
            run->suspend_ns += now - run->since;
        else
            run->exec_ns += now - run->since;
    }
    if (run->row < 0)
        return;
    struct ompc_task_construct *row = &owner->task_constructs[run->row];
    add(&row->timed_runs, 1);
    add(&row->exec_ns, run->exec_ns);
    add(&row->suspend_ns, run->suspend_ns);
    store_max(&row->max_ns, run->exec_ns);
}

/* The event's clock reading, read once for all who time it. */
static uint64_t clock_of(struct ompc_agent *agent, uint64_t *now)
{
    if (*now == 0)
        *now = now_ns(agent);
    return *now;
}

/* The events that ask the shim (ompc_task_site_event), one bit each. */
#define ASKED_EVENTS                                                                                            \
    ((UINT64_C(1) << OMP_EVENT_THR_END_CREATE_TASK_IMM) | (UINT64_C(1) << OMP_EVENT_THR_END_CREATE_TASK_DEL)   \
     | (UINT64_C(1) << OMP_EVENT_THR_BEGIN_STEAL_TASK) | (UINT64_C(1) << OMP_EVENT_THR_BEGIN_EXEC_TASK)        \
     | (UINT64_C(1) << OMP_EVENT_THR_BEGIN_FINISH_TASK) | (UINT64_C(1) << OMP_EVENT_THR_BEGIN_SUSPEND_TASK)    \
     | (UINT64_C(1) << OMP_EVENT_THR_END_SUSPEND_TASK))

/* ompc_task_site_event for an event that asks TASK_INFO: out of line, so the others pay nothing of its frame. */
static __attribute__((noinline)) int asked_event(struct ompc_agent *agent, struct ompc_process *owner,
                                                 struct ompc_thread *slot, int event, uint64_t *now_at,
                                                 const ompcollector_task_info_t *given)
{
    ompcollector_task_info_t info;
    if (given != NULL)
        info = *given;
    else if (task_info(agent, &info) != 0)
        return OMPC_TASK_END_UNKNOWN;
    uint64_t now = clock_of(agent, now_at);
    switch (event) {
    case OMP_EVENT_THR_END_CREATE_TASK_IMM:
    case OMP_EVENT_THR_END_CREATE_TASK_DEL:
        created(owner, slot, &info, event, now);
        scratch.create_since = 0;
        break;
    case OMP_EVENT_THR_BEGIN_STEAL_TASK:
        /* An untied task's later parts may run anywhere: only its first run counts as stolen. */
        if (info.parts == 1) {
            add(&slot->task_first_steals, 1);
            struct ompc_task_construct *row = row_at(owner, info.codeptr, NULL);
            if (row != NULL)
                add(&row->stolen, 1);
        }
        break;
    case OMP_EVENT_THR_BEGIN_EXEC_TASK:
        run_begins(owner, slot, &info, now);
        break;
    case OMP_EVENT_THR_BEGIN_FINISH_TASK:
        run_ends(owner, slot, &info, now);
        return info.flags & OMPCOLLECTOR_TASK_COMPLETING ? OMPC_TASK_END_COMPLETES : OMPC_TASK_END_PART;
    default:
        suspension(owner, &info, event == OMP_EVENT_THR_BEGIN_SUSPEND_TASK, now);
        break;
    }
    return OMPC_TASK_END_UNKNOWN;
}

int ompc_task_site_event(struct ompc_agent *agent, struct ompc_process *owner, struct ompc_thread *slot, int event,
                         uint64_t *now_at, const ompcollector_task_info_t *given)
{
    if (event == OMP_EVENT_THR_BEGIN_CREATE_TASK) {
        scratch.create_since = clock_of(agent, now_at);
        return OMPC_TASK_END_UNKNOWN;
    }
    if (event < 0 || event >= 64 || !((ASKED_EVENTS >> event) & 1))
        return OMPC_TASK_END_UNKNOWN;
    /* A suspension matters only to an explicit task running here; most are an implicit task's, asked nothing. */
    if ((event == OMP_EVENT_THR_BEGIN_SUSPEND_TASK || event == OMP_EVENT_THR_END_SUSPEND_TASK) && scratch.depth <= 0)
        return OMPC_TASK_END_UNKNOWN;
    return asked_event(agent, owner, slot, event, now_at, given);
}

/* Counts one of the task events 23..35 a phase stands for on the thread. */
static inline void count_event(struct ompc_thread *slot, int event)
{
    add(&slot->task_events[event - OMPC_TASK_EVENT_FIRST], 1);
}

/* count_event for a creation, the one phase the sampled tier follows: its own slot's counts need no locked add. */
static inline void count_created_event(struct ompc_process *owner, struct ompc_thread *slot, int event)
{
    if (slot == &owner->untracked)
        count_event(slot, event);
    else
        bump(&slot->task_events[event - OMPC_TASK_EVENT_FIRST]);
}

/* The thread's timer (depth, since, total) as task_event in agent.c keeps it: open at depth 0, closed back at 0. */
static inline void timer_open(int32_t *depth, uint64_t *since, uint64_t now)
{
    if ((*depth)++ == 0)
        *since = now;
}

static inline void timer_close(int32_t *depth, uint64_t since, _Atomic uint64_t *total, uint64_t now)
{
    if (*depth > 0 && --*depth == 0 && now > since)
        add(total, now - since);
}

/* CREATE: the construct counts the task; the creating thread's time in it is the time between the phase's two readings. */
static uint64_t phase_created(struct ompc_agent *agent, struct ompc_process *owner, struct ompc_thread *slot,
                              const ompcollector_task_info_t *info, uint64_t now)
{
    int undeferred = (info->flags & OMPCOLLECTOR_TASK_UNDEFERRED) != 0;
    count_created_event(owner, slot, OMP_EVENT_THR_BEGIN_CREATE_TASK);
    count_created_event(owner, slot, undeferred ? OMP_EVENT_THR_END_CREATE_TASK_IMM : OMP_EVENT_THR_END_CREATE_TASK_DEL);
    scratch.create_since = now;
    uint64_t end = now_ns(agent);
    created(owner, slot, info, undeferred ? OMP_EVENT_THR_END_CREATE_TASK_IMM : OMP_EVENT_THR_END_CREATE_TASK_DEL, end);
    scratch.create_since = 0;
    if (slot != &owner->untracked && slot->task_create_depth == 0 && end > now)
        add(&slot->task_create_ns, end - now);
    return end;
}

/* BEGIN: the scheduling events of a queued task, its steal, and the run on top of this thread. */
static void phase_begins(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_info_t *info,
                         uint64_t now)
{
    if (!(info->flags & OMPCOLLECTOR_TASK_UNDEFERRED)) {
        count_event(slot, OMP_EVENT_THR_BEGIN_SCHD_TASK);
        count_event(slot, OMP_EVENT_THR_FETCHED_TASK);
        count_event(slot, OMP_EVENT_THR_END_SCHD_TASK);
    }
    if (info->flags & OMPCOLLECTOR_TASK_STOLEN) {
        count_event(slot, OMP_EVENT_THR_BEGIN_STEAL_TASK);
        count_event(slot, OMP_EVENT_THR_END_STEAL_TASK);
        /* An untied task's later parts may run anywhere: only its first run counts as stolen. */
        if (info->parts == 1) {
            add(&slot->task_first_steals, 1);
            struct ompc_task_construct *row = row_at(owner, info->codeptr, NULL);
            if (row != NULL)
                add(&row->stolen, 1);
        }
    }
    count_event(slot, OMP_EVENT_THR_BEGIN_EXEC_TASK);
    run_begins(owner, slot, info, now);
    if (slot != &owner->untracked)
        timer_open(&slot->task_exec_depth, &slot->task_exec_since, now);
}

int ompc_task_phase(struct ompc_agent *agent, struct ompc_process *owner, struct ompc_thread *slot, int phase,
                    const ompcollector_task_event_t *task, uint64_t *when)
{
    ompcollector_task_info_t info = {task->id, task->codeptr, task->flags, task->parts};
    uint64_t now = now_ns(agent);
    *when = now;
    int tracked = slot != &owner->untracked;
    switch (phase) {
    case OMPCOLLECTOR_TASK_CREATE:
        *when = phase_created(agent, owner, slot, &info, now);
        break;
    case OMPCOLLECTOR_TASK_BEGIN:
        phase_begins(owner, slot, &info, now);
        break;
    case OMPCOLLECTOR_TASK_END:
        count_event(slot, OMP_EVENT_THR_BEGIN_FINISH_TASK);
        count_event(slot, OMP_EVENT_THR_END_FINISH_TASK);
        run_ends(owner, slot, &info, now);
        if (tracked)
            timer_close(&slot->task_exec_depth, slot->task_exec_since, &slot->task_exec_ns, now);
        return info.flags & OMPCOLLECTOR_TASK_COMPLETING ? OMPC_TASK_END_COMPLETES : OMPC_TASK_END_PART;
    case OMPCOLLECTOR_TASK_SUSPEND:
    case OMPCOLLECTOR_TASK_RESUME: {
        int begin = phase == OMPCOLLECTOR_TASK_SUSPEND;
        count_event(slot, begin ? OMP_EVENT_THR_BEGIN_SUSPEND_TASK : OMP_EVENT_THR_END_SUSPEND_TASK);
        suspension(owner, &info, begin, now);
        if (tracked && slot->task_exec_depth > 0) {
            if (begin) {
                add(&slot->task_suspensions, 1);
                timer_open(&slot->task_suspend_depth, &slot->task_suspend_since, now);
            } else {
                timer_close(&slot->task_suspend_depth, slot->task_suspend_since, &slot->task_suspend_ns, now);
            }
        }
        break;
    }
    default:
        break;
    }
    return OMPC_TASK_END_UNKNOWN;
}

/*
 * The sampled tier's creation: counts only.  Its time is the runtime's
 * work sampled in the runtime's code, which the report spreads over the
 * tasks created; timing this callback measured the tool's own counting
 * (0.04 us of a creation's 0.38 in t/ompcollect-gains.c's fib) at the
 * price of two clock readings per task, the largest cost of a fine task
 * program's run under the tool (21% of fib's CPU time in clock_gettime).
 */
void ompc_task_counted(struct ompc_process *owner, struct ompc_thread *slot, const ompcollector_task_event_t *task)
{
    int undeferred = (task->flags & OMPCOLLECTOR_TASK_UNDEFERRED) != 0;
    count_created_event(owner, slot, OMP_EVENT_THR_BEGIN_CREATE_TASK);
    count_created_event(owner, slot, undeferred ? OMP_EVENT_THR_END_CREATE_TASK_IMM : OMP_EVENT_THR_END_CREATE_TASK_DEL);
    int32_t index;
    if (row_at(owner, task->codeptr, &index) != NULL)
        count_creation(owner, slot, index, undeferred);
}

uint64_t ompc_task_sample(struct ompc_agent *agent, struct ompc_process *owner, int index, uint64_t weight,
                          uint64_t stack)
{
    int32_t storage[OMPC_REQUEST_WORDS(OMPC_REQUEST_SIZE(sizeof(ompcollector_task_t)))];
    struct ompc_request batch;
    ompc_request_init(&batch, storage, sizeof storage);
    int entry = ompc_request_add(&batch, OMPCOLLECTOR_REQ_TASK, sizeof(ompcollector_task_t));
    if (ompc_request_send(&batch, agent->api) != 0 || ompc_request_ec(&batch, entry) != OMP_ERRCODE_OK)
        return 0;
    ompcollector_task_t task;
    memcpy(&task, ompc_request_mem(&batch, entry), sizeof task);
    /* An implicit task's time is its region's; only an explicit task of a known construct is timed here. */
    if (task.id == 0 || task.codeptr == 0 || (task.flags & 0x4) == 0 /* ompt_task_explicit */)
        return task.id;
    int row = ompc_record_task_construct(owner, task.codeptr);
    if (row < 0)
        return task.id;
    uint64_t ns = weight * (uint64_t)agent->record->interval_ns;
    add(&owner->task_constructs[row].sampled_ns, ns);
    /* The stack the sample was counted in ran in this construct's task (--gprofng's OMP_task). */
    ompc_record_task_stack(agent->record, owner, index, stack, row, weight);
    /* The full tier's task events time the threads and mark who ran what: the samples only beside them. */
    if (agent->task_tier != OMPC_TASK_TIER_SAMPLED)
        return task.id;
    atomic_fetch_or_explicit(&owner->task_constructs[row].thread_mask, UINT64_C(1) << (index % 64),
                             memory_order_relaxed);
    add(&owner->threads[index].task_exec_ns, ns);
    return task.id;
}
