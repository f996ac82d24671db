/* trace_otf2_plan.c - plans an OTF2 archive across threads: each location's spans, a parallel region entered by every member of its team, the teams, the lock acquisitions in order. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "trace_otf2_plan.h"

#include "sort.h"

#include <stdlib.h>
#include <string.h>

/* The pairs (names.c) whose END is the thread acquiring what it waited for: LKWT (a lock), CTWT (a critical's). */
enum { PAIR_IDLE = 0, PAIR_LKWT = 3, PAIR_CTWT = 4 };

/* One region the event logs say was forked: by which location, when, and the span that says so. */
struct fork {
    uint64_t region, begin, end, codeptr, mask;
    int location;
    size_t item;
    uint32_t team;
};

/* The thread slots the samples saw in region `id` (its row in the record), 0 when it has none. */
static uint64_t region_mask(const struct ompc_model_process *process, uint64_t id)
{
    uint64_t hash = id * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned probe = 0; id != 0 && probe < 64; probe++) {
        const struct ompc_model_region *row = &process->regions[((hash >> 50) + probe) % OMPC_MAX_REGIONS];
        if (row->id == 0)
            break;
        if (row->id == id)
            return row->thread_mask;
    }
    return 0;
}

/* qsort: a location's items in writing order: by begin, the enclosing first, regions before what they hold, states last. */
static int compare_items(const void *a, const void *b)
{
    const struct ompc_span *x = &((const struct ompc_otf2_item *)a)->span;
    const struct ompc_span *y = &((const struct ompc_otf2_item *)b)->span;
    if (x->begin_ns != y->begin_ns)
        return x->begin_ns < y->begin_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;
    if ((x->kind == OMPC_SPAN_STATE) != (y->kind == OMPC_SPAN_STATE))
        return x->kind == OMPC_SPAN_STATE ? 1 : -1;
    if ((x->kind == OMPC_SPAN_REGION) != (y->kind == OMPC_SPAN_REGION))
        return x->kind == OMPC_SPAN_REGION ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* qsort: forks by region id, then time. */
static int compare_forks(const void *a, const void *b)
{
    const struct fork *x = a, *y = b;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* Every location's spans as items; -1 without memory. */
static int plan_spans(const struct ompc_report *report, const int *thread_of, struct ompc_otf2_plan *plan)
{
    for (int l = 0; l < plan->location_count; l++) {
        struct ompc_span *spans;
        long count = ompc_trace_spans(report, thread_of[l], &spans);
        if (count < 0)
            return -1;
        plan->items[l] = malloc(((size_t)count + 1) * sizeof *plan->items[l]);
        if (plan->items[l] == NULL) {
            free(spans);
            return -1;
        }
        for (long k = 0; k < count; k++)
            plan->items[l][k] = (struct ompc_otf2_item){spans[k], OMPC_OTF2_NONE, OMPC_OTF2_NONE, 0, 0};
        plan->item_count[l] = (size_t)count;
        free(spans);
    }
    return 0;
}

/* The regions forked, from the spans FORK and JOIN bracket, sorted by id; -1 without memory. */
static long collect_forks(const struct ompc_report *report, struct ompc_otf2_plan *plan, struct fork **out)
{
    size_t count = 0;
    for (int l = 0; l < plan->location_count; l++)
        for (size_t k = 0; k < plan->item_count[l]; k++)
            count += plan->items[l][k].span.kind == OMPC_SPAN_REGION && plan->items[l][k].span.exact;
    struct fork *forks = malloc((count + 1) * sizeof *forks);
    if (forks == NULL)
        return -1;
    size_t n = 0;
    for (int l = 0; l < plan->location_count; l++)
        for (size_t k = 0; k < plan->item_count[l]; k++) {
            const struct ompc_span *span = &plan->items[l][k].span;
            if (span->kind != OMPC_SPAN_REGION || !span->exact)
                continue;
            uint64_t mask = region_mask(report->process, span->region);
            forks[n++] = (struct fork){span->region, span->begin_ns, span->end_ns, span->codeptr, mask, l, k,
                                       OMPC_OTF2_NONE};
        }
    ompc_qsort(forks, n, sizeof *forks, compare_forks);
    for (size_t f = 0; f < n; f++) {
        plan->items[forks[f].location][forks[f].item].fork = 1;
        plan->items[forks[f].location][forks[f].item].team = (uint32_t)f; /* the fork's index until teams are numbered */
    }
    *out = forks;
    return (long)n;
}

/*
 * The fork of region `id` a span beginning at `when` belongs to: the
 * latest that began by then, else the first; -1 for none.  A runtime that
 * gives every region one id makes that a search by time.
 */
static long fork_of(const struct fork *forks, size_t count, uint64_t id, uint64_t when)
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

/* Appends an item to location `l`; -1 without memory. */
static int push_item(struct ompc_otf2_plan *plan, int l, size_t *capacity, const struct ompc_otf2_item *item)
{
    if (plan->item_count[l] == *capacity) {
        size_t grown_capacity = *capacity ? 2 * *capacity : 16;
        struct ompc_otf2_item *grown = realloc(plan->items[l], grown_capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        plan->items[l] = grown;
        *capacity = grown_capacity;
    }
    plan->items[l][plan->item_count[l]++] = *item;
    return 0;
}

/* Scratch for finding one location's memberships. */
struct membership {
    uint8_t *seen;          /* per fork */
    uint64_t *bits;         /* per fork, words_per_fork words: the member locations */
    size_t words_per_fork;
};

/*
 * Location `l`'s memberships: the teams the samples saw it in and those
 * its events (waits, barriers, constructs) say it worked in.  Each becomes
 * a span of the region on `l` from the fork to the join: a worker's
 * implicit barrier that ends later (a runtime keeping its team for the
 * next region wakes it only then) is cut there by the writer, the state
 * metric still saying IBAR.  -1 without memory.
 */
static int location_memberships(struct ompc_otf2_plan *plan, int l, int slot, const struct fork *forks,
                                size_t fork_count, struct membership *m)
{
    memset(m->seen, 0, fork_count * sizeof *m->seen);
    for (size_t f = 0; f < fork_count; f++)
        m->seen[f] = slot < 64 && (forks[f].mask >> slot & 1);
    for (size_t k = 0; k < plan->item_count[l]; k++) {
        const struct ompc_span *span = &plan->items[l][k].span;
        if (span->kind != OMPC_SPAN_CONSTRUCT || span->pair == PAIR_IDLE || span->region == 0)
            continue;
        long f = fork_of(forks, fork_count, span->region, span->begin_ns);
        if (f >= 0)
            m->seen[f] = 1;
    }
    size_t capacity = plan->item_count[l] + 1;
    for (size_t f = 0; f < fork_count; f++) {
        if (!m->seen[f])
            continue;
        m->bits[f * m->words_per_fork + (size_t)l / 64] |= UINT64_C(1) << (l % 64);
        if (forks[f].location == l)
            continue;
        struct ompc_span span = {forks[f].begin, forks[f].end, OMPC_SPAN_REGION, 0, 0, -1, 1, forks[f].region, 0,
                                 forks[f].codeptr, 1};
        struct ompc_otf2_item item = {span, (uint32_t)f, OMPC_OTF2_NONE, 0, 0};
        if (push_item(plan, l, &capacity, &item) != 0)
            return -1;
    }
    return 0;
}

/* The team of fork `f` (its forking location first), numbered as an earlier identical team when there is one; OMPC_OTF2_NONE without memory. */
static uint32_t team_of(struct ompc_otf2_plan *plan, const struct fork *fork, const uint64_t *bits)
{
    uint32_t members[OMPC_MAX_THREADS], size = 0;
    members[size++] = (uint32_t)fork->location;
    for (int l = 0; l < plan->location_count && size < OMPC_MAX_THREADS; l++)
        if (l != fork->location && (bits[l / 64] >> (l % 64) & 1))
            members[size++] = (uint32_t)l;
    for (size_t t = 0; t < plan->team_count; t++)
        if (plan->teams[t].size == size && memcmp(plan->teams[t].members, members, size * sizeof *members) == 0)
            return (uint32_t)t;
    if (plan->team_count == plan->team_capacity) {
        size_t capacity = plan->team_capacity ? 2 * plan->team_capacity : 16;
        struct ompc_otf2_team *grown = realloc(plan->teams, capacity * sizeof *grown);
        if (grown == NULL)
            return OMPC_OTF2_NONE;
        plan->teams = grown;
        plan->team_capacity = capacity;
    }
    uint32_t *copy = malloc(size * sizeof *copy);
    if (copy == NULL)
        return OMPC_OTF2_NONE;
    memcpy(copy, members, size * sizeof *copy);
    plan->teams[plan->team_count] = (struct ompc_otf2_team){size, copy};
    return (uint32_t)plan->team_count++;
}

/* Every team's members and number, then every region span's team by its fork; -1 without memory. */
static int plan_teams(const int *thread_of, struct ompc_otf2_plan *plan, struct fork *forks, size_t fork_count)
{
    struct membership m;
    m.words_per_fork = ((size_t)plan->location_count + 63) / 64;
    m.seen = malloc(fork_count + 1);
    m.bits = calloc(fork_count * m.words_per_fork + 1, sizeof *m.bits);
    int failed = m.seen == NULL || m.bits == NULL;
    for (int l = 0; l < plan->location_count && !failed; l++)
        failed = location_memberships(plan, l, thread_of[l], forks, fork_count, &m) != 0;
    for (size_t f = 0; f < fork_count && !failed; f++) {
        forks[f].team = team_of(plan, &forks[f], &m.bits[f * m.words_per_fork]);
        failed = forks[f].team == OMPC_OTF2_NONE;
    }
    for (int l = 0; l < plan->location_count && !failed; l++)
        for (size_t k = 0; k < plan->item_count[l]; k++)
            if (plan->items[l][k].team != OMPC_OTF2_NONE)
                plan->items[l][k].team = forks[plan->items[l][k].team].team;
    free(m.seen);
    free(m.bits);
    return failed ? -1 : 0;
}

/* One recorded acquisition: the end of a lock or critical wait. */
struct acquisition {
    uint64_t lock, when;
    int location;
    size_t item;
};

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

/* Whether an item's end is the thread acquiring a lock it waited for, with the lock's wait id known. */
static int acquires(const struct ompc_otf2_item *item)
{
    const struct ompc_span *span = &item->span;
    return span->kind == OMPC_SPAN_CONSTRUCT && span->exact && span->ended && span->wait_id != 0
           && (span->pair == PAIR_LKWT || span->pair == PAIR_CTWT);
}

/* Numbers the locks by wait id and each one's acquisitions by time across all locations; -1 without memory. */
static int plan_locks(struct ompc_otf2_plan *plan)
{
    size_t count = 0;
    for (int l = 0; l < plan->location_count; l++)
        for (size_t k = 0; k < plan->item_count[l]; k++)
            count += acquires(&plan->items[l][k]);
    struct acquisition *all = malloc((count + 1) * sizeof *all);
    if (all == NULL)
        return -1;
    size_t n = 0;
    for (int l = 0; l < plan->location_count; l++)
        for (size_t k = 0; k < plan->item_count[l]; k++)
            if (acquires(&plan->items[l][k]))
                all[n++] = (struct acquisition){plan->items[l][k].span.wait_id, plan->items[l][k].span.end_ns, l, k};
    ompc_qsort(all, n, sizeof *all, compare_acquisitions);
    uint32_t order = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || all[i].lock != all[i - 1].lock) {
            plan->lock_count++;
            order = 0;
        }
        struct ompc_otf2_item *item = &plan->items[all[i].location][all[i].item];
        item->lock = plan->lock_count - 1;
        item->order = order++;
    }
    plan->acquisitions = n;
    free(all);
    return 0;
}

/*
 * Puts location `l`'s member spans, appended after its first `spans`
 * items (in ompc_trace_spans's order already), in their places: sorted
 * among themselves, then merged -- a trace's worth of spans is not sorted
 * again for a few regions.  -1 without memory.
 */
static int merge_members(struct ompc_otf2_plan *plan, int l, size_t spans)
{
    size_t count = plan->item_count[l], added = count - spans;
    if (added == 0)
        return 0;
    struct ompc_otf2_item *items = plan->items[l];
    ompc_qsort(items + spans, added, sizeof *items, compare_items);
    struct ompc_otf2_item *merged = malloc((count + 1) * sizeof *merged);
    if (merged == NULL)
        return -1;
    size_t a = 0, b = spans, n = 0;
    while (a < spans || b < count)
        merged[n++] = b == count || (a < spans && compare_items(&items[a], &items[b]) <= 0) ? items[a++] : items[b++];
    free(items);
    plan->items[l] = merged;
    return 0;
}

/* The plan (see trace_otf2_plan.h). */
int ompc_otf2_plan_build(const struct ompc_report *report, const int *thread_of, int location_count,
                         struct ompc_otf2_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->location_count = location_count;
    plan->items = calloc((size_t)location_count + 1, sizeof *plan->items);
    plan->item_count = calloc((size_t)location_count + 1, sizeof *plan->item_count);
    if (plan->items == NULL || plan->item_count == NULL || plan_spans(report, thread_of, plan) != 0)
        return -1;
    struct fork *forks;
    long fork_count = collect_forks(report, plan, &forks);
    if (fork_count < 0)
        return -1;
    size_t *spans = malloc(((size_t)location_count + 1) * sizeof *spans);
    if (spans == NULL) {
        free(forks);
        return -1;
    }
    memcpy(spans, plan->item_count, (size_t)location_count * sizeof *spans);
    int failed = plan_teams(thread_of, plan, forks, (size_t)fork_count) != 0;
    free(forks);
    for (int l = 0; l < location_count && !failed; l++)
        failed = merge_members(plan, l, spans[l]) != 0;
    free(spans);
    return failed || plan_locks(plan) != 0 ? -1 : 0;
}

/* Frees the plan. */
void ompc_otf2_plan_free(struct ompc_otf2_plan *plan)
{
    for (int l = 0; plan->items != NULL && l < plan->location_count; l++)
        free(plan->items[l]);
    free(plan->items);
    free(plan->item_count);
    for (size_t t = 0; t < plan->team_count; t++)
        free(plan->teams[t].members);
    free(plan->teams);
    memset(plan, 0, sizeof *plan);
}
