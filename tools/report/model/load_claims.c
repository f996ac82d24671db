/* load_claims.c - the loader's ownership check: every byte of a record's arena belongs to at most one thread table, so a program that points many threads at one buffer cannot make the launcher read (and render) it many times. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "load.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "sort.h"

/* One table a thread claims: bytes [from, to) of the record. */
struct candidate {
    uint64_t from, to;
    int32_t thread;
    uint16_t table; /* OMPC_CLAIM_* */
    uint8_t refused;
};

struct candidates {
    struct candidate *rows;
    size_t count, capacity;
};

/* Adds a claim of `extent` bytes at `offset` when they lie in the arena (the loader says what does not, table by table). */
static int add(struct candidates *all, const struct ompc_record_header *header, uint64_t offset, uint64_t extent,
               int32_t thread, uint16_t table)
{
    if (extent == 0 || !ompc_record_in_arena(header, offset, extent))
        return 0;
    if (ompc_grow(&all->rows, all->count + 1, &all->capacity, sizeof *all->rows) != 0)
        return -1;
    all->rows[all->count++] = (struct candidate){offset, offset + extent, thread, table, 0};
    return 0;
}

/* The copy buffer a thread's sample table names (--stacks-unwind=dwarf), 0 when there is none to read. */
static uint64_t copies_offset(int fd, const struct ompc_record_header *header, uint64_t stacks)
{
    struct ompc_stack_table table;
    if (!(header->flags & OMPC_OPT_STACKS_DWARF) || !ompc_record_in_arena(header, stacks, sizeof table)
        || pread(fd, &table, sizeof table, (off_t)stacks) != (ssize_t)sizeof table)
        return 0;
    return atomic_load(&table.copies);
}

/* Every arena table of threads [0, count) of a slot, as the extents the loader would read. */
static int collect(int fd, const struct ompc_record_header *header, const struct ompc_process *from, int32_t count,
                   struct candidates *all)
{
    for (int32_t t = 0; t < count; t++) {
        const struct ompc_thread *thread = &from->threads[t];
        uint64_t stacks = atomic_load(&thread->stacks);
        uint64_t timeline = (uint64_t)OMPC_TIMELINE_CAP * sizeof(uint64_t);
        if (add(all, header, atomic_load(&thread->waits), OMPC_WAIT_SLOTS * sizeof(struct ompc_wait), t,
                OMPC_CLAIM_WAITS) != 0
            || add(all, header, atomic_load(&thread->construct_work), OMPC_MAX_CONSTRUCTS * sizeof(uint64_t), t,
                   OMPC_CLAIM_WORK) != 0
            || add(all, header, atomic_load(&thread->timeline), timeline, t, OMPC_CLAIM_TIMELINE) != 0
            || add(all, header, atomic_load(&thread->timeline_where), timeline, t, OMPC_CLAIM_WHERE) != 0
            || add(all, header, atomic_load(&thread->event_log),
                   (uint64_t)thread->event_log_capacity * sizeof(struct ompc_event_entry), t, OMPC_CLAIM_EVENTS) != 0
            || add(all, header, stacks, OMPC_STACK_TABLE_BYTES, t, OMPC_CLAIM_STACKS) != 0
            || add(all, header, atomic_load(&thread->fork_stacks), OMPC_FORK_TABLE_BYTES, t, OMPC_CLAIM_FORKS) != 0
            || add(all, header, copies_offset(fd, header, stacks), OMPC_STACK_COPIES_BYTES, t, OMPC_CLAIM_COPIES) != 0
            || add(all, header, atomic_load(&from->task_stacks[t]), OMPC_TASK_STACK_BYTES, t,
                   OMPC_CLAIM_TASK_STACKS) != 0)
            return -1;
    }
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct candidate *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/*
 * Refuses every candidate that overlaps another (sorted by start): one
 * that starts before the furthest end so far overlaps the table that
 * reached it, and both go.  What is kept is pairwise disjoint.
 */
static void refuse_overlaps(struct candidates *all)
{
    size_t furthest = 0;
    for (size_t i = 1; i < all->count; i++) {
        if (all->rows[i].from < all->rows[furthest].to) {
            all->rows[i].refused = all->rows[furthest].refused = 1;
            if (all->rows[i].to > all->rows[furthest].to)
                furthest = i;
        } else
            furthest = i;
    }
}

/* Whether [from, to) overlaps a span already owned (the owned spans are disjoint and sorted). */
static int owned(const struct ompc_load_claims *claims, uint64_t from, uint64_t to)
{
    size_t low = 0, high = claims->count;
    while (low < high) { /* the first span starting at or after `to` */
        size_t middle = low + (high - low) / 2;
        if (claims->spans[middle].from < to)
            low = middle + 1;
        else
            high = middle;
    }
    /* Disjoint and sorted: the last span starting before `to` ends latest of them. */
    return low > 0 && claims->spans[low - 1].to > from;
}

/* Adds the kept candidates (sorted, disjoint from each other and from the owned spans) to the owned spans, in order. */
static int own(struct ompc_load_claims *claims, const struct candidates *all)
{
    size_t kept = 0;
    for (size_t i = 0; i < all->count; i++)
        kept += !all->rows[i].refused;
    struct ompc_load_span *merged = malloc((claims->count + kept + 1) * sizeof *merged);
    if (merged == NULL)
        return -1;
    size_t a = 0, b = 0, n = 0;
    while (a < claims->count || b < all->count) {
        if (b < all->count && all->rows[b].refused) {
            b++;
            continue;
        }
        if (b == all->count || (a < claims->count && claims->spans[a].from < all->rows[b].from))
            merged[n++] = claims->spans[a++];
        else {
            merged[n++] = (struct ompc_load_span){all->rows[b].from, all->rows[b].to};
            b++;
        }
    }
    free(claims->spans);
    claims->spans = merged;
    claims->count = n;
    return 0;
}

int ompc_load_claim_tables(int fd, const struct ompc_record_header *header, const struct ompc_process *from,
                           int32_t count, struct ompc_load_claims *claims, uint16_t *refused, unsigned long *refusals)
{
    struct candidates all = {NULL, 0, 0};
    *refusals = 0;
    if (collect(fd, header, from, count, &all) != 0) {
        free(all.rows);
        return -1;
    }
    ompc_qsort(all.rows, all.count, sizeof *all.rows, by_start);
    refuse_overlaps(&all);
    for (size_t i = 0; i < all.count; i++) {
        struct candidate *row = &all.rows[i];
        row->refused |= owned(claims, row->from, row->to);
        if (row->refused) {
            refused[row->thread] |= row->table;
            ++*refusals;
        }
    }
    int failed = own(claims, &all);
    free(all.rows);
    return failed;
}

void ompc_load_claims_free(struct ompc_load_claims *claims)
{
    free(claims->spans);
    memset(claims, 0, sizeof *claims);
}
