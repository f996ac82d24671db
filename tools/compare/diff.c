/* diff.c - ompcollect diff: compares two JSON reports of one program (read by merge's parser) per state, parallel construct and wait location (task constructs and MPI calls in diff_calls.c), matched by code as merge matches them, and finds what most of the change is. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "checked.h"
#include "diff.h"
#include "sort.h"
#include "writer.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One report's row of a construct or wait table, before the rows of one code location are folded. */
struct row_ref {
    int side; /* 0: A, 1: B */
    const struct ompc_merge_construct *construct;
    const struct ompc_merge_wait *wait;
};

/* count x interval as nanoseconds; -1 when it would pass INT64_MAX. */
static int to_ns(int64_t count, int64_t interval_ns, int64_t *ns)
{
    if (interval_ns > 0 && count > INT64_MAX / interval_ns)
        return -1;
    *ns = count * interval_ns;
    return 0;
}

/* part / whole, 0 when there is no whole. */
static double ratio(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part / (double)whole : 0;
}

/* Every sample of a report: its states', constructs' and waits' sums; -1 when one passes INT64_MAX. */
static int sample_sums(const struct ompc_merge_input *input, int64_t sums[3])
{
    int failed = 0;
    sums[0] = sums[1] = sums[2] = 0;
    for (int state = 1; state < OMPC_NSTATES; state++)
        failed |= ompc_add_count(&sums[0], input->states[state]);
    for (size_t i = 0; i < input->construct_count; i++)
        failed |= ompc_add_count(&sums[1], input->constructs[i].samples);
    for (size_t i = 0; i < input->wait_count; i++)
        failed |= ompc_add_count(&sums[2], input->waits[i].samples);
    return failed ? -1 : 0;
}

/*
 * What diff needs of a report beyond what merge's parser checked: its
 * samples turn into times (a sampling interval when there are samples), and
 * every sum of them, and of its constructs' times, stays within 64 bits, so
 * no change or share computed from them can overflow.
 */
static int check_input(const struct ompc_merge_input *input, int64_t *thread_ns, char *error, size_t error_size)
{
    static const char *const kinds[] = {"totals.states", "constructs[].states", "wait_locations[].samples"};
    int64_t sums[3], ns, total_ns = 0, instances = 0;
    if (sample_sums(input, sums) != 0)
        return snprintf(error, error_size, "%s: its samples sum to more than %" PRId64, input->file, INT64_MAX), -1;
    for (int k = 0; k < 3; k++) {
        if (sums[k] > 0 && input->interval_ns == 0)
            return snprintf(error, error_size, "%s: it has samples (%s) but an \"interval_ns\" of 0, so they cannot "
                            "be turned into time", input->file, kinds[k]), -1;
        if (to_ns(sums[k], input->interval_ns, &ns) != 0)
            return snprintf(error, error_size, "%s: its %s samples times \"interval_ns\" pass %" PRId64 " ns",
                            input->file, kinds[k], INT64_MAX), -1;
        if (k == 0)
            *thread_ns = ns;
    }
    for (size_t i = 0; i < input->construct_count; i++)
        if (ompc_add_count(&total_ns, input->constructs[i].total_ns)
            | ompc_add_count(&instances, input->constructs[i].instances))
            return snprintf(error, error_size, "%s: its constructs' total_ns or instances sum to more than %" PRId64,
                            input->file, INT64_MAX), -1;
    return 0;
}

/* The states of both reports as time and share. */
static void diff_states(struct ompc_diff *diff)
{
    int64_t a_sums[3], b_sums[3];
    sample_sums(diff->a, a_sums);
    sample_sums(diff->b, b_sums);
    for (int state = 1; state < OMPC_NSTATES; state++) {
        struct ompc_diff_state *row = &diff->states[state - 1];
        row->state = state;
        row->a.count = diff->a->states[state];
        row->b.count = diff->b->states[state];
        row->a.ns = row->a.count * diff->a->interval_ns; /* within the checked sum */
        row->b.ns = row->b.count * diff->b->interval_ns;
        row->a.share = ratio(row->a.count, a_sums[0]);
        row->b.share = ratio(row->b.count, b_sums[0]);
        row->change_ns = row->b.ns - row->a.ns;
    }
}

/* qsort order for construct rows: by code location, then side. */
static int compare_construct_refs(const void *x, const void *y)
{
    const struct row_ref *a = x, *b = y;
    int place = ompc_merge_compare_places(&a->construct->where, &b->construct->where);
    return place != 0 ? place : a->side - b->side;
}

/* qsort order for wait rows: by state, code location and object, then side. */
static int compare_wait_refs(const void *x, const void *y)
{
    const struct row_ref *a = x, *b = y;
    int place = ompc_merge_compare_waits(a->wait, b->wait);
    return place != 0 ? place : a->side - b->side;
}

/* Both reports' rows of one table (constructs, or waits when `waits`), sorted so one place's rows are adjacent; NULL without memory. */
static struct row_ref *row_refs(const struct ompc_diff *diff, int waits, size_t *used)
{
    const struct ompc_merge_input *inputs[2] = {diff->a, diff->b};
    size_t total = waits ? diff->a->wait_count + diff->b->wait_count
                         : diff->a->construct_count + diff->b->construct_count;
    struct row_ref *refs = calloc(total ? total : 1, sizeof *refs);
    *used = 0;
    for (int side = 0; side < 2 && refs != NULL; side++) {
        size_t count = waits ? inputs[side]->wait_count : inputs[side]->construct_count;
        for (size_t k = 0; k < count; k++)
            refs[(*used)++] = (struct row_ref){side, waits ? NULL : &inputs[side]->constructs[k],
                                               waits ? &inputs[side]->waits[k] : NULL};
    }
    if (refs != NULL)
        qsort(refs, *used, sizeof *refs, waits ? compare_wait_refs : compare_construct_refs);
    return refs;
}

/* Whether each side has a row among a group's, as the row's status. */
static enum ompc_diff_status status_of(int in_a, int in_b)
{
    return in_a && in_b ? OMPC_DIFF_MATCHED : in_b ? OMPC_DIFF_APPEARED : OMPC_DIFF_DISAPPEARED;
}

/* Adds one report's construct row into its side of a diff row (sums within the checked totals). */
static void fold_construct(struct ompc_diff_construct *into, const struct row_ref *ref, int64_t interval_ns)
{
    struct ompc_diff_side *side = ref->side ? &into->b : &into->a;
    int64_t *states = ref->side ? into->b_states_ns : into->a_states_ns;
    side->count += ref->construct->instances;
    side->ns += ref->construct->total_ns;
    for (int state = 1; state < OMPC_NSTATES; state++)
        states[state] += ref->construct->states[state] * interval_ns;
}

/* The function a construct was written in: the programmer's, for code the compiler outlined. */
static const struct ompc_merge_text *written_in(const struct ompc_merge_location *where)
{
    return where->enclosing.text != NULL ? &where->enclosing : &where->function;
}

/* qsort order of rows seen in one report only: by file, function written in and kind, then report, then line. */
static int compare_lone(const void *x, const void *y)
{
    const struct ompc_diff_construct *a = *(const struct ompc_diff_construct *const *)x;
    const struct ompc_diff_construct *b = *(const struct ompc_diff_construct *const *)y;
    int order_of = ompc_merge_compare_texts(&a->where->file, &b->where->file);
    if (order_of == 0)
        order_of = ompc_merge_compare_texts(written_in(a->where), written_in(b->where));
    if (order_of == 0)
        order_of = ompc_merge_compare_kinds(a->where, b->where);
    if (order_of == 0)
        order_of = ompc_order_i64(a->status, b->status);
    return order_of != 0 ? order_of : ompc_order_i64(a->where->line, b->where->line);
}

/* Whether two lone rows are of one kind in one function of one file. */
static int same_function(const struct ompc_diff_construct *a, const struct ompc_diff_construct *b)
{
    return ompc_merge_compare_texts(&a->where->file, &b->where->file) == 0
           && ompc_merge_compare_texts(written_in(a->where), written_in(b->where)) == 0
           && ompc_merge_compare_kinds(a->where, b->where) == 0;
}

/*
 * Pairs the constructs of one function that A and B each have alone, when
 * each has as many: an edit that shifts lines (the usual before and after
 * of a fix) moves every pragma below it, and the k-th construct of the
 * function in A is the k-th in B.  B's figures join A's row, which keeps
 * A's name; the B rows are dropped.  -1 when memory runs out.
 */
static int pair_shifted(struct ompc_diff *diff)
{
    struct ompc_diff_construct **lone = calloc(diff->construct_count + 1, sizeof *lone);
    size_t count = 0;
    if (lone == NULL)
        return -1;
    for (size_t i = 0; i < diff->construct_count; i++)
        if (diff->constructs[i].status != OMPC_DIFF_MATCHED && ompc_merge_has_line(diff->constructs[i].where))
            lone[count++] = &diff->constructs[i];
    if (count > 1)
        qsort(lone, count, sizeof *lone, compare_lone);
    for (size_t first = 0, end; first < count; first = end) {
        size_t appeared = 0;
        for (end = first; end < count && same_function(lone[first], lone[end]); end++)
            appeared += lone[end]->status == OMPC_DIFF_APPEARED;
        size_t gone = end - first - appeared;
        /* Rows sort APPEARED before DISAPPEARED (the enum's order), each by line. */
        for (size_t k = 0; appeared == gone && k < gone; k++) {
            struct ompc_diff_construct *in_a = lone[first + appeared + k], *in_b = lone[first + k];
            in_a->b = in_b->b;
            memcpy(in_a->b_states_ns, in_b->b_states_ns, sizeof in_a->b_states_ns);
            in_a->status = OMPC_DIFF_MATCHED;
            in_b->where = NULL;
        }
    }
    free(lone);
    size_t kept = 0;
    for (size_t i = 0; i < diff->construct_count; i++)
        if (diff->constructs[i].where != NULL)
            diff->constructs[kept++] = diff->constructs[i];
    diff->construct_count = kept;
    return 0;
}

/* The constructs of both reports matched by source line (or code location), then by their order in their function; -1 when memory runs out. */
static int diff_constructs(struct ompc_diff *diff)
{
    size_t used;
    struct row_ref *refs = row_refs(diff, 0, &used);
    diff->constructs = calloc(used ? used : 1, sizeof *diff->constructs);
    if (refs == NULL || diff->constructs == NULL) {
        free(refs);
        return -1;
    }
    int in[2] = {0, 0};
    for (size_t i = 0; i < used; i++) {
        if (i == 0 || ompc_merge_compare_places(&refs[i - 1].construct->where, &refs[i].construct->where) != 0) {
            diff->constructs[diff->construct_count++].where = &refs[i].construct->where;
            in[0] = in[1] = 0;
        }
        struct ompc_diff_construct *row = &diff->constructs[diff->construct_count - 1];
        in[refs[i].side] = 1;
        row->status = status_of(in[0], in[1]);
        fold_construct(row, &refs[i], refs[i].side ? diff->b->interval_ns : diff->a->interval_ns);
    }
    free(refs);
    if (pair_shifted(diff) != 0)
        return -1;
    for (size_t i = 0; i < diff->construct_count; i++) {
        struct ompc_diff_construct *row = &diff->constructs[i];
        row->a.share = ratio(row->a.ns, diff->a->wall_ns);
        row->b.share = ratio(row->b.ns, diff->b->wall_ns);
        row->change_ns = row->b.ns - row->a.ns;
    }
    return 0;
}

/* The waits of both reports matched by state, code location and object; -1 when memory runs out. */
static int diff_waits(struct ompc_diff *diff)
{
    size_t used;
    struct row_ref *refs = row_refs(diff, 1, &used);
    diff->waits = calloc(used ? used : 1, sizeof *diff->waits);
    if (refs == NULL || diff->waits == NULL) {
        free(refs);
        return -1;
    }
    int in[2] = {0, 0};
    for (size_t i = 0; i < used; i++) {
        if (i == 0 || ompc_merge_compare_waits(refs[i - 1].wait, refs[i].wait) != 0) {
            diff->waits[diff->wait_count++].first = refs[i].wait;
            in[0] = in[1] = 0;
        }
        struct ompc_diff_wait *row = &diff->waits[diff->wait_count - 1];
        in[refs[i].side] = 1;
        row->status = status_of(in[0], in[1]);
        (refs[i].side ? &row->b : &row->a)->count += refs[i].wait->samples;
    }
    int64_t a_sums[3], b_sums[3];
    sample_sums(diff->a, a_sums);
    sample_sums(diff->b, b_sums);
    for (size_t i = 0; i < diff->wait_count; i++) {
        struct ompc_diff_wait *row = &diff->waits[i];
        row->a.ns = row->a.count * diff->a->interval_ns;
        row->b.ns = row->b.count * diff->b->interval_ns;
        row->a.share = ratio(row->a.count, a_sums[0]);
        row->b.share = ratio(row->b.count, b_sums[0]);
        row->change_ns = row->b.ns - row->a.ns;
    }
    free(refs);
    return 0;
}

/* Adds one part of the change in thread time to the parts in the chosen direction, keeping the largest. */
static void take_part(struct ompc_diff_largest *largest, double *sum, int state,
                      const struct ompc_merge_location *where, int64_t change)
{
    if (change == 0 || (change < 0 ? -1 : 1) != largest->direction)
        return;
    *sum += (double)change;
    if (largest->state != 0 && (change < 0 ? change >= largest->change_ns : change <= largest->change_ns))
        return;
    largest->state = state;
    largest->where = where;
    largest->change_ns = change;
}

/*
 * What most of the gain (or loss) is.  The thread time of each run is split
 * by state and by construct (and outside every construct); the parts that
 * fell when B is faster (rose when it is slower; when the wall times are
 * alike, those in the direction of the whole change) are the gain, and
 * the largest of them is named with its share of their sum, so the share
 * stays within 100% however much other parts moved the other way.
 */
static void find_largest(struct ompc_diff *diff)
{
    int64_t net = diff->b_thread_ns - diff->a_thread_ns;
    double sum = 0;
    struct ompc_diff_largest *largest = &diff->largest;
    memset(largest, 0, sizeof *largest);
    largest->direction = diff->speedup >= OMPC_DIFF_SAME ? -1
                         : diff->speedup > 0 && 1 / diff->speedup >= OMPC_DIFF_SAME ? 1
                         : (net > 0) - (net < 0);
    for (int state = 1; state < OMPC_NSTATES && largest->direction != 0; state++) {
        int64_t inside[2] = {0, 0}, outside[2], change;
        for (size_t i = 0; i < diff->construct_count; i++) {
            const struct ompc_diff_construct *row = &diff->constructs[i];
            take_part(largest, &sum, state, row->where, row->b_states_ns[state] - row->a_states_ns[state]);
            inside[0] += row->a_states_ns[state]; /* within the checked sum of constructs' samples */
            inside[1] += row->b_states_ns[state];
        }
        outside[0] = diff->states[state - 1].a.ns - inside[0];
        outside[1] = diff->states[state - 1].b.ns - inside[1];
        /* Only a report whose constructs hold far more samples than its totals overflows here. */
        if (!__builtin_sub_overflow(outside[1], outside[0], &change))
            take_part(largest, &sum, state, NULL, change);
    }
    largest->share = largest->state != 0 ? (double)largest->change_ns / sum : 0;
}

/* |x|, for x > INT64_MIN (every change is). */
static int64_t magnitude(int64_t x)
{
    return x < 0 ? -x : x;
}

/* qsort order for states: largest change first, then by state. */
static int compare_states(const void *x, const void *y)
{
    const struct ompc_diff_state *a = x, *b = y;
    int size = ompc_order_i64(magnitude(b->change_ns), magnitude(a->change_ns));
    return size != 0 ? size : a->state - b->state;
}

/* qsort order for constructs: largest change first, then the longer, then by location. */
static int compare_constructs(const void *x, const void *y)
{
    const struct ompc_diff_construct *a = x, *b = y;
    int size = ompc_order_i64(magnitude(b->change_ns), magnitude(a->change_ns));
    if (size == 0)
        size = ompc_order_i64(b->a.ns > b->b.ns ? b->a.ns : b->b.ns, a->a.ns > a->b.ns ? a->a.ns : a->b.ns);
    return size != 0 ? size : ompc_merge_compare_places(a->where, b->where);
}

/* qsort order for waits: largest change first, then the longer, then by state, location and object. */
static int compare_waits(const void *x, const void *y)
{
    const struct ompc_diff_wait *a = x, *b = y;
    int size = ompc_order_i64(magnitude(b->change_ns), magnitude(a->change_ns));
    if (size == 0)
        size = ompc_order_i64(b->a.ns > b->b.ns ? b->a.ns : b->b.ns, a->a.ns > a->b.ns ? a->a.ns : a->b.ns);
    return size != 0 ? size : ompc_merge_compare_waits(a->first, b->first);
}

int ompc_diff_build(const struct ompc_merge_input *a, const struct ompc_merge_input *b, struct ompc_diff *diff,
                    char *error, size_t error_size)
{
    memset(diff, 0, sizeof *diff);
    diff->a = a;
    diff->b = b;
    if (check_input(a, &diff->a_thread_ns, error, error_size) != 0
        || check_input(b, &diff->b_thread_ns, error, error_size) != 0)
        return -1;
    diff->same_program = a->program.length == b->program.length
                         && memcmp(a->program.text, b->program.text, a->program.length) == 0;
    diff->speedup = a->wall_ns > 0 && b->wall_ns > 0 ? (double)a->wall_ns / (double)b->wall_ns : 0;
    diff_states(diff);
    if (diff_constructs(diff) != 0 || diff_waits(diff) != 0 || ompc_diff_calls_build(diff) != 0)
        return snprintf(error, error_size, "out of memory"), -1;
    find_largest(diff);
    qsort(diff->states, OMPC_NSTATES - 1, sizeof diff->states[0], compare_states);
    qsort(diff->constructs, diff->construct_count, sizeof *diff->constructs, compare_constructs);
    qsort(diff->waits, diff->wait_count, sizeof *diff->waits, compare_waits);
    return 0;
}

void ompc_diff_free(struct ompc_diff *diff)
{
    free(diff->constructs);
    free(diff->waits);
    free(diff->tasks);
    free(diff->mpi);
    diff->constructs = NULL;
    diff->waits = NULL;
    diff->tasks = NULL;
    diff->mpi = NULL;
    diff->construct_count = diff->wait_count = diff->task_count = diff->mpi_count = 0;
}

int ompc_diff_write(FILE *out, int format, const struct ompc_merge_input *a, const struct ompc_merge_input *b,
                    char *error, size_t error_size)
{
    struct ompc_diff diff;
    int status = ompc_diff_build(a, b, &diff, error, error_size);
    if (status == 0 && (format == OMPC_FORMAT_JSON || format == OMPC_FORMAT_CSV)) {
        struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = out};
        status = format == OMPC_FORMAT_JSON ? ompc_diff_write_json(out, &diff) : ompc_diff_write_csv(&sink, &diff);
        if (status != 0)
            snprintf(error, error_size, "out of memory or the output failed");
    } else if (status == 0) {
        ompc_diff_write_text(out, &diff);
    }
    ompc_diff_free(&diff);
    return status;
}
