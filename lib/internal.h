/* internal.h - declarations shared by the shim's modules; nothing here is exported. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_INTERNAL_H
#define OMPCOLLECTOR_INTERNAL_H 1

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mapping.h"

#define OC_EXPORT __attribute__((visibility("default")))

/* Deepest nesting of parallel regions whose ids a thread remembers. */
#define OC_MAX_NEST 8

/* One remembered level of a thread's nesting of implicit tasks. */
struct oc_frame {
    uint64_t region_id;
    uint32_t barrier_seq;
    int32_t team_index;
};

/*
 * Everything the shim knows about one thread.  It lives in initial-exec TLS
 * so signal handlers read it without allocation (dynamic TLS in a dlopen'ed
 * object may allocate on first touch); keep it small, because a dlopen'ed
 * library's static TLS comes out of a small surplus glibc reserves.
 */
struct oc_thread {
    uint64_t fork_region_id;   /* master, inside FORK/JOIN delivery: that region */
    uint64_t fork_parent_id;   /* master, inside FORK delivery: the enclosing region */
    uint64_t barrier_wait_id;  /* id of the barrier instance being waited at */
    int32_t depth;             /* implicit tasks entered and not yet left */
    int32_t last_mutex_kind;   /* kind of the last mutex_acquire */
    int32_t last_sync_kind;    /* kind of the last barrier wait begun */
    int32_t in_task_wait;      /* inside a taskwait/taskgroup wait */
    int32_t deliveries_in_slot[2]; /* this thread's deliveries in flight, per epoch slot */
    uint32_t idle;             /* a worker between teams */
    uint32_t is_worker;        /* a thread the runtime created for its teams */
    int32_t open_wait_source;  /* 1 + source row of an open mutex wait, 0 if none */
    int32_t open_single_depth; /* 1 + depth of a single begun and not seen to end, 0 if none */
    uint32_t pair_generation;  /* session the open_pairs counts belong to */
    uint8_t open_pairs[OC_SRC_COUNT]; /* BEGINs tracked whose END is still owed */
    struct oc_frame frames[OC_MAX_NEST];
    int32_t forked_depth;      /* regions this thread forked and has not yet seen end */
    uint64_t forked[OC_MAX_NEST]; /* their ids, innermost last */
};

extern __thread struct oc_thread oc_self __attribute__((tls_model("initial-exec")));

/* The innermost frame this thread remembers, or NULL outside any region. */
static inline struct oc_frame *oc_top_frame(struct oc_thread *self)
{
    if (self->depth <= 0)
        return 0;
    int level = self->depth > OC_MAX_NEST ? OC_MAX_NEST : self->depth;
    return &self->frames[level - 1];
}

/* The OMPT entry points the shim uses, as handed over by the runtime. */
struct oc_runtime {
    ompt_set_callback_t set_callback;
    ompt_get_state_t get_state;
    ompt_get_parallel_info_t get_parallel_info;
};

/* tool.c */
extern struct oc_runtime oc_runtime;
extern _Atomic int oc_tool_attached;     /* initialize ran, finalize not yet */
extern _Atomic int oc_tool_finalized;    /* the runtime shut the tool down */
extern oc_callback_mask oc_granted;      /* what set_callback granted at initialize */
extern _Atomic uint64_t oc_next_region_id;
void oc_apply_callbacks(oc_callback_mask wanted);
int oc_region_has_ended(uint64_t region_id);
int oc_try_attach(void);
extern ompt_start_tool_result_t *oc_start_tool(unsigned int omp_version,
                                               const char *runtime_version);

/* session.c */
extern _Atomic int oc_session_active;
extern _Atomic int oc_paused;
extern _Atomic(omp_collector_callback_t) oc_event_callbacks[OMP_EVENT_THR_END_ATWT + 1];
extern _Atomic int oc_taskwait_state;
extern _Atomic uint32_t oc_session_generation;
int oc_emit_slow(int event);
void oc_begin_pair(int source);
void oc_end_pair(int source);
oc_callback_mask oc_wanted_callbacks(void);
void oc_control_lock(void);
void oc_control_unlock(void);
void oc_drain_deliveries(void);
void oc_session_reset(void);

/* Deliver `event` on this thread if a callback is registered for it. */
static inline void oc_emit(int event)
{
    if (atomic_load_explicit(&oc_event_callbacks[event], memory_order_relaxed) != 0)
        oc_emit_slow(event);
}

/* state.c */
int oc_current_state(uint64_t *wait_id);
uint64_t oc_current_region_id(int state);

/* protocol.c */
int oc_collector_api(void *arg);

/* log.c */
void oc_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void oc_log_init(void);

#endif /* OMPCOLLECTOR_INTERNAL_H */
