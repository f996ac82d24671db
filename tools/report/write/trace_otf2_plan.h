/* trace_otf2_plan.h - what the OTF2 writer needs across threads before it writes any: every location's spans, the thread teams each parallel region had, and the order lock acquisitions happened in. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TRACE_OTF2_PLAN_H
#define OMPCOLLECT_TRACE_OTF2_PLAN_H 1

#include <stddef.h>
#include <stdint.h>

#include "spans.h"

#define OMPC_OTF2_NONE UINT32_MAX

/* One span to write, with what the archive adds to it. */
struct ompc_otf2_item {
    struct ompc_span span;
    uint32_t team;  /* REGION of a team: the team's number (its Comm), OMPC_OTF2_NONE otherwise */
    uint32_t lock;  /* a lock or critical wait ended by acquiring: the lock's number, else OMPC_OTF2_NONE */
    uint32_t order; /* that acquisition's place among the lock's recorded acquisitions */
    int fork;       /* 1: the span of the thread that forked the region (ThreadFork .. ThreadJoin) */
};

/* One thread team: the locations in it, the one that forked it first. */
struct ompc_otf2_team {
    uint32_t size;
    uint32_t *members;
};

/* What one location's spans get from the other locations', in the order of its spans. */
struct ompc_otf2_placed {
    uint32_t *fork_teams;     /* per span of a region it forked: the team */
    size_t fork_count;
    uint32_t *member_forks;   /* the forks of others it was a member of (index into the plan's forks) */
    size_t member_count;
    uint32_t (*acquired)[2];  /* per span that ends acquiring a lock: the lock's number, the order */
    size_t acquired_count;
};

/* One region forked: by which location, when, in which team. */
struct ompc_otf2_fork {
    uint64_t region, begin, end, codeptr, mask;
    int location;
    uint32_t team;
    size_t ordinal; /* its place among the forks collected, before they are sorted */
};

/*
 * A task as OTF2 names it in ThreadTaskCreate, ThreadTaskSwitch and
 * ThreadTaskComplete: its team (a Comm), the creating thread's place in
 * that team, and the creation's number among that thread's (0: the
 * thread's implicit task).  team OMPC_OTF2_NONE: not written as a task.
 */
struct ompc_otf2_task {
    uint32_t team, creator, generation;
};

/*
 * What the writer needs planned across locations, in the locations' order:
 * small next to the spans, which each location gets again when it is
 * written (ompc_otf2_plan_items), so the archive of a long trace needs the
 * spans of one thread at a time.
 */
struct ompc_otf2_plan {
    int location_count;
    struct ompc_otf2_fork *forks;  /* by region id, then time */
    size_t fork_count;
    struct ompc_otf2_placed *placed; /* per location */
    struct ompc_otf2_team *teams;
    size_t team_count, team_capacity;
    uint32_t lock_count;
    uint64_t acquisitions;
    /* Per task of the model (process->tasks' order): how OTF2 names it. */
    struct ompc_otf2_task *tasks;
    /* A team of every location (OMPC_OTF2_NONE until needed): for tasks no planned team holds. */
    uint32_t all_team;
};

/* The implicit task location `location` runs in region `region` at `when`: what a task run there switches back to. */
struct ompc_otf2_task ompc_otf2_plan_implicit(const struct ompc_otf2_plan *plan, int location, uint64_t region,
                                              uint64_t when);

/*
 * Plans the archive of `report` for the locations whose thread slots are
 * thread_of[0..location_count-1]: the regions forked, the teams, which
 * location was in which, and the lock acquisitions numbered.  Returns 0,
 * -1 without memory.
 */
int ompc_otf2_plan_build(const struct ompc_report *report, const int *thread_of, int location_count,
                         struct ompc_otf2_plan *plan);

/*
 * The items of location `location` (thread slot `thread`) in writing
 * order: its spans (ompc_trace_spans), a parallel region wherever it was a
 * member of a team another thread forked, with the teams and lock
 * acquisitions the plan gives them.  Returns the count (*items malloc'd),
 * -1 without memory.
 */
long ompc_otf2_plan_items(const struct ompc_report *report, const struct ompc_otf2_plan *plan, int location,
                          int thread, struct ompc_otf2_item **items);

/* Frees what the plan holds. */
void ompc_otf2_plan_free(struct ompc_otf2_plan *plan);

#endif /* OMPCOLLECT_TRACE_OTF2_PLAN_H */
