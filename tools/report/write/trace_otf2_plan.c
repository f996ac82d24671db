/* trace_otf2_plan.c - plans an OTF2 archive across threads: the regions forked and their teams, which location was a member of which (so that every member enters the region), the lock acquisitions in order, how each task is named; and each location's items from its spans and the plan. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "trace_otf2_plan.h"

#include "grow.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* The pairs (names.c) whose END is the thread acquiring what it waited for: LKWT (a lock), CTWT (a critical's). */
enum { PAIR_IDLE = 0, PAIR_LKWT = 3, PAIR_CTWT = 4 };

/* The thread slots the samples saw in region `id`, 0 when it has none. */
static uint64_t region_mask(const struct ompc_model_process *process, uint64_t id)
{
    size_t low = 0, high = process->region_count;
    while (low < high) { /* the regions are by id: the first one of `id` */
        size_t middle = low + (high - low) / 2;
        if (process->regions[middle].id < id)
            low = middle + 1;
        else
            high = middle;
    }
    return low < process->region_count && process->regions[low].id == id ? process->regions[low].thread_mask : 0;
}

/* qsort: a location's items in writing order: by begin, the enclosing first, regions before what they hold, states last. */
static int compare_items(const void *a, const void *b)
{
    return ompc_span_order(&((const struct ompc_otf2_item *)a)->span, &((const struct ompc_otf2_item *)b)->span, 1);
}

/* qsort: forks by region id, then time. */
static int compare_forks(const void *a, const void *b)
{
    const struct ompc_otf2_fork *x = a, *y = b;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* Whether a span's end is the thread acquiring a lock it waited for, with the lock's wait id known. */
static int acquires(const struct ompc_span *span)
{
    return span->kind == OMPC_SPAN_CONSTRUCT && span->exact && span->ended && span->wait_id != 0
           && (span->pair == PAIR_LKWT || span->pair == PAIR_CTWT);
}

/* A construct span's region id and begin: what says which team its thread was in. */
struct region_use {
    uint64_t region, begin;
};

/* One recorded acquisition: the end of a lock or critical wait, the `ordinal`th of its location. */
struct acquisition {
    uint64_t lock, when;
    int location;
    size_t ordinal;
};

/* What the first pass over every location's spans gathers. */
struct gathered {
    size_t fork_capacity;
    size_t *first_fork;          /* per location: the ordinal of its first fork */
    struct region_use **uses;    /* per location */
    size_t *use_count;
    struct acquisition *acquisitions;
    size_t acquisition_count, acquisition_capacity;
};

/* Location `l`'s forks, region uses and acquisitions, from its spans; -1 without memory. */
static int gather_location(const struct ompc_report *report, struct ompc_otf2_plan *plan, struct gathered *g,
                           int l, int thread)
{
    struct ompc_span *spans;
    long count = ompc_trace_spans(report, thread, &spans);
    if (count < 0)
        return -1;
    struct ompc_otf2_placed *placed = &plan->placed[l];
    size_t use_capacity = 0;
    int failed = 0;
    g->first_fork[l] = plan->fork_count;
    for (long k = 0; k < count && !failed; k++) {
        const struct ompc_span *span = &spans[k];
        if (span->kind == OMPC_SPAN_REGION && span->exact) {
            failed = ompc_grow(&plan->forks, plan->fork_count + 1, &g->fork_capacity, sizeof *plan->forks);
            if (!failed)
                plan->forks[plan->fork_count] = (struct ompc_otf2_fork){
                    span->region, span->begin_ns, span->end_ns, span->codeptr,
                    region_mask(report->process, span->region), l, OMPC_OTF2_NONE, plan->fork_count};
            plan->fork_count += !failed;
            placed->fork_count += !failed;
        } else if (((span->kind == OMPC_SPAN_CONSTRUCT && span->pair != PAIR_IDLE) || span->kind == OMPC_SPAN_TASK)
                   && span->region != 0) {
            failed = ompc_grow(&g->uses[l], g->use_count[l] + 1, &use_capacity, sizeof *g->uses[l]);
            if (!failed)
                g->uses[l][g->use_count[l]++] = (struct region_use){span->region, span->begin_ns};
        }
        if (!failed && acquires(span)) {
            failed = ompc_grow(&g->acquisitions, g->acquisition_count + 1, &g->acquisition_capacity,
                          sizeof *g->acquisitions);
            if (!failed)
                g->acquisitions[g->acquisition_count++]
                    = (struct acquisition){span->wait_id, span->end_ns, l, placed->acquired_count++};
        }
    }
    free(spans);
    return failed ? -1 : 0;
}

/*
 * The fork of region `id` a span beginning at `when` belongs to: the
 * latest that began by then, else the first; -1 for none.  A runtime that
 * gives every region one id makes that a search by time.
 */
static long fork_of(const struct ompc_otf2_fork *forks, size_t count, uint64_t id, uint64_t when)
{
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (forks[middle].region < id || (forks[middle].region == id && forks[middle].begin <= when))
            low = middle + 1;
        else
            high = middle;
    }
    if (id == 0)
        return -1;
    if (low > 0 && forks[low - 1].region == id)
        return (long)(low - 1);
    return low < count && forks[low].region == id ? (long)low : -1;
}

/*
 * Location `l`'s memberships: the teams the samples saw it in and those
 * its events (waits, barriers, constructs) say it worked in; `seen` is
 * scratch, `bits` (words_per_fork per fork) collects each team's members.
 * -1 without memory.
 */
static int location_memberships(struct ompc_otf2_plan *plan, const struct gathered *g, int l, int slot,
                                uint8_t *seen, uint64_t *bits, size_t words_per_fork)
{
    const struct ompc_otf2_fork *forks = plan->forks;
    size_t members = 0;
    for (size_t f = 0; f < plan->fork_count; f++)
        seen[f] = slot < 64 && (forks[f].mask >> slot & 1);
    for (size_t u = 0; u < g->use_count[l]; u++) {
        long f = fork_of(forks, plan->fork_count, g->uses[l][u].region, g->uses[l][u].begin);
        if (f >= 0)
            seen[f] = 1;
    }
    for (size_t f = 0; f < plan->fork_count; f++)
        if (seen[f]) {
            bits[f * words_per_fork + (size_t)l / 64] |= UINT64_C(1) << (l % 64);
            members += forks[f].location != l;
        }
    struct ompc_otf2_placed *placed = &plan->placed[l];
    placed->member_forks = malloc((members + 1) * sizeof *placed->member_forks);
    if (placed->member_forks == NULL)
        return -1;
    for (size_t f = 0; f < plan->fork_count; f++)
        if (seen[f] && forks[f].location != l)
            placed->member_forks[placed->member_count++] = (uint32_t)f;
    return 0;
}

/* The team of `fork` (its forking location first), numbered as an earlier identical team when there is one; OMPC_OTF2_NONE without memory. */
static uint32_t team_of(struct ompc_otf2_plan *plan, const struct ompc_otf2_fork *fork, const uint64_t *bits)
{
    uint32_t members[OMPC_MAX_THREADS], size = 0;
    members[size++] = (uint32_t)fork->location;
    for (int l = 0; l < plan->location_count && size < OMPC_MAX_THREADS; l++)
        if (l != fork->location && (bits[l / 64] >> (l % 64) & 1))
            members[size++] = (uint32_t)l;
    for (size_t t = 0; t < plan->team_count; t++)
        if (plan->teams[t].size == size && memcmp(plan->teams[t].members, members, size * sizeof *members) == 0)
            return (uint32_t)t;
    if (ompc_grow(&plan->teams, plan->team_count + 1, &plan->team_capacity, sizeof *plan->teams) != 0)
        return OMPC_OTF2_NONE;
    uint32_t *copy = malloc(size * sizeof *copy);
    if (copy == NULL)
        return OMPC_OTF2_NONE;
    memcpy(copy, members, size * sizeof *copy);
    plan->teams[plan->team_count] = (struct ompc_otf2_team){size, copy};
    return (uint32_t)plan->team_count++;
}

/* Every location's memberships, every fork's team, and each location's forks' teams in its spans' order; -1 without memory. */
static int plan_teams(const int *thread_of, struct ompc_otf2_plan *plan, const struct gathered *g)
{
    size_t words_per_fork = ((size_t)plan->location_count + 63) / 64;
    uint8_t *seen = malloc(plan->fork_count + 1);
    uint64_t *bits = calloc(plan->fork_count * words_per_fork + 1, sizeof *bits);
    int failed = seen == NULL || bits == NULL;
    for (int l = 0; l < plan->location_count && !failed; l++)
        failed = location_memberships(plan, g, l, thread_of[l], seen, bits, words_per_fork) != 0;
    for (size_t f = 0; f < plan->fork_count && !failed; f++) {
        plan->forks[f].team = team_of(plan, &plan->forks[f], &bits[f * words_per_fork]);
        failed = plan->forks[f].team == OMPC_OTF2_NONE;
    }
    for (int l = 0; l < plan->location_count && !failed; l++) {
        plan->placed[l].fork_teams = malloc((plan->placed[l].fork_count + 1) * sizeof *plan->placed[l].fork_teams);
        failed = plan->placed[l].fork_teams == NULL;
    }
    for (size_t f = 0; f < plan->fork_count && !failed; f++) {
        const struct ompc_otf2_fork *fork = &plan->forks[f];
        plan->placed[fork->location].fork_teams[fork->ordinal - g->first_fork[fork->location]] = fork->team;
    }
    free(seen);
    free(bits);
    return failed ? -1 : 0;
}

/* The place of location `location` in team `team`, OMPC_OTF2_NONE when it is not a member. */
static uint32_t rank_in(const struct ompc_otf2_plan *plan, uint32_t team, int location)
{
    if (team >= plan->team_count)
        return OMPC_OTF2_NONE;
    for (uint32_t m = 0; m < plan->teams[team].size; m++)
        if (plan->teams[team].members[m] == (uint32_t)location)
            return m;
    return OMPC_OTF2_NONE;
}

/* The team of every location, made on first use; OMPC_OTF2_NONE without memory. */
static uint32_t all_team(struct ompc_otf2_plan *plan)
{
    if (plan->all_team != OMPC_OTF2_NONE)
        return plan->all_team;
    uint32_t *members = malloc(((size_t)plan->location_count + 1) * sizeof *members);
    if (members == NULL || ompc_grow(&plan->teams, plan->team_count + 1, &plan->team_capacity,
                                sizeof *plan->teams) != 0) {
        free(members);
        return OMPC_OTF2_NONE;
    }
    for (int l = 0; l < plan->location_count; l++)
        members[l] = (uint32_t)l;
    plan->teams[plan->team_count] = (struct ompc_otf2_team){(uint32_t)plan->location_count, members};
    plan->all_team = (uint32_t)plan->team_count++;
    return plan->all_team;
}

/*
 * Names every task whose creation a log kept: in the team of the region
 * its first run began in, by its creator's place there and the
 * creation's number; a task no planned team holds its creator in goes to
 * the team of every location.  -1 without memory.
 */
static int plan_tasks(const struct ompc_report *report, const int *thread_of, struct ompc_otf2_plan *plan)
{
    const struct ompc_model_process *process = report->process;
    plan->tasks = malloc((process->task_count + 1) * sizeof *plan->tasks);
    int *location_of = malloc(((size_t)process->thread_count + 1) * sizeof *location_of);
    if (plan->tasks == NULL || location_of == NULL) {
        free(location_of);
        return -1;
    }
    for (int t = 0; t < process->thread_count; t++)
        location_of[t] = -1;
    for (int l = 0; l < plan->location_count; l++)
        if (thread_of[l] >= 0 && thread_of[l] < process->thread_count)
            location_of[thread_of[l]] = l;
    /* Where a task run has no team of its own, the implicit task it switches back to needs one too. */
    int failed = process->task_count > 0 && all_team(plan) == OMPC_OTF2_NONE;
    for (size_t i = 0; i < process->task_count && !failed; i++) {
        const struct ompc_model_task *task = &process->tasks[i];
        struct ompc_otf2_task *named = &plan->tasks[i];
        *named = (struct ompc_otf2_task){OMPC_OTF2_NONE, 0, task->generation};
        int l = task->creator >= 0 && task->creator < process->thread_count ? location_of[task->creator] : -1;
        if (l < 0)
            continue;
        long f = fork_of(plan->forks, plan->fork_count, task->region, task->create_ns);
        named->team = f >= 0 ? plan->forks[f].team : OMPC_OTF2_NONE;
        named->creator = rank_in(plan, named->team, l);
        if (named->creator == OMPC_OTF2_NONE) {
            named->team = all_team(plan);
            named->creator = (uint32_t)l;
            failed = named->team == OMPC_OTF2_NONE;
        }
    }
    free(location_of);
    return failed ? -1 : 0;
}

struct ompc_otf2_task ompc_otf2_plan_implicit(const struct ompc_otf2_plan *plan, int location, uint64_t region,
                                              uint64_t when)
{
    long f = fork_of(plan->forks, plan->fork_count, region, when);
    struct ompc_otf2_task implicit = {f >= 0 ? plan->forks[f].team : OMPC_OTF2_NONE, 0, 0};
    implicit.creator = rank_in(plan, implicit.team, location);
    if (implicit.creator == OMPC_OTF2_NONE)
        implicit = (struct ompc_otf2_task){plan->all_team, (uint32_t)location, 0};
    return implicit;
}

/* qsort: by lock, then time, then location. */
static int compare_acquisitions(const void *a, const void *b)
{
    const struct acquisition *x = a, *y = b;
    if (x->lock != y->lock)
        return x->lock < y->lock ? -1 : 1;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    return (x->location > y->location) - (x->location < y->location);
}

/* Numbers the locks by wait id and each one's acquisitions by time across all locations; -1 without memory. */
static int plan_locks(struct ompc_otf2_plan *plan, struct gathered *g)
{
    for (int l = 0; l < plan->location_count; l++) {
        struct ompc_otf2_placed *placed = &plan->placed[l];
        placed->acquired = malloc((placed->acquired_count + 1) * sizeof *placed->acquired);
        if (placed->acquired == NULL)
            return -1;
    }
    ompc_qsort(g->acquisitions, g->acquisition_count, sizeof *g->acquisitions, compare_acquisitions);
    uint32_t order = 0;
    for (size_t i = 0; i < g->acquisition_count; i++) {
        const struct acquisition *a = &g->acquisitions[i];
        if (i == 0 || a->lock != g->acquisitions[i - 1].lock) {
            plan->lock_count++;
            order = 0;
        }
        plan->placed[a->location].acquired[a->ordinal][0] = plan->lock_count - 1;
        plan->placed[a->location].acquired[a->ordinal][1] = order++;
    }
    plan->acquisitions = g->acquisition_count;
    return 0;
}

/* Frees what the first pass gathered. */
static void gathered_free(struct gathered *g, int location_count)
{
    for (int l = 0; g->uses != NULL && l < location_count; l++)
        free(g->uses[l]);
    free(g->uses);
    free(g->use_count);
    free(g->first_fork);
    free(g->acquisitions);
}

/* The plan (see trace_otf2_plan.h). */
int ompc_otf2_plan_build(const struct ompc_report *report, const int *thread_of, int location_count,
                         struct ompc_otf2_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->location_count = location_count;
    plan->all_team = OMPC_OTF2_NONE;
    struct gathered g;
    memset(&g, 0, sizeof g);
    plan->placed = calloc((size_t)location_count + 1, sizeof *plan->placed);
    g.first_fork = calloc((size_t)location_count + 1, sizeof *g.first_fork);
    g.uses = calloc((size_t)location_count + 1, sizeof *g.uses);
    g.use_count = calloc((size_t)location_count + 1, sizeof *g.use_count);
    int failed = plan->placed == NULL || g.first_fork == NULL || g.uses == NULL || g.use_count == NULL;
    for (int l = 0; l < location_count && !failed; l++)
        failed = gather_location(report, plan, &g, l, thread_of[l]) != 0;
    if (!failed)
        ompc_qsort(plan->forks, plan->fork_count, sizeof *plan->forks, compare_forks);
    failed = failed || plan_teams(thread_of, plan, &g) != 0 || plan_locks(plan, &g) != 0
          || plan_tasks(report, thread_of, plan) != 0;
    gathered_free(&g, location_count);
    return failed ? -1 : 0;
}

/*
 * Puts the member spans appended after the first `spans` items (in
 * ompc_trace_spans's order already) in their places: sorted among
 * themselves, then merged -- a trace's worth of spans is not sorted again
 * for a few regions.  Returns the items, NULL without memory.
 */
static struct ompc_otf2_item *merge_members(struct ompc_otf2_item *items, size_t spans, size_t count)
{
    if (count == spans)
        return items;
    ompc_qsort(items + spans, count - spans, sizeof *items, compare_items);
    struct ompc_otf2_item *merged = malloc((count + 1) * sizeof *merged);
    if (merged != NULL) {
        size_t a = 0, b = spans, n = 0;
        while (a < spans || b < count)
            merged[n++] = b == count || (a < spans && compare_items(&items[a], &items[b]) <= 0) ? items[a++]
                                                                                                 : items[b++];
    }
    free(items);
    return merged;
}

/* A location's items (see trace_otf2_plan.h). */
long ompc_otf2_plan_items(const struct ompc_report *report, const struct ompc_otf2_plan *plan, int location,
                          int thread, struct ompc_otf2_item **out)
{
    const struct ompc_otf2_placed *placed = &plan->placed[location];
    struct ompc_span *spans;
    long count = ompc_trace_spans(report, thread, &spans);
    if (count < 0)
        return -1;
    struct ompc_otf2_item *items = malloc(((size_t)count + placed->member_count + 1) * sizeof *items);
    if (items == NULL) {
        free(spans);
        return -1;
    }
    size_t forks = 0, acquired = 0, n = 0;
    for (long k = 0; k < count; k++, n++) {
        items[n] = (struct ompc_otf2_item){spans[k], OMPC_OTF2_NONE, OMPC_OTF2_NONE, 0, 0};
        /* The same spans as when planned, so the k-th fork or acquisition is the planned one. */
        if (spans[k].kind == OMPC_SPAN_REGION && spans[k].exact && forks < placed->fork_count) {
            items[n].team = placed->fork_teams[forks++];
            items[n].fork = 1;
        }
        if (acquires(&spans[k]) && acquired < placed->acquired_count) {
            items[n].lock = placed->acquired[acquired][0];
            items[n].order = placed->acquired[acquired++][1];
        }
    }
    free(spans);
    for (size_t m = 0; m < placed->member_count; m++) {
        const struct ompc_otf2_fork *fork = &plan->forks[placed->member_forks[m]];
        struct ompc_span span = {.begin_ns = fork->begin, .end_ns = fork->end, .kind = OMPC_SPAN_REGION,
                                 .pair = -1, .exact = 1, .region = fork->region, .codeptr = fork->codeptr,
                                 .ended = 1};
        items[n++] = (struct ompc_otf2_item){span, fork->team, OMPC_OTF2_NONE, 0, 0};
    }
    *out = merge_members(items, (size_t)count, n);
    return *out != NULL ? (long)n : -1;
}

/* Frees the plan. */
void ompc_otf2_plan_free(struct ompc_otf2_plan *plan)
{
    for (int l = 0; plan->placed != NULL && l < plan->location_count; l++) {
        free(plan->placed[l].fork_teams);
        free(plan->placed[l].member_forks);
        free(plan->placed[l].acquired);
    }
    free(plan->placed);
    free(plan->forks);
    for (size_t t = 0; t < plan->team_count; t++)
        free(plan->teams[t].members);
    free(plan->teams);
    free(plan->tasks);
    memset(plan, 0, sizeof *plan);
}
