/* internal.h - declarations shared by the shim's modules; nothing here is exported. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_INTERNAL_H
#define OMPCOLLECTOR_INTERNAL_H 1

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mapping.h"

#define OC_EXPORT __attribute__((visibility("default")))

/*
 * For an out-of-line slow path that takes a handler's own arguments: gcc
 * would otherwise drop the unused ones and make the handler shuffle the
 * rest, where a jump with the arguments in place costs nothing.
 */
#if defined(__GNUC__) && !defined(__clang__)
#define OC_SLOW_PATH __attribute__((noinline, noipa))
#else
#define OC_SLOW_PATH __attribute__((noinline))
#endif

/* Deepest nesting of parallel regions whose ids a thread remembers. */
#define OC_MAX_NEST 8

/* One remembered level of a thread's nesting of implicit tasks. */
struct oc_frame {
    uint64_t region_id;
    uint32_t barrier_seq;
    int32_t team_index;
};

/*
 * A task as the shim follows it, explicit or implicit.  An explicit task
 * gets one at task_create (or when first seen running), an implicit task at
 * implicit_task begin; it hangs off the task's ompt_data_t and is freed
 * when the task completes (a thread keeps a few freed records for reuse).
 * While a thread runs a task, the task sits on that thread's chain
 * (oc_thread.task_top, linked through `below`), which only that thread
 * changes, so a signal handler on the thread reads it safely.
 */
struct oc_task {
    uint64_t id;            /* nonzero, unique in the process */
    uint64_t parent_id;     /* the creating (explicit) or encountering (implicit) task; 0 none */
    uint64_t region_id;     /* implicit task: its region; explicit: 0 */
    uint64_t codeptr;       /* explicit: the task construct's return address (task_create's codeptr_ra), 0 unknown */
    uint64_t wait_codeptr;  /* while in_task_wait: the taskwait's or taskgroup's return address, as the runtime gave it */
    struct oc_task *below;  /* while running: the task it runs on top of, on this thread */
    uint32_t creator;       /* tag of the thread that created it, 0 unknown */
    uint32_t parts;         /* runs begun on a thread: 1 for a tied task, one per part for an untied one */
    uint8_t implicit;
    uint8_t running;        /* on a thread's chain */
    uint8_t suspended;      /* left its thread for another task, not yet back */
    uint8_t completing;     /* its last run is ending: the FINISH being delivered is its completion */
    uint8_t in_task_wait;   /* inside a task wait: OMPCOLLECTOR_WAIT_TASKWAIT or _TASKGROUP, 0 none */
    uint8_t in_reduction;   /* inside a reduction's bracket */
    uint8_t public_flags;   /* explicit: its OMPCOLLECTOR_TASK_* flags from `flags`, for the payload events */
    int32_t flags;          /* the OMPT task flags it was created with: undeferred (or included: ran at once), untied, ... */
    /*
     * The pairs of the payload events its BEGIN (run_open), SUSPEND
     * (suspend_open) or WAIT_BEGIN (wait_open) opened: the session
     * generation above OC_OPEN_SHIFT, the events it went to below
     * (OC_OPEN_*); 0 none owed.
     */
    uint32_t run_open, suspend_open, wait_open;
};

/*
 * A pair word's events (oc_emit_task): OMPCOLLECTOR_EVENT_TASK's and
 * _TASK_LOG's, as their live bits read from OC_EVENT_TASK up (the one
 * between is _TASK_CREATE's, which has no pairs); the generation above.
 */
enum { OC_OPEN_TASK = 1u, OC_OPEN_TASK_LOG = 4u, OC_OPEN_SHIFT = 3 };

/*
 * Everything the shim knows about one thread.  It lives in initial-exec TLS
 * so signal handlers read it without allocation (dynamic TLS in a dlopen'ed
 * object may allocate on first touch); keep it small, because a dlopen'ed
 * library's static TLS comes out of a small surplus glibc reserves.
 */
struct oc_delivery_slot;
/* session.c: where delivery_slot points while the thread has claimed none (never NULL). */
extern struct oc_delivery_slot oc_slot_unclaimed;

struct oc_thread {
    uint64_t fork_region_id;   /* master, inside FORK/JOIN delivery: that region */
    uint64_t fork_parent_id;   /* master, inside FORK delivery: the enclosing region */
    uint64_t barrier_wait_id;  /* id of the barrier instance being waited at */
    int32_t depth;             /* implicit tasks entered and not yet left */
    int32_t last_mutex_kind;   /* kind of the last mutex_acquire */
    int32_t last_sync_kind;    /* kind of the last barrier wait begun */
    int32_t in_task_wait;      /* inside a task wait with no task followed: OMPCOLLECTOR_WAIT_TASKWAIT or _TASKGROUP */
    int32_t deliveries_in_slot[2]; /* this thread's counted deliveries in flight, per epoch */
    struct oc_delivery_slot *delivery_slot; /* where its deliveries mark themselves (session.c) */
    uint32_t idle;             /* a worker between teams */
    uint32_t is_worker;        /* a thread the runtime created for its teams */
    /*
     * What sends a barrier wait to the general path: all zero on a thread
     * with nothing left open, which the handler tests as three words
     * (sync_marks) rather than five fields.
     */
    union {
        struct {
            int32_t open_wait_source;  /* 1 + source row of an open mutex wait, 0 if none */
            int32_t open_single_depth; /* 1 + depth of a single begun and not seen to end, 0 if none */
            uint32_t explicit_barrier_pending; /* gcc code called GOMP_barrier; its wait is next */
            uint32_t promoted_barriers; /* bit per depth: the barrier wait open there is that explicit one */
            uint32_t single_since_barrier; /* bit per depth, gcc barriers explicit only: a single began there since the last barrier */
            uint32_t sync_marks_unused; /* always 0 */
        };
        uint64_t sync_marks[3];
    };
    uint32_t pair_generation;  /* session the open_pairs counts belong to */
    uint8_t open_pairs[OC_SRC_COUNT]; /* BEGINs tracked whose END is still owed */
    struct oc_frame frames[OC_MAX_NEST];
    int32_t forked_depth;      /* regions this thread forked and has not yet seen end */
    uint64_t forked[OC_MAX_NEST]; /* their ids, innermost last */
    uint64_t mutex_codeptr;    /* call site of the last mutex_acquire (lock, critical, ordered, atomic) */
    uint64_t mutex_object;     /* its wait id as the callback gave it: the omp_lock_t, the critical's lock */
    uint64_t held_codeptr;     /* call site of the outermost lock, critical, atomic or ordered the thread holds (0: none) */
    uint64_t held_object;      /* its wait id, as mutex_object */
    int32_t held_depth;        /* mutexes acquired and not yet released */
    uint64_t sync_codeptr;     /* call site of the last barrier wait begun */
    uint64_t task_wait_codeptr; /* call site of the task wait in_task_wait names (no task followed) */
    struct oc_task *task_top;  /* the task this thread runs, NULL when none is followed */
    struct oc_task *creating;  /* inside END_CREATE_TASK delivery: the task just created */
    uint64_t creating_codeptr; /* inside task_create delivery: the construct's return address (merged tasks have no record) */
    int32_t creating_flags;    /* ... its OMPT task flags, 0 outside that delivery */
    uint32_t tag;              /* nonzero number of this thread, for telling task creators apart */
    uint64_t dependence_source, dependence_sink; /* inside TASK_DEPENDENCE delivery: the two tasks' ids, else 0 */
    uint32_t spare_task_count; /* records on spare_tasks */
    struct oc_task *spare_tasks; /* finished task records kept for reuse, linked through `below` (tool.c) */
    uint32_t open_pair_rows;   /* bit per source row whose open_pairs count is nonzero */
    /*
     * oc_top_frame(&oc_self) as of the last implicit-task callback, for the
     * handlers on this thread (one load where oc_top_frame computes); signal
     * handlers use oc_top_frame, which depends on depth alone.
     */
    struct oc_frame *top_frame;
    /*
     * The league whose team this thread is the initial thread of, and the
     * depth it began at: libomp reports a team's initial task as an
     * initial task, which opens no frame, so the league is kept apart for
     * the kind of the region the team then forks (extension.c).
     */
    uint64_t league_region_id;
    int32_t league_depth;
    /* The last region whose parallel construct's address task_create compared with (tool.c), and that address. */
    uint64_t site_region_id, site_region_codeptr;
    /* The task ids this thread may give next, task_id_next up to task_id_end (tool.c). */
    uint64_t task_id_next, task_id_end;
};

extern __thread struct oc_thread oc_self __attribute__((tls_model("initial-exec")));

/* The innermost frame this thread remembers, or NULL outside any region. */
static inline struct oc_frame *oc_top_frame(struct oc_thread *self)
{
    /* One unsigned test covers the common depths 1..OC_MAX_NEST. */
    uint32_t level = (uint32_t)self->depth - 1u;
    if (level < OC_MAX_NEST)
        return &self->frames[level];
    return self->depth <= 0 ? 0 : &self->frames[OC_MAX_NEST - 1];
}

/* The OMPT entry points the shim uses, as handed over by the runtime. */
struct oc_runtime {
    ompt_set_callback_t set_callback;
    ompt_get_state_t get_state;
    ompt_get_parallel_info_t get_parallel_info;
    ompt_get_task_info_t get_task_info;
};

/* tool.c */
extern struct oc_runtime oc_runtime;
extern _Atomic int oc_tool_attached;     /* initialize ran, finalize not yet */
extern _Atomic int oc_tool_finalized;    /* the runtime shut the tool down */
extern oc_callback_mask oc_granted;      /* what set_callback granted at initialize */
extern _Atomic uint64_t oc_next_region_id;
/* Tests: the next task id any thread gives is `next`, and this thread drops its block. */
void oc_task_ids_restart(uint64_t next);
void oc_apply_callbacks(oc_callback_mask wanted);
int oc_region_has_ended(uint64_t region_id);
int oc_try_attach(void);
int oc_sync_waits_followed(void);

/* gomp.c */
int oc_gomp_barrier_interposed(void);
void oc_gomp_configure(void);
/* OMPCOLLECTOR_GCC_BARRIERS=explicit at START; read through oc_gomp_barriers_explicit. */
extern _Atomic int oc_gomp_barriers_explicit_setting;

/* Whether gcc code's GOMP_barrier calls are taken for explicit barriers; inline for the work handler.  Any thread. */
static inline int oc_gomp_barriers_explicit(void)
{
    return atomic_load_explicit(&oc_gomp_barriers_explicit_setting, memory_order_relaxed);
}

/* codescan.c */
#define OC_CODE_GCC 1   /* some loaded object calls GOMP_* entry points */
#define OC_CODE_CLANG 2 /* some loaded object calls __kmpc_* entry points */
int oc_openmp_code_kinds(void);
int oc_event_possible_in_code(int event);
/* Notes the runtime's code: the object holding `inside`, one of its functions (at tool initialize). */
void oc_runtime_code_note(const void *inside);
/* Whether `address` lies in the runtime's code noted; lock-free, any thread. */
int oc_runtime_code_holds(uint64_t address);
extern ompt_start_tool_result_t *oc_start_tool(unsigned int omp_version,
                                               const char *runtime_version);

/* session.c */
extern _Atomic int oc_session_active;
extern _Atomic int oc_paused;
extern _Atomic(omp_collector_callback_t) oc_event_callbacks[OC_EVENT_MAX + 1];
/*
 * Bit OC_EVENT_BIT(e) is set while a delivery of event e would reach a
 * callback: a session is active, not paused, and e has a callback.  Kept by
 * oc_publish_live_events; the handlers' one-load test for "anything to do".
 */
extern _Atomic uint64_t oc_live_events;
#define OC_EVENT_BIT(event) ((uint64_t)1u << (event))
/* A source row's bit in oc_thread.open_pair_rows. */
#define OC_SOURCE_BIT(source) ((uint32_t)1u << (source))
_Static_assert(OC_SRC_COUNT <= 32, "open_pair_rows has a bit per source row");
extern _Atomic int oc_taskwait_state;
extern _Atomic uint32_t oc_session_generation;
void oc_publish_live_events(void);
void oc_emit_slow(int event);
void oc_begin_pair_slow(int source);
void oc_end_pair_slow(int source);
void oc_drop_pair(int source);
void oc_release_delivery_slot(void);
void oc_limit_delivery_slots(unsigned limit);
oc_callback_mask oc_wanted_callbacks(void);
void oc_control_lock(void);
void oc_control_unlock(void);
void oc_drain_deliveries(void);
void oc_session_reset(void);

/*
 * The payload events (OMPCOLLECTOR_EVENT_TASK, _TASK_CREATE, _TASK_LOG):
 * delivers `phase` with `payload` to each that is live and takes the
 * phase, marked in flight as every delivery.  `open` is the task's word
 * for the pair the phase opens or closes (NULL for CREATE): BEGIN,
 * SUSPEND and WAIT_BEGIN set it to the session's generation and the
 * events they were delivered to, END, RESUME and WAIT_END are delivered
 * to those of them still live when it holds the current generation, and
 * clear it.
 */
void oc_emit_task(int phase, const ompcollector_task_event_t *payload, uint32_t *open);

/* Deliver `event` on this thread if it is live. */
static inline void oc_emit(int event)
{
    if (atomic_load_explicit(&oc_live_events, memory_order_relaxed) & OC_EVENT_BIT(event))
        oc_emit_slow(event);
}

/*
 * Opens a BEGIN/END pair of row `source` on this thread if either of its
 * events is live; inline, one load, because handlers open one per construct
 * and most sessions register few events.
 */
static inline void oc_begin_pair(int source)
{
    uint64_t live = atomic_load_explicit(&oc_live_events, memory_order_relaxed);
    /* A row named by a constant folds to one test; any other is looked up only when something is live. */
    if (__builtin_constant_p(source)) {
        if (live & (OC_EVENT_BIT(oc_source_begin_event(source)) | OC_EVENT_BIT(oc_source_end_event(source))))
            oc_begin_pair_slow(source);
        return;
    }
    if (live != 0 && (unsigned)source < OC_SRC_COUNT && (live & oc_source_events_table[source].bits))
        oc_begin_pair_slow(source);
}

/* Closes the innermost open pair of `source` on this thread, if one is open. */
static inline void oc_end_pair(int source)
{
    if (oc_self.open_pair_rows & OC_SOURCE_BIT(source))
        oc_end_pair_slow(source);
}

/*
 * oc_begin_pair of the row that OMPT callback `callback` with `kind` opens,
 * if one does; the row is looked up only when some event is live.
 */
static inline void oc_begin_pair_by(int callback, int kind)
{
    uint64_t live = atomic_load_explicit(&oc_live_events, memory_order_relaxed);
    if (live == 0)
        return;
    int source = oc_source_begun_by(callback, kind);
    if (source >= 0 && (live & oc_source_events_table[source].bits))
        oc_begin_pair_slow(source);
}

/* oc_begin_pair_by for a `kind` the caller knows is below OC_KIND_CELLS: no range test. */
static inline void oc_begin_pair_by_cell(int callback, int kind)
{
    uint64_t live = atomic_load_explicit(&oc_live_events, memory_order_relaxed);
    if (live == 0)
        return;
    int source = oc_source_begun_cells[callback * OC_KIND_CELLS + (kind & (OC_KIND_CELLS - 1))] - 1;
    if (source >= 0 && (live & oc_source_events_table[source].bits))
        oc_begin_pair_slow(source);
}

/* oc_end_pair_by for a `kind` the caller knows is below OC_KIND_CELLS: no range test. */
static inline void oc_end_pair_by_cell(int callback, int kind)
{
    uint32_t rows = oc_self.open_pair_rows;
    if (rows == 0)
        return;
    int source = oc_source_ended_cells[callback * OC_KIND_CELLS + (kind & (OC_KIND_CELLS - 1))] - 1;
    if (source >= 0 && (rows & OC_SOURCE_BIT(source)))
        oc_end_pair_slow(source);
}

/* oc_end_pair of the row `callback` with `kind` closes; looked up only while some pair is open. */
static inline void oc_end_pair_by(int callback, int kind)
{
    if (oc_self.open_pair_rows == 0)
        return;
    int source = oc_source_ended_by(callback, kind);
    if (source >= 0)
        oc_end_pair(source);
}

/* state.c */
/*
 * What the general path (oc_refined_state, state.c) answers for OC_OMPT_STATE_WORK_PARALLEL (row
 * refinement WORK, no wait id), spelled out because it is what a sampler
 * meets most: the task wait's state while the running task waits in one, a
 * reduction inside a reduction's bracket, and outside any region a worker
 * is idle and any other thread serial.  It must answer as the general path
 * does for that row, and, inside a region, for OC_OMPT_STATE_WORK_SERIAL
 * (row refinement SERIAL).
 * Async-signal-safe: yes; reads only this thread's TLS and an atomic.
 */
static inline int oc_working_state(void)
{
    const struct oc_task *top = oc_self.task_top;
    int reducing = top != NULL && top->in_reduction;
    if (top != NULL ? top->in_task_wait : oc_self.in_task_wait) {
        int waiting = atomic_load_explicit(&oc_taskwait_state, memory_order_relaxed);
        return reducing && (waiting == THR_IBAR_STATE || waiting == THR_EBAR_STATE) ? THR_REDUC_STATE
                                                                                    : waiting;
    }
    if (reducing)
        return THR_REDUC_STATE;
    if (oc_self.depth <= 0)
        return oc_self.is_worker ? THR_IDLE_STATE : THR_SERIAL_STATE;
    return THR_WORK_STATE;
}

int oc_refined_state(int ompt_state, uint64_t runtime_wait_id, uint64_t *wait_id);

/*
 * The calling thread's legacy state, and its wait id through `wait_id`;
 * inline, with the general path in state.c, so a sample costs little more
 * than the runtime's ompt_get_state.
 * Reads only this thread's TLS, atomics and the runtime's ompt_get_state,
 * which OMPT defines as async-signal-safe.
 * Async-signal-safe: yes; any thread, OpenMP or not.
 */
static inline int oc_current_state(uint64_t *wait_id)
{
    *wait_id = 0;
    if (!atomic_load_explicit(&oc_tool_attached, memory_order_acquire))
        return THR_SERIAL_STATE;
    /*
     * A sample must agree with itself: region id 0 means SERIAL or IDLE.
     * Inside FORK/JOIN delivery the master works for the runtime on the
     * region CURRENT_PRID names (whatever the runtime's state); and libomp
     * marks a thread as working just before it reports the implicit task,
     * so in that gap the thread is still where the shim last saw it,
     * outside any region.
     */
    if (oc_self.fork_region_id != 0)
        return THR_OVHD_STATE;
    ompt_wait_id_t runtime_wait_id = 0;
    int ompt_state = oc_runtime.get_state(&runtime_wait_id);
    if (ompt_state == OC_OMPT_STATE_WORK_PARALLEL)
        return oc_working_state();
    /*
     * Serial work outside any region costs no lookup.  Inside one it is a
     * task of a serialized team (a team of one): libomp runs those in
     * work_serial, but the task works in its team's region.
     */
    if (ompt_state == OC_OMPT_STATE_WORK_SERIAL)
        return oc_self.depth > 0 ? oc_working_state() : THR_SERIAL_STATE;
    return oc_refined_state(ompt_state, runtime_wait_id, wait_id);
}

uint64_t oc_current_region_id_slow(int state);

/*
 * The region id CURRENT_PRID answers, given the thread's state (see
 * oc_current_region_id_slow); inline for the common sample, a thread at
 * work in a region it remembers.  Async-signal-safe: yes; any thread.
 */
static inline uint64_t oc_current_region_id(int state)
{
    _Static_assert(THR_IBAR_STATE == 3 && THR_EBAR_STATE == 4 && THR_IDLE_STATE == 5 && THR_SERIAL_STATE == 6,
                   "the states answered without the innermost frame are 3..6");
    int32_t depth = oc_self.depth;
    if (state == THR_WORK_STATE && oc_self.fork_region_id == 0 && depth > 0 && depth <= OC_MAX_NEST)
        return oc_self.frames[depth - 1].region_id;
    if (oc_self.fork_region_id == 0) {
        /* Overhead, reduction and the object waits: the innermost frame's region too. */
        if ((unsigned)(state - THR_IBAR_STATE) > THR_SERIAL_STATE - THR_IBAR_STATE && depth > 0
            && depth <= OC_MAX_NEST)
            return oc_self.frames[depth - 1].region_id;
        if (state == THR_SERIAL_STATE || state == THR_IDLE_STATE)
            return 0;
    }
    /* A barrier can belong to a region the thread has not reported beginning (see the slow path). */
    return oc_current_region_id_slow(state);
}
/*
 * The task TASK_ID and TASK_PID answer for: inside END_CREATE_TASK
 * delivery the task just created, else the one on top of this thread's
 * chain, except an implicit task whose region has ended (the worker is
 * idle, only told so late).  NULL when the thread runs no followed task.
 * Inline: every task request and TASK_INFO, once per task event, asks it.
 * Async-signal-safe: yes; reads only this thread's chain, which only this
 * thread changes; any thread.
 */
static inline const struct oc_task *oc_current_task(void)
{
    const struct oc_task *task = oc_self.creating;
    if (task != NULL)
        return task;
    task = oc_self.task_top;
    if (task != NULL && task->implicit && (oc_self.idle || oc_region_has_ended(task->region_id)))
        return NULL;
    return task;
}

/* extension.c */
void oc_remember_region(uint64_t region_id, uint64_t parent_id, const void *codeptr, int flags);
uint64_t oc_region_codeptr(uint64_t region_id);
int oc_region_is_league(uint64_t region_id);
/* Whether a request number is one of ours (OMPCOLLECTOR_REQ_*). */
static inline int oc_is_extension_request(int32_t request)
{
    return request > OMPCOLLECTOR_REQ_BASE && request < OMPCOLLECTOR_REQ_END;
}
int oc_extension_request(int32_t request, unsigned char *mem, int32_t mem_size, int32_t *rsz);

/* protocol.c */
int oc_collector_api(void *arg);

/* log.c */
void oc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void oc_log_init(void);

#endif /* OMPCOLLECTOR_INTERNAL_H */
