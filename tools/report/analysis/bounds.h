/* bounds.h - the bounds of the record a run reached, each with the exact count of what it cost, said the same way in every output and on stderr. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_BOUNDS_H
#define OMPCOLLECT_BOUNDS_H 1

#include <stdint.h>

#include "model.h"


/* One bound a run reached. */
struct ompc_limit {
    const char *what;   /* a stable key: "threads", "constructs", "event_log", ... */
    uint64_t count;     /* what it cost, in the unit `text` names */
    uint64_t bound;     /* the bound (0 where it is a buffer size the user chose) */
    char text[320];     /* one sentence for a person: what is missing and why */
};

/*
 * Every bound of the record ompc_limits_reached can list, once each, and
 * its stable key: the kinds are counted here, so an array of
 * OMPC_LIMIT_KINDS holds them all and a bound added is never one too many.
 */
#define OMPC_LIMITS(X)                                                                                           \
    X(EVENT_LOG, "event_log") X(TIMELINE, "timeline") X(STACKS, "stacks") X(STACK_COPIES, "stack_copies")        \
    X(TASK_STACKS, "task_stacks") X(ARENA, "arena") X(THREAD_TABLES, "thread_tables") X(PROCESSES, "processes")  \
    X(THREADS, "threads") X(CONSTRUCTS, "constructs") X(TASK_CONSTRUCTS, "task_constructs")                      \
    X(SERIAL_PLACES, "serial_places") X(TASK_NESTING, "task_nesting") X(TASK_GRAPH, "task_graph")                \
    X(REGIONS, "regions") X(NESTING, "nesting") X(WAITS, "waits") X(MODULES, "modules")
enum ompc_limit_kind {
#define OMPC_LIMIT_KIND(kind, key) OMPC_LIMIT_##kind,
    OMPC_LIMITS(OMPC_LIMIT_KIND)
#undef OMPC_LIMIT_KIND
    OMPC_LIMIT_KINDS
};

/*
 * Fills `out` with every bound the process's run reached, in a fixed order;
 * returns how many.  `event_log_bytes` is the --trace buffer size (0: no
 * trace was asked for).
 */
int ompc_limits_reached(const struct ompc_model_process *process, uint64_t event_log_bytes,
                        struct ompc_limit out[OMPC_LIMIT_KINDS]);

#endif /* OMPCOLLECT_BOUNDS_H */
