/* trace_otf2_plan.h - what the OTF2 writer needs across threads before it writes any: every location's spans, the thread teams each parallel region had, and the order lock acquisitions happened in. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TRACE_OTF2_PLAN_H
#define OMPCOLLECT_TRACE_OTF2_PLAN_H 1

#include <stddef.h>
#include <stdint.h>

#include "report.h"

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

/* Everything the writer needs planned, per location as the writer numbers them. */
struct ompc_otf2_plan {
    int location_count;
    struct ompc_otf2_item **items; /* per location, in writing order (ompc_trace_spans's) */
    size_t *item_count;
    struct ompc_otf2_team *teams;
    size_t team_count, team_capacity;
    uint32_t lock_count;
    uint64_t acquisitions;
};

/*
 * Plans the archive of `report` for the locations whose thread slots are
 * thread_of[0..location_count-1]: the spans of each, a parallel region on
 * every member of its team as well as on the thread that forked it, the
 * teams, and the lock acquisitions numbered.  Returns 0, -1 without memory.
 */
int ompc_otf2_plan_build(const struct ompc_report *report, const int *thread_of, int location_count,
                         struct ompc_otf2_plan *plan);

/* Frees what the plan holds. */
void ompc_otf2_plan_free(struct ompc_otf2_plan *plan);

#endif /* OMPCOLLECT_TRACE_OTF2_PLAN_H */
