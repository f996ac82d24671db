/* mapping.h - the translation tables between OMPT and the collector API, as X-macro lists. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_MAPPING_H
#define OMPCOLLECTOR_MAPPING_H 1

#include <stdint.h>

#include "omp_collector_api.h"
#include "ompt.h"

/*
 * Every OMPT callback the shim may ask for.  Each gets a bit in an
 * oc_callback_mask; the handler for ompt_callback_NAME is
 * on_ompt_callback_NAME.
 */
#define OC_OMPT_CALLBACKS(X) \
    X(thread_begin)          \
    X(thread_end)            \
    X(parallel_begin)        \
    X(parallel_end)          \
    X(implicit_task)         \
    X(sync_region_wait)      \
    X(mutex_acquire)         \
    X(mutex_acquired)        \
    X(mutex_released)        \
    X(nest_lock)             \
    X(work)                  \
    X(masked)                \
    X(task_create)           \
    X(task_schedule)         \
    X(reduction)             \
    X(task_dependence)

enum oc_callback_index {
#define OC_CALLBACK_INDEX(name) OC_CB_##name,
    OC_OMPT_CALLBACKS(OC_CALLBACK_INDEX)
#undef OC_CALLBACK_INDEX
    OC_CB_COUNT
};

typedef uint32_t oc_callback_mask;
#define OC_BIT(name) ((oc_callback_mask)1u << OC_CB_##name)

/* Matches any kind/type argument of the OMPT callback. */
#define OC_ANY_KIND (-1)

/* The last event Oracle's and OpenUH's numbers give: the end of the OpenUH task extension. */
#define OC_EVENT_LEGACY_MAX OMP_EVENT_THR_END_FINISH_TASK

/*
 * ompcollector's own events (OMPCOLLECTOR_EVENT_* in the header) go by
 * these numbers inside the shim, right after the legacy ones, so that
 * every per-event table and live bit stays small; a collector registers
 * them, and is called with them, by their public numbers
 * (oc_event_internal, oc_event_public).
 */
#define OC_EVENT_BEGIN_TASK_WAIT (OC_EVENT_LEGACY_MAX + 1)
#define OC_EVENT_END_TASK_WAIT (OC_EVENT_LEGACY_MAX + 2)
#define OC_EVENT_TASK_DEPENDENCE (OC_EVENT_LEGACY_MAX + 3)
/* OMPCOLLECTOR_EVENT_TASK: delivered with a payload by its own path (oc_task_phase), from no source row. */
#define OC_EVENT_TASK (OC_EVENT_LEGACY_MAX + 4)
/* OMPCOLLECTOR_EVENT_TASK_CREATE: OC_EVENT_TASK's CREATE phase alone, by the same path. */
#define OC_EVENT_TASK_CREATE (OC_EVENT_LEGACY_MAX + 5)
/* OMPCOLLECTOR_EVENT_TASK_LOG: CREATE, BEGIN, END and the task waits, by the same path. */
#define OC_EVENT_TASK_LOG (OC_EVENT_LEGACY_MAX + 6)

/* The highest event number the shim knows. */
#define OC_EVENT_MAX OC_EVENT_TASK_LOG

/* Whether `event` is one of the payload events (oc_emit_task delivers them, from no source row). */
#define OC_IS_PAYLOAD_EVENT(event) \
    ((event) == OC_EVENT_TASK || (event) == OC_EVENT_TASK_CREATE || (event) == OC_EVENT_TASK_LOG)

/* The end_event of a row whose event comes alone (FETCHED_TASK). */
#define OC_NO_EVENT 0

/*
 * Kinds of the task rows, which OMPT does not number: how task_create
 * made the task, and the step of a task switch a task_schedule row is.
 */
enum {
    OC_TASK_DEFERRED = 1,   /* task_create without ompt_task_undeferred */
    OC_TASK_UNDEFERRED = 2, /* task_create with ompt_task_undeferred */
    OC_TASK_STEP_SUSPEND = 1, /* the running task leaves the thread for another */
    OC_TASK_STEP_SCHEDULE = 2, /* a queued task is taken to run */
    OC_TASK_STEP_STEAL = 3,   /* ... created by another thread */
    OC_TASK_STEP_FETCH = 4,   /* ... and has been taken */
    OC_TASK_STEP_EXECUTE = 5, /* an explicit task runs */
    OC_TASK_STEP_FINISH = 6   /* ... and its run here ends */
};

/*
 * Event sources: X(source, begin_cb, end_cb, extra_needs, kind, begin_event, end_event).
 *   source       a name for the row (also the doc and test label)
 *   begin_cb     the OMPT callback whose arrival starts the pair
 *   end_cb       the OMPT callback whose arrival ends it (may equal begin_cb)
 *   extra_needs  further callbacks the row cannot work without
 *   kind         the sync-region, mutex or work kind the row matches
 *   begin/end    the legacy events the row produces
 * A legacy event is supported when at least one of its rows has every
 * callback it needs granted by the runtime.  Several rows may produce the
 * same event: that is how runtime versions that report one construct under
 * different kinds (barrier_implicit vs barrier_implicit_parallel) are
 * absorbed without version checks.
 */
#define OC_EVENT_SOURCES(X)                                                                  \
    X(parallel, parallel_begin, parallel_end, 0, OC_ANY_KIND, OMP_EVENT_FORK, OMP_EVENT_JOIN) \
    X(worker_idle, implicit_task, implicit_task, OC_BIT(thread_begin) | OC_BIT(thread_end),  \
      OC_ANY_KIND, OMP_EVENT_THR_BEGIN_IDLE, OMP_EVENT_THR_END_IDLE)                         \
    X(barrier_implicit, sync_region_wait, sync_region_wait, 0, OC_SYNC_BARRIER_IMPLICIT,     \
      OMP_EVENT_THR_BEGIN_IBAR, OMP_EVENT_THR_END_IBAR)                                      \
    X(barrier_implicit_parallel, sync_region_wait, sync_region_wait, 0,                      \
      OC_SYNC_BARRIER_IMPLICIT_PARALLEL, OMP_EVENT_THR_BEGIN_IBAR, OMP_EVENT_THR_END_IBAR)   \
    X(barrier_implicit_workshare, sync_region_wait, sync_region_wait, 0,                     \
      OC_SYNC_BARRIER_IMPLICIT_WORKSHARE, OMP_EVENT_THR_BEGIN_IBAR, OMP_EVENT_THR_END_IBAR)  \
    X(barrier_implementation, sync_region_wait, sync_region_wait, 0,                         \
      OC_SYNC_BARRIER_IMPLEMENTATION, OMP_EVENT_THR_BEGIN_IBAR, OMP_EVENT_THR_END_IBAR)      \
    X(barrier_explicit, sync_region_wait, sync_region_wait, 0, OC_SYNC_BARRIER_EXPLICIT,     \
      OMP_EVENT_THR_BEGIN_EBAR, OMP_EVENT_THR_END_EBAR)                                      \
    X(lock_wait, mutex_acquire, mutex_acquired, 0, OC_MUTEX_LOCK, OMP_EVENT_THR_BEGIN_LKWT,  \
      OMP_EVENT_THR_END_LKWT)                                                                \
    X(nest_lock_wait, mutex_acquire, mutex_acquired, OC_BIT(nest_lock), OC_MUTEX_NEST_LOCK,  \
      OMP_EVENT_THR_BEGIN_LKWT, OMP_EVENT_THR_END_LKWT)                                      \
    X(critical_wait, mutex_acquire, mutex_acquired, 0, OC_MUTEX_CRITICAL,                    \
      OMP_EVENT_THR_BEGIN_CTWT, OMP_EVENT_THR_END_CTWT)                                      \
    X(ordered_wait, mutex_acquire, mutex_acquired, 0, OC_MUTEX_ORDERED,                      \
      OMP_EVENT_THR_BEGIN_ODWT, OMP_EVENT_THR_END_ODWT)                                      \
    X(atomic_wait, mutex_acquire, mutex_acquired, 0, OC_MUTEX_ATOMIC,                        \
      OMP_EVENT_THR_BEGIN_ATWT, OMP_EVENT_THR_END_ATWT)                                      \
    X(masked, masked, masked, 0, OC_ANY_KIND, OMP_EVENT_THR_BEGIN_MASTER,                    \
      OMP_EVENT_THR_END_MASTER)                                                              \
    X(single_executor, work, work, 0, OC_WORK_SINGLE_EXECUTOR, OMP_EVENT_THR_BEGIN_SINGLE,   \
      OMP_EVENT_THR_END_SINGLE)                                                              \
    X(ordered_region, mutex_acquired, mutex_released, 0, OC_MUTEX_ORDERED,                   \
      OMP_EVENT_THR_BEGIN_ORDERED, OMP_EVENT_THR_END_ORDERED)                                 \
    X(task_create_deferred, task_create, task_create, 0, OC_TASK_DEFERRED,                   \
      OMP_EVENT_THR_BEGIN_CREATE_TASK, OMP_EVENT_THR_END_CREATE_TASK_DEL)                     \
    X(task_create_undeferred, task_create, task_create, 0, OC_TASK_UNDEFERRED,               \
      OMP_EVENT_THR_BEGIN_CREATE_TASK, OMP_EVENT_THR_END_CREATE_TASK_IMM)                     \
    X(task_suspend, task_schedule, task_schedule, 0, OC_TASK_STEP_SUSPEND,                   \
      OMP_EVENT_THR_BEGIN_SUSPEND_TASK, OMP_EVENT_THR_END_SUSPEND_TASK)                       \
    X(task_schedule, task_schedule, task_schedule, 0, OC_TASK_STEP_SCHEDULE,                 \
      OMP_EVENT_THR_BEGIN_SCHD_TASK, OMP_EVENT_THR_END_SCHD_TASK)                             \
    X(task_steal, task_schedule, task_schedule, OC_BIT(task_create), OC_TASK_STEP_STEAL,     \
      OMP_EVENT_THR_BEGIN_STEAL_TASK, OMP_EVENT_THR_END_STEAL_TASK)                           \
    X(task_fetch, task_schedule, task_schedule, 0, OC_TASK_STEP_FETCH,                       \
      OMP_EVENT_THR_FETCHED_TASK, OC_NO_EVENT)                                                \
    X(task_execute, task_schedule, task_schedule, 0, OC_TASK_STEP_EXECUTE,                   \
      OMP_EVENT_THR_BEGIN_EXEC_TASK, OMP_EVENT_THR_BEGIN_FINISH_TASK)                         \
    X(task_finish, task_schedule, task_schedule, 0, OC_TASK_STEP_FINISH,                     \
      OMP_EVENT_THR_BEGIN_FINISH_TASK, OMP_EVENT_THR_END_FINISH_TASK)                         \
    X(task_wait, sync_region_wait, sync_region_wait, 0, OC_SYNC_TASKWAIT,                    \
      OC_EVENT_BEGIN_TASK_WAIT, OC_EVENT_END_TASK_WAIT)                                       \
    X(taskgroup_wait, sync_region_wait, sync_region_wait, 0, OC_SYNC_TASKGROUP,              \
      OC_EVENT_BEGIN_TASK_WAIT, OC_EVENT_END_TASK_WAIT)                                       \
    X(task_dependence, task_dependence, task_dependence, 0, OC_ANY_KIND,                     \
      OC_EVENT_TASK_DEPENDENCE, OC_NO_EVENT)

enum oc_event_source {
#define OC_SOURCE_INDEX(source, begin_cb, end_cb, extra, kind, begin, end) OC_SRC_##source,
    OC_EVENT_SOURCES(OC_SOURCE_INDEX)
#undef OC_SOURCE_INDEX
    OC_SRC_COUNT
};

/* What OMPCOLLECTOR_EVENT_TASK's phases come from: task_create and task_schedule (which the shim always sets in a session). */
#define OC_TASK_EVENT_NEEDS (OC_BIT(task_create) | OC_BIT(task_schedule))

/*
 * How a thread state needs refining with what the shim saw the thread do,
 * because the OMPT state alone is ambiguous on libomp.
 */
/*
 * Each refinement makes up for a libomp state that says less than OMPT
 * defines; t/conformance/checks/ documents each behaviour as an expected
 * failure: state-idle (IDLE), state-barrier-explicit (BARRIER),
 * state-critical (MUTEX), state-taskwait and state-taskgroup (WORK),
 * state-task-serialized (SERIAL).
 */
enum oc_refinement {
    OC_REFINE_NONE,     /* the OMPT state says it all */
    OC_REFINE_IDLE,     /* implicit-barrier wait: IDLE once the team's region ended */
    OC_REFINE_BARRIER,  /* generic barrier wait: explicit or implicit by last barrier kind */
    OC_REFINE_MUTEX,    /* generic lock wait: lock, critical, atomic or ordered by last acquire */
    OC_REFINE_TASKWAIT, /* a task-wait state: legacy value chosen by configuration */
    OC_REFINE_WORK,     /* working: the task-wait state when the running task is inside its task wait */
    OC_REFINE_SERIAL    /* serial work: inside a region (a task of a team of one) refined as WORK */
};

/*
 * States: X(ompt_state, legacy_state, refinement).  THR_* values in the
 * second column are the answer when no refinement applies.
 */
#define OC_STATE_MAP(X)                                                                  \
    X(OC_OMPT_STATE_WORK_SERIAL, THR_SERIAL_STATE, OC_REFINE_SERIAL)                     \
    X(OC_OMPT_STATE_WORK_PARALLEL, THR_WORK_STATE, OC_REFINE_WORK)                       \
    X(OC_OMPT_STATE_WORK_REDUCTION, THR_REDUC_STATE, OC_REFINE_NONE)                     \
    X(OC_OMPT_STATE_WAIT_BARRIER, THR_IBAR_STATE, OC_REFINE_BARRIER)                     \
    X(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT_PARALLEL, THR_IBAR_STATE, OC_REFINE_IDLE)      \
    X(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT_WORKSHARE, THR_IBAR_STATE, OC_REFINE_NONE)     \
    X(OC_OMPT_STATE_WAIT_BARRIER_IMPLICIT, THR_IBAR_STATE, OC_REFINE_IDLE)               \
    X(OC_OMPT_STATE_WAIT_BARRIER_EXPLICIT, THR_EBAR_STATE, OC_REFINE_NONE)               \
    X(OC_OMPT_STATE_WAIT_BARRIER_IMPLEMENTATION, THR_IBAR_STATE, OC_REFINE_BARRIER)      \
    X(OC_OMPT_STATE_WAIT_BARRIER_TEAMS, THR_IBAR_STATE, OC_REFINE_NONE)                  \
    X(OC_OMPT_STATE_WAIT_TASKWAIT, THR_EBAR_STATE, OC_REFINE_TASKWAIT)                   \
    X(OC_OMPT_STATE_WAIT_TASKGROUP, THR_EBAR_STATE, OC_REFINE_TASKWAIT)                  \
    X(OC_OMPT_STATE_WAIT_MUTEX, THR_LKWT_STATE, OC_REFINE_MUTEX)                         \
    X(OC_OMPT_STATE_WAIT_LOCK, THR_LKWT_STATE, OC_REFINE_MUTEX)                          \
    X(OC_OMPT_STATE_WAIT_CRITICAL, THR_CTWT_STATE, OC_REFINE_NONE)                       \
    X(OC_OMPT_STATE_WAIT_ATOMIC, THR_ATWT_STATE, OC_REFINE_NONE)                         \
    X(OC_OMPT_STATE_WAIT_ORDERED, THR_ODWT_STATE, OC_REFINE_NONE)                        \
    X(OC_OMPT_STATE_WAIT_TARGET, THR_OVHD_STATE, OC_REFINE_NONE)                         \
    X(OC_OMPT_STATE_WAIT_TARGET_MAP, THR_OVHD_STATE, OC_REFINE_NONE)                     \
    X(OC_OMPT_STATE_WAIT_TARGET_UPDATE, THR_OVHD_STATE, OC_REFINE_NONE)                  \
    X(OC_OMPT_STATE_IDLE, THR_IDLE_STATE, OC_REFINE_NONE)                                \
    X(OC_OMPT_STATE_OVERHEAD, THR_OVHD_STATE, OC_REFINE_NONE)                            \
    X(OC_OMPT_STATE_UNDEFINED, THR_SERIAL_STATE, OC_REFINE_NONE)

/* Oracle's later numbering put task waits in a state of their own. */
#define OC_THR_TASKWAIT_STATE_ORACLE 12

/* What the shim knows about a thread beyond its OMPT state. */
struct oc_state_context {
    int region_ended;     /* the thread's innermost team region has ended */
    int last_mutex_kind;  /* kind of the thread's last mutex_acquire, 0 if none */
    int last_sync_kind;   /* kind of the thread's last barrier wait, 0 if none */
    int in_task_wait;     /* the task the thread runs is inside its taskwait/taskgroup wait */
    int taskwait_state;   /* legacy answer for a task wait */
    int in_reduction;     /* the task the thread runs is inside a reduction's bracket */
    int in_region;        /* the thread runs an implicit task of a parallel region it has not left */
};

/* A row of OC_EVENT_SOURCES, for code that walks the table. */
struct oc_event_source_row {
    const char *name;
    int begin_callback;
    int end_callback;
    oc_callback_mask needs;
    int kind;
    int begin_event;
    int end_event;
};

/* A row of OC_STATE_MAP. */
struct oc_state_row {
    int ompt_state;
    int legacy_state;
    int refinement;
};

extern const struct oc_event_source_row oc_event_source_rows[OC_SRC_COUNT];

/*
 * The legacy event that row `source` begins with, and the one it ends with:
 * oc_event_source_rows[source].begin_event and .end_event, as switches the
 * compiler folds to a constant when `source` is one (handlers name theirs).
 */
static inline int oc_source_begin_event(int source)
{
    switch (source) {
#define OC_BEGIN_EVENT_CASE(source, begin_cb, end_cb, extra, kind, begin, end) \
    case OC_SRC_##source:                                                    \
        return (begin);
        OC_EVENT_SOURCES(OC_BEGIN_EVENT_CASE)
#undef OC_BEGIN_EVENT_CASE
    default:
        return 0;
    }
}

static inline int oc_source_end_event(int source)
{
    switch (source) {
#define OC_END_EVENT_CASE(source, begin_cb, end_cb, extra, kind, begin, end) \
    case OC_SRC_##source:                                                  \
        return (end);
        OC_EVENT_SOURCES(OC_END_EVENT_CASE)
#undef OC_END_EVENT_CASE
    default:
        return 0;
    }
}

/*
 * The same per row as one table, for code whose row is not a constant (the
 * pair slow paths, handlers whose kind picks the row): both events' bits in
 * oc_live_events, and the events.  Filled from OC_EVENT_SOURCES (mapping.c).
 */
struct oc_source_events {
    uint64_t bits;       /* bit of begin_event | bit of end_event */
    uint8_t begin_event;
    uint8_t end_event;
};
extern const struct oc_source_events oc_source_events_table[OC_SRC_COUNT]
    __attribute__((visibility("hidden")));

extern const struct oc_state_row oc_state_rows[];
extern const int oc_state_row_count;

/* Name of an OMPT callback bit, for diagnostics and the mapping doc. */
const char *oc_callback_name(int callback_index);

/* OMPT callback id (ompt_callback_*) for a callback bit. */
int oc_callback_ompt_id(int callback_index);

/* Whether `event` is one the collector API defines (1..22) or the task extension adds (23..35). */
int oc_event_is_known(int event);

/* The shim's number of the event a collector names `event` (legacy, or OMPCOLLECTOR_EVENT_*); -1 when none. */
int oc_event_internal(int event);

/* The number a collector knows the shim's event `event` by. */
static inline int oc_event_public(int event)
{
    return event > OC_EVENT_LEGACY_MAX ? OMPCOLLECTOR_EVENT_BASE + (event - OC_EVENT_LEGACY_MAX) : event;
}

/* The OMPT callbacks every row producing `event` needs, ORed together. */
oc_callback_mask oc_event_needs(int event);

/* Whether at least one row producing `event` is fully covered by `granted`. */
int oc_event_supported(int event, oc_callback_mask granted);

/*
 * (callback, kind) -> 1 + the row it begins or ends, 0 for none; kinds
 * below OC_KIND_CELLS (mapping.c fills them from OC_EVENT_SOURCES).
 */
#define OC_KIND_CELLS 16
extern const signed char oc_source_begun_cells[OC_CB_COUNT * OC_KIND_CELLS]
    __attribute__((visibility("hidden")));
extern const signed char oc_source_ended_cells[OC_CB_COUNT * OC_KIND_CELLS]
    __attribute__((visibility("hidden")));

/* The first row, in table order, that `callback_index` with `kind` begins (ends), or -1. */
int oc_source_scan_begun_by(int callback_index, int kind);
int oc_source_scan_ended_by(int callback_index, int kind);

/*
 * The row that `callback_index` with `kind` begins, or -1: what the scan
 * answers, in O(1).  Inline because handlers ask on every callback, and
 * with the callback a constant it is a bounds test and one load.
 */
static inline int oc_source_begun_by(int callback_index, int kind)
{
    if ((unsigned)callback_index < OC_CB_COUNT && (unsigned)kind < OC_KIND_CELLS)
        return oc_source_begun_cells[callback_index * OC_KIND_CELLS + kind] - 1;
    return oc_source_scan_begun_by(callback_index, kind);
}

/* The row that `callback_index` with `kind` ends, or -1, as oc_source_begun_by. */
static inline int oc_source_ended_by(int callback_index, int kind)
{
    if ((unsigned)callback_index < OC_CB_COUNT && (unsigned)kind < OC_KIND_CELLS)
        return oc_source_ended_cells[callback_index * OC_KIND_CELLS + kind] - 1;
    return oc_source_scan_ended_by(callback_index, kind);
}

/*
 * Whether a thread in `ompt_state` waits at a barrier instance, so that
 * IBAR/EBAR carry that barrier's wait id.  Task waits also read as EBAR by
 * default, but they wait for tasks, not for a barrier.
 */
int oc_state_is_barrier_wait(int ompt_state);

/* Legacy thread state for an OMPT state and what the shim saw the thread do. */
int oc_map_state(int ompt_state, const struct oc_state_context *context);

/*
 * The same in two steps, for a caller that looks the row up once and fills
 * in only the context fields its refinement reads: the state table's row
 * for `ompt_state` (NULL for a state it does not list), in O(1); the legacy
 * state for that row; and whether that row is a barrier wait.
 */
const struct oc_state_row *oc_state_row(int ompt_state);
int oc_refine_state(const struct oc_state_row *row, const struct oc_state_context *context);
int oc_state_row_is_barrier_wait(const struct oc_state_row *row);

/*
 * Whether the API defines a wait id for `legacy_state` (IBAR, EBAR, LKWT,
 * CTWT, ODWT, ATWT), so that STATE needs room for it after the state word.
 */
int oc_legacy_state_has_wait_id(int legacy_state);

#endif /* OMPCOLLECTOR_MAPPING_H */
