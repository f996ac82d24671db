/* trace_spans.c - turns one thread's event log and sampled state changes into properly nested spans (regions, constructs, states), which the OTF2 and Chrome trace writers share. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "locations.h"
#include "omp_collector_api.h"
#include "report.h"
#include "sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state a pair of events brackets exactly (pairs as names.c numbers them), 0 for master, single, ordered. */
static int pair_state(int pair)
{
    static const int states[OMPC_NPAIRS] = {
        THR_IDLE_STATE, THR_IBAR_STATE, THR_EBAR_STATE, THR_LKWT_STATE, THR_CTWT_STATE,
        THR_ODWT_STATE, 0, 0, 0, THR_ATWT_STATE,
    };
    return pair >= 0 && pair < OMPC_NPAIRS ? states[pair] : 0;
}

/* A growing array of spans. */
struct span_list {
    struct ompc_span *items;
    size_t count, capacity;
};

/* Appends a span; -1 without memory. */
static int push_span(struct span_list *list, const struct ompc_span *span)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 256;
        struct ompc_span *grown = realloc(list->items, capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        list->items = grown;
        list->capacity = capacity;
    }
    list->items[list->count++] = *span;
    return 0;
}

/* qsort: by begin, the longer (enclosing) first, then the shallower, states last. */
static int compare_spans(const void *a, const void *b)
{
    const struct ompc_span *x = a, *y = b;
    if (x->begin_ns != y->begin_ns)
        return x->begin_ns < y->begin_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;
    if ((x->kind == OMPC_SPAN_STATE) != (y->kind == OMPC_SPAN_STATE))
        return x->kind == OMPC_SPAN_STATE ? 1 : -1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* qsort: ascending times. */
static int compare_times(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Where a thread's record ends: its end, its last sample, its last event, whichever is latest. */
static uint64_t thread_end(const struct ompc_report *report, int thread)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    uint64_t end = slot->end_ns;
    uint64_t last = slot->last_sample_ns;
    end = last > end ? last : end;
    const struct ompc_event_entry *log = slot->event_log;
    uint32_t length = log != NULL ? slot->event_log_length : 0;
    if (length > 0 && OMPC_EVENT_WHEN(&log[length - 1]) > end)
        end = OMPC_EVENT_WHEN(&log[length - 1]);
    return end != 0 ? end : report->wall_ns;
}

/*
 * The spans the events bracket, with a stack as the thread opened and
 * closed them: an END closes the innermost open span of its pair (and any
 * left open inside it, their ENDs lost), JOIN the innermost open region.
 * What is still open when the log ends closes where it stops being exact.
 */
static int event_spans(const struct ompc_report *report, int thread, uint64_t limit,
                       struct span_list *out)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    const struct ompc_event_entry *log = slot->event_log;
    uint32_t length = slot->event_log_length;
    struct ompc_span stack[64];
    int depth = 0, failed = 0;
    for (uint32_t k = 0; k < length && !failed; k++) {
        int event = OMPC_EVENT_CODE(&log[k]);
        uint64_t when = OMPC_EVENT_WHEN(&log[k]);
        if (when > limit)
            break;
        int pair = ompc_event_pair(event);
        if (event != OMP_EVENT_FORK && event != OMP_EVENT_JOIN && pair < 0)
            continue; /* not a span's end: task events and the like */
        if (event == OMP_EVENT_FORK || (pair >= 0 && event % 2 == 1)) {
            if (depth == (int)(sizeof stack / sizeof stack[0]))
                continue;
            struct ompc_span *open = &stack[depth];
            memset(open, 0, sizeof *open);
            open->begin_ns = when;
            open->kind = event == OMP_EVENT_FORK ? OMPC_SPAN_REGION : OMPC_SPAN_CONSTRUCT;
            open->depth = depth;
            open->pair = event == OMP_EVENT_FORK ? -1 : pair;
            open->state = open->kind == OMPC_SPAN_CONSTRUCT ? pair_state(pair) : 0;
            open->exact = 1;
            open->region = log[k].region;
            open->wait_id = log[k].wait_id;
            open->codeptr = log[k].codeptr;
            depth++;
            continue;
        }
        int match = depth - 1;
        for (; match >= 0; match--)
            if (event == OMP_EVENT_JOIN ? stack[match].kind == OMPC_SPAN_REGION
                                        : stack[match].kind == OMPC_SPAN_CONSTRUCT && stack[match].pair == pair)
                break;
        if (match < 0)
            continue; /* its BEGIN came before the thread was followed */
        while (depth > match && !failed) {
            depth--;
            stack[depth].end_ns = when;
            failed = push_span(out, &stack[depth]) != 0;
        }
    }
    while (depth > 0 && !failed) {
        depth--;
        stack[depth].end_ns = limit > stack[depth].begin_ns ? limit : stack[depth].begin_ns;
        failed = push_span(out, &stack[depth]) != 0;
    }
    return failed ? -1 : 0;
}

/*
 * Which states the registered events bracket exactly: where the log is
 * exact, a sample's wait state outside its events' span is a sample that
 * lagged behind the END (the thread left the wait before the next sample).
 */
static void exact_states(const struct ompc_model_process *process, int covered[OMPC_NSTATES])
{
    int begins[OMPC_NPAIRS] = {0}, ends[OMPC_NPAIRS] = {0};
    memset(covered, 0, OMPC_NSTATES * sizeof *covered);
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int pair = ompc_event_pair(process->requests[i].event);
        if (pair < 0 || pair >= OMPC_NPAIRS || process->requests[i].ec != OMP_ERRCODE_OK)
            continue;
        if (process->requests[i].event % 2 == 1)
            begins[pair] = 1;
        else
            ends[pair] = 1;
    }
    for (int pair = 0; pair < OMPC_NPAIRS; pair++)
        if (begins[pair] && ends[pair] && pair_state(pair) != 0)
            covered[pair_state(pair)] = 1;
}

/* The spans of one thread (see report.h). */
long ompc_trace_spans(const struct ompc_report *report, int thread, struct ompc_span **spans)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    struct span_list list = {NULL, 0, 0};
    uint64_t end = thread_end(report, thread);
    int has_log = slot->event_log != NULL;
    /* Events are exact until the log ran full (or for the whole thread when nothing was dropped). */
    uint64_t dropped_at = slot->event_log_dropped_ns;
    uint64_t limit = has_log ? (dropped_at != 0 ? dropped_at : end) : 0;
    *spans = NULL;
    if (has_log && event_spans(report, thread, limit, &list) != 0)
        goto fail;
    size_t exact_count = list.count;
    int covered[OMPC_NSTATES];
    exact_states(report->process, covered);
    if (!has_log && slot->initial && report->event_log_bytes == 0) {
        /* No events to go by: the regions are the initial thread's time out of SERIAL. */
        uint64_t *bounds;
        long regions = ompc_timeline_regions(report, &bounds);
        if (regions < 0)
            goto fail;
        for (long r = 0; r < regions; r++) {
            struct ompc_span region = {bounds[2 * r], bounds[2 * r + 1], OMPC_SPAN_REGION, 0, 0, -1,
                                       0, 0, 0, 0};
            if (push_span(&list, &region) != 0) {
                free(bounds);
                goto fail;
            }
        }
        free(bounds);
        exact_count = list.count;
    }

    /* Every time a span begins or ends cuts the states; the sampled changes do too. */
    size_t sampled = 0;
    uint64_t begin, stop;
    int state;
    while (ompc_timeline_span(report, thread, (uint32_t)sampled, &begin, &stop, &state))
        sampled++;
    size_t cut_count = 2 * exact_count + 2 * sampled;
    uint64_t *cuts = malloc((cut_count + 1) * sizeof *cuts);
    if (cuts == NULL)
        goto fail;
    size_t n = 0;
    for (size_t i = 0; i < exact_count; i++) {
        cuts[n++] = list.items[i].begin_ns;
        cuts[n++] = list.items[i].end_ns;
    }
    for (uint32_t k = 0; k < sampled; k++) {
        ompc_timeline_span(report, thread, k, &begin, &stop, &state);
        cuts[n++] = begin;
        cuts[n++] = stop;
    }
    ompc_qsort(cuts, n, sizeof *cuts, compare_times);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || cuts[i] != cuts[unique - 1])
            cuts[unique++] = cuts[i];

    /* The exact spans in nesting order, to find the innermost that fixes a piece's state. */
    struct ompc_span *exact = malloc((exact_count + 1) * sizeof *exact);
    if (exact == NULL) {
        free(cuts);
        goto fail;
    }
    if (exact_count > 0)
        memcpy(exact, list.items, exact_count * sizeof *exact);
    ompc_qsort(exact, exact_count, sizeof *exact, compare_spans);
    size_t *open = malloc((exact_count + 1) * sizeof *open);
    uint64_t *ends = malloc((exact_count + 1) * sizeof *ends);
    if (open == NULL || ends == NULL) {
        free(open);
        free(ends);
        free(exact);
        free(cuts);
        goto fail;
    }
    for (size_t i = 0; i < exact_count; i++)
        ends[i] = exact[i].end_ns;
    ompc_qsort(ends, exact_count, sizeof *ends, compare_times);
    size_t open_count = 0, next_exact = 0, next_end = 0;
    uint32_t next_sampled = 0;
    struct ompc_span current = {0, 0, OMPC_SPAN_STATE, 1000, 0, -1, 0, 0, 0, 0};
    int have_current = 0, failed = 0;
    for (size_t i = 0; i + 1 < unique && !failed; i++) {
        uint64_t from = cuts[i], to = cuts[i + 1];
        while (open_count > 0 && exact[open[open_count - 1]].end_ns <= from)
            open_count--;
        int boundary = 0;
        for (; next_exact < exact_count && exact[next_exact].begin_ns <= from; next_exact++) {
            boundary = 1;
            if (exact[next_exact].end_ns > from)
                open[open_count++] = next_exact;
        }
        while (next_end < exact_count && ends[next_end] < from)
            next_end++;
        boundary |= next_end < exact_count && ends[next_end] == from;
        int piece = 0, piece_exact = 0;
        uint64_t region = 0;
        for (size_t k = open_count; k-- > 0 && piece == 0;)
            if (exact[open[k]].state != 0) {
                piece = exact[open[k]].state;
                piece_exact = 1;
                region = exact[open[k]].region;
            }
        if (piece == 0) {
            while (next_sampled < sampled) {
                ompc_timeline_span(report, thread, next_sampled, &begin, &stop, &state);
                if (stop > from)
                    break;
                next_sampled++;
            }
            if (next_sampled < sampled && begin <= from && state > 0 && state < OMPC_NSTATES)
                piece = state;
            /* Inside a region its FORK opened, a SERIAL sample lags behind the FORK just as well. */
            int in_region = 0;
            for (size_t k = 0; k < open_count && !in_region; k++)
                in_region = exact[open[k]].kind == OMPC_SPAN_REGION && exact[open[k]].exact;
            int lagging = piece > 0 && (covered[piece] || (piece == THR_SERIAL_STATE && in_region));
            /* A wait the events say is over: the state the samples saw next. */
            for (uint32_t k = next_sampled + 1; has_log && from < limit && lagging; k++) {
                if (k >= sampled || k > next_sampled + 4) {
                    piece = 0;
                    break;
                }
                ompc_timeline_span(report, thread, k, &begin, &stop, &state);
                if (state > 0 && state < OMPC_NSTATES && !covered[state]
                    && !(state == THR_SERIAL_STATE && in_region)) {
                    piece = state;
                    lagging = 0;
                }
            }
        }
        if (have_current && (piece != current.state || piece_exact != current.exact || boundary)) {
            failed = push_span(&list, &current) != 0;
            have_current = 0;
        }
        if (piece == 0 || failed)
            continue;
        if (!have_current) {
            current.begin_ns = from;
            current.state = piece;
            current.exact = piece_exact;
            current.region = region;
            current.depth = 1000;
            have_current = 1;
        }
        current.end_ns = to;
    }
    if (have_current && !failed)
        failed = push_span(&list, &current) != 0;
    free(open);
    free(ends);
    free(exact);
    free(cuts);
    if (failed)
        goto fail;
    ompc_qsort(list.items, list.count, sizeof *list.items, compare_spans);
    *spans = list.items;
    return (long)list.count;
fail:
    free(list.items);
    return -1;
}

/* A span's name: the state, or the construct with where it is when that is known ("lock wait at solve solver.c:34"). */
const char *ompc_span_name(const struct ompc_span *span, struct ompc_symbolizer *symbolizer, char *buffer,
                           size_t size)
{
    static const char *const constructs[OMPC_NPAIRS] = {
        "idle", "implicit barrier", "barrier", "lock wait", "critical wait", "ordered wait",
        "master", "single", "ordered", "atomic wait",
    };
    if (span->kind == OMPC_SPAN_STATE) {
        snprintf(buffer, size, "%s", ompc_state_name(span->state));
        return buffer;
    }
    const char *what = span->kind == OMPC_SPAN_REGION ? "parallel"
                       : span->pair >= 0 && span->pair < OMPC_NPAIRS ? constructs[span->pair]
                                                                     : "?";
    if (span->codeptr == 0) {
        snprintf(buffer, size, "%s", what);
        return buffer;
    }
    struct ompc_location where;
    char label[256];
    ompc_symbolize(symbolizer, span->codeptr, 1, &where);
    snprintf(buffer, size, "%s at %s", what, ompc_location_label(&where, span->codeptr, label, sizeof label));
    return buffer;
}
