/* fold.c - the program as written: the rows of every code copy of one source construct (a loop the compiler unrolled, a function it inlined, cloned or copied at link time) folded into one row at the construct's file and line. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "locations.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

/*
 * Orders two located code addresses by the source line they name: file,
 * then line.  A location without a line is its own construct (0 only for
 * the same address), after every located one.  Two copies of one pragma
 * compare equal, whatever function or clone the compiler put them in.
 */
int ompc_compare_sources(const struct ompc_location *x, uint64_t x_address, const struct ompc_location *y,
                         uint64_t y_address)
{
    int x_line = x->kind == OMPC_LOC_LINE && x->file != NULL, y_line = y->kind == OMPC_LOC_LINE && y->file != NULL;
    if (x_line != y_line)
        return x_line ? -1 : 1;
    if (!x_line)
        return (x_address > y_address) - (x_address < y_address);
    int files = strcmp(x->file, y->file);
    if (files != 0)
        return files;
    return (x->line > y->line) - (x->line < y->line);
}

/* qsort: by source, the widest copy (most time, then most samples) first, so it names the folded row. */
static int compare_construct_copies(const void *a, const void *b)
{
    const struct ompc_construct_row *x = a, *y = b;
    int source = ompc_compare_sources(&x->where, x->codeptr, &y->where, y->codeptr);
    if (source != 0)
        return source;
    /* A combined construct (teams distribute parallel for) is a teams and a parallel construct at one line. */
    if (x->kind != y->kind)
        return (x->kind > y->kind) - (x->kind < y->kind);
    if (x->total_ns != y->total_ns)
        return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
    return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

/*
 * Adds a copy's figures into its construct's row.  Every instance waits in
 * its own join barrier, so the balance a fix would buy is each instance's
 * own: the copies' most loaded threads add up, as their totals do.
 */
static void add_construct(struct ompc_construct_row *into, const struct ompc_construct_row *from)
{
    into->instances += from->instances;
    into->total_ns += from->total_ns;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
    into->thread_mask |= from->thread_mask;
    for (int s = 0; s < OMPC_NSTATES; s++)
        into->ticks[s] += from->ticks[s];
    into->target |= from->target;
    if (into->teams_codeptr == 0) {
        into->teams_codeptr = from->teams_codeptr;
        into->teams_where = from->teams_where;
    }
    into->work_sum += from->work_sum;
    into->work_max += from->work_max;
    if (from->work_threads > into->work_threads)
        into->work_threads = from->work_threads;
    into->copies += from->copies;
}

void ompc_fold_constructs(struct ompc_construct_row *rows, int *count)
{
    ompc_qsort(rows, (size_t)*count, sizeof *rows, compare_construct_copies);
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (kept > 0 && rows[kept - 1].kind == rows[i].kind
            && ompc_compare_sources(&rows[kept - 1].where, rows[kept - 1].codeptr, &rows[i].where,
                                    rows[i].codeptr) == 0)
            add_construct(&rows[kept - 1], &rows[i]);
        else
            rows[kept++] = rows[i];
    }
    for (int i = 0; i < kept; i++)
        rows[i].imbalance = rows[i].work_sum > 0
                                ? (double)rows[i].work_max * rows[i].work_threads / (double)rows[i].work_sum
                                : 0.0;
    *count = kept;
}

/* qsort: by source, then the widest copy first (as constructs). */
static int compare_task_copies(const void *a, const void *b)
{
    const struct ompc_task_construct_row *x = a, *y = b;
    int source = ompc_compare_sources(&x->where, x->sum.codeptr, &y->where, y->sum.codeptr);
    if (source != 0)
        return source;
    if (x->sum.exec_ns != y->sum.exec_ns)
        return (x->sum.exec_ns < y->sum.exec_ns) - (x->sum.exec_ns > y->sum.exec_ns);
    return (x->sum.codeptr > y->sum.codeptr) - (x->sum.codeptr < y->sum.codeptr);
}

/* Adds a copy's task figures into its construct's. */
static void add_tasks(struct ompc_model_task_construct *into, const struct ompc_model_task_construct *from)
{
    into->created += from->created;
    into->undeferred += from->undeferred;
    into->create_ns += from->create_ns;
    into->completed += from->completed;
    into->runs += from->runs;
    into->stolen += from->stolen;
    into->timed_runs += from->timed_runs;
    into->exec_ns += from->exec_ns;
    if (from->max_ns > into->max_ns)
        into->max_ns = from->max_ns;
    into->suspend_ns += from->suspend_ns;
    into->suspensions += from->suspensions;
    into->sampled_ns += from->sampled_ns;
    into->thread_mask |= from->thread_mask;
}

void ompc_fold_task_constructs(struct ompc_task_construct_row *rows, int *count)
{
    ompc_qsort(rows, (size_t)*count, sizeof *rows, compare_task_copies);
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        if (kept > 0
            && ompc_compare_sources(&rows[kept - 1].where, rows[kept - 1].sum.codeptr, &rows[i].where,
                                    rows[i].sum.codeptr) == 0) {
            add_tasks(&rows[kept - 1].sum, &rows[i].sum);
            rows[kept - 1].copies += rows[i].copies;
        } else {
            rows[kept++] = rows[i];
        }
    }
    *count = kept;
}

/* A wait row before folding, with its place then (which the threads' entries name). */
struct wait_copy {
    struct ompc_wait_row row;
    int before;
};

/* qsort: by state, source and object, the copy with most samples first. */
static int compare_wait_copies(const void *a, const void *b)
{
    const struct ompc_wait_row *x = &((const struct wait_copy *)a)->row, *y = &((const struct wait_copy *)b)->row;
    if (x->state != y->state)
        return x->state - y->state;
    int source = ompc_compare_sources(&x->where, x->codeptr, &y->where, y->codeptr);
    if (source != 0)
        return source;
    if (x->object != y->object)
        return (x->object > y->object) - (x->object < y->object);
    if (x->ticks != y->ticks)
        return (x->ticks < y->ticks) - (x->ticks > y->ticks);
    return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

static int compare_refs(const void *a, const void *b)
{
    const struct ompc_wait_ref *x = a, *y = b;
    if (x->row != y->row)
        return x->row - y->row;
    return x->thread - y->thread;
}

/* Each folded row's threads: the distinct threads of the entries that now name it. */
static void count_threads(struct ompc_wait_row *rows, int count, struct ompc_wait_ref *refs, size_t ref_count)
{
    for (int i = 0; i < count; i++)
        rows[i].threads = 0;
    ompc_qsort(refs, ref_count, sizeof *refs, compare_refs);
    for (size_t i = 0; i < ref_count; i++)
        if (i == 0 || compare_refs(&refs[i - 1], &refs[i]) != 0)
            rows[refs[i].row].threads++;
}

int ompc_fold_waits(struct ompc_wait_row *rows, int *count, struct ompc_wait_ref *refs, size_t ref_count)
{
    struct wait_copy *copies = malloc(((size_t)*count + 1) * sizeof *copies);
    int *after = malloc(((size_t)*count + 1) * sizeof *after);
    if (copies == NULL || after == NULL) {
        free(copies);
        free(after);
        return -1;
    }
    for (int i = 0; i < *count; i++)
        copies[i] = (struct wait_copy){rows[i], i};
    ompc_qsort(copies, (size_t)*count, sizeof *copies, compare_wait_copies);
    int kept = 0;
    for (int i = 0; i < *count; i++) {
        struct ompc_wait_row *last = kept > 0 ? &rows[kept - 1] : NULL;
        const struct ompc_wait_row *row = &copies[i].row;
        if (last != NULL && last->state == row->state && last->object == row->object
            && ompc_compare_sources(&last->where, last->codeptr, &row->where, row->codeptr) == 0) {
            last->ticks += row->ticks;
            last->held_ticks += row->held_ticks;
            last->kind = last->kind != 0 ? last->kind : row->kind;
            last->worksharing |= row->worksharing;
            last->copies += row->copies;
        } else {
            rows[kept++] = *row;
        }
        after[copies[i].before] = kept - 1;
    }
    for (size_t i = 0; i < ref_count; i++)
        refs[i].row = after[refs[i].row];
    count_threads(rows, kept, refs, ref_count);
    *count = kept;
    free(copies);
    free(after);
    return 0;
}
