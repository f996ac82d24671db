/* trace_spans.c - turns one thread's event log and sampled state changes into properly nested spans (regions, constructs, task runs, states), which the OTF2 and Chrome trace writers share. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "grow.h"
#include "locations.h"
#include "omp_collector_api.h"
#include "report.h"
#include "sort.h"
#include "spans.h"

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
    if (ompc_grow(&list->items, list->count + 1, &list->capacity, sizeof *list->items) != 0)
        return -1;
    list->items[list->count++] = *span;
    return 0;
}

int ompc_span_order(const struct ompc_span *x, const struct ompc_span *y, int regions_first)
{
    if (x->begin_ns != y->begin_ns)
        return x->begin_ns < y->begin_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns > y->end_ns ? -1 : 1;
    if ((x->kind == OMPC_SPAN_STATE) != (y->kind == OMPC_SPAN_STATE))
        return x->kind == OMPC_SPAN_STATE ? 1 : -1;
    if (regions_first && (x->kind == OMPC_SPAN_REGION) != (y->kind == OMPC_SPAN_REGION))
        return x->kind == OMPC_SPAN_REGION ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* qsort: by begin, the longer (enclosing) first, then the shallower, states last. */
static int compare_spans(const void *a, const void *b)
{
    return ompc_span_order(a, b, 0);
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

/* The open spans of event_spans: a stack as deep as the log needs (tasks run inside tasks' waits). */
struct span_stack {
    struct ompc_span *items;
    size_t depth, capacity;
};

/* Opens a span on the stack; -1 without memory. */
static int stack_push(struct span_stack *stack, const struct ompc_span *span)
{
    if (ompc_grow(&stack->items, stack->depth + 1, &stack->capacity, sizeof *stack->items) != 0)
        return -1;
    stack->items[stack->depth++] = *span;
    return 0;
}

/* The kind (OMPC_CONSTRUCT_*) of the construct at `codeptr`: a FORK opens a teams construct's league too. */
static int construct_kind(const struct ompc_model_process *process, uint64_t codeptr)
{
    for (uint32_t i = 0; codeptr != 0 && i < process->construct_count; i++)
        if (process->constructs[i].codeptr == codeptr)
            return (int)process->constructs[i].kind;
    return OMPC_CONSTRUCT_UNKNOWN;
}

/* The span an entry opens (FORK, a pair's BEGIN, BEGIN_EXEC_TASK), at stack depth `depth`. */
static struct ompc_span opened_span(const struct ompc_event_entry *entry, int event, size_t depth)
{
    struct ompc_span open;
    memset(&open, 0, sizeof open);
    int pair = ompc_event_pair(event);
    open.begin_ns = OMPC_EVENT_WHEN(entry);
    open.kind = event == OMP_EVENT_FORK                  ? OMPC_SPAN_REGION
                : event == OMP_EVENT_THR_BEGIN_EXEC_TASK ? OMPC_SPAN_TASK
                                                         : OMPC_SPAN_CONSTRUCT;
    open.depth = (int)depth;
    open.pair = open.kind == OMPC_SPAN_CONSTRUCT ? pair : -1;
    open.state = open.kind == OMPC_SPAN_CONSTRUCT ? pair_state(pair) : 0;
    open.exact = 1;
    open.region = entry->region;
    if (open.kind == OMPC_SPAN_TASK) {
        open.task = entry->task;
    } else {
        open.wait_id = entry->wait_id;
        open.codeptr = entry->codeptr;
    }
    return open;
}

/* Whether open span `span` is what an entry of `event` (naming `task`) closes. */
static int closes(const struct ompc_span *span, int event, uint64_t task)
{
    if (event == OMP_EVENT_JOIN)
        return span->kind == OMPC_SPAN_REGION;
    if (event == OMP_EVENT_THR_BEGIN_FINISH_TASK)
        return span->kind == OMPC_SPAN_TASK && span->task == task;
    return span->kind == OMPC_SPAN_CONSTRUCT && span->pair == ompc_event_pair(event);
}

/* A task run closed on `thread`: whether it completed its task (model.h's completer). */
static void task_closed(const struct ompc_model_process *process, int thread, struct ompc_span *span)
{
    const struct ompc_model_task *task = ompc_model_task(process, span->task);
    span->complete = span->ended && task != NULL && task->completer == thread && task->complete_ns == span->end_ns;
}

/*
 * The spans the events bracket, with a stack as the thread opened and
 * closed them: an END closes the innermost open span of its pair (and any
 * left open inside it, their ENDs lost), JOIN the innermost open region,
 * BEGIN_FINISH_TASK the innermost run of its task.  What is still open
 * when the log ends closes where it stops being exact.
 */
static int event_spans(const struct ompc_report *report, int thread, uint64_t limit,
                       struct span_list *out)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    const struct ompc_event_entry *log = slot->event_log;
    uint32_t length = slot->event_log_length;
    struct span_stack stack = {NULL, 0, 0};
    int failed = 0;
    for (uint32_t k = 0; k < length && !failed; k++) {
        int event = OMPC_EVENT_CODE(&log[k]);
        uint64_t when = OMPC_EVENT_WHEN(&log[k]);
        if (when > limit)
            break;
        int pair = ompc_event_pair(event);
        int task_run = event == OMP_EVENT_THR_BEGIN_EXEC_TASK || event == OMP_EVENT_THR_BEGIN_FINISH_TASK;
        if (event != OMP_EVENT_FORK && event != OMP_EVENT_JOIN && pair < 0 && !task_run)
            continue; /* not a span's end: task creations and the like */
        if (event == OMP_EVENT_FORK || event == OMP_EVENT_THR_BEGIN_EXEC_TASK || (pair >= 0 && event % 2 == 1)) {
            struct ompc_span open = opened_span(&log[k], event, stack.depth);
            if (open.kind == OMPC_SPAN_TASK) {
                const struct ompc_model_task *task = ompc_model_task(report->process, open.task);
                open.codeptr = task != NULL ? task->codeptr : 0; /* where it was created */
            } else if (open.kind == OMPC_SPAN_REGION) {
                open.construct = construct_kind(report->process, open.codeptr);
            }
            failed = stack_push(&stack, &open) != 0;
            continue;
        }
        size_t match = stack.depth;
        while (match > 0 && !closes(&stack.items[match - 1], event, log[k].task))
            match--;
        if (match == 0)
            continue; /* its BEGIN came before the thread was followed */
        stack.items[match - 1].ended = 1;
        while (stack.depth >= match && !failed) {
            struct ompc_span *span = &stack.items[--stack.depth];
            span->end_ns = when;
            if (span->kind == OMPC_SPAN_TASK)
                task_closed(report->process, thread, span);
            failed = push_span(out, span) != 0;
        }
    }
    while (stack.depth > 0 && !failed) {
        struct ompc_span *span = &stack.items[--stack.depth];
        span->end_ns = limit > span->begin_ns ? limit : span->begin_ns;
        failed = push_span(out, span) != 0;
    }
    free(stack.items);
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

/* No events to go by: the regions are the initial thread's time out of SERIAL.  -1 without memory. */
static int serial_gap_regions(const struct ompc_report *report, struct span_list *list)
{
    struct ompc_regions regions;
    if (ompc_regions_find(report, &regions) != 0)
        return -1;
    int failed = 0;
    for (long r = 0; r < regions.count && !failed; r++) {
        struct ompc_span region = {.begin_ns = regions.items[r].begin_ns, .end_ns = regions.items[r].end_ns,
                                   .kind = OMPC_SPAN_REGION, .pair = -1};
        failed = push_span(list, &region) != 0;
    }
    free(regions.items);
    return failed ? -1 : 0;
}

/*
 * A thread's time cut into pieces, each of one state: where an exact span
 * fixes it, else as sampled.  The cursors move forward with the pieces.
 */
struct pieces {
    const struct ompc_report *report;
    int thread;
    int has_log;
    uint64_t limit;             /* the events are exact before it */
    int covered[OMPC_NSTATES];  /* the states the registered events bracket exactly */
    size_t sampled;             /* the thread's sampled state changes */
    uint64_t *cuts;             /* every cut, ascending, each once */
    size_t cut_count;
    struct ompc_span *exact;    /* the exact spans in nesting order */
    size_t exact_count;
    size_t *open;               /* the exact spans open at the piece, outermost first */
    size_t open_count;
    uint64_t *ends;             /* the exact spans' ends, ascending */
    size_t next_exact, next_end;
    uint32_t next_sampled;
};

/* Every time a span begins or ends cuts the states; the sampled changes do too.  -1 without memory. */
static int pieces_cut(struct pieces *p, const struct span_list *list)
{
    uint64_t begin, stop;
    int state;
    while (ompc_timeline_span(p->report, p->thread, (uint32_t)p->sampled, &begin, &stop, &state))
        p->sampled++;
    size_t cut_count = 2 * p->exact_count + 2 * p->sampled;
    uint64_t *cuts = malloc((cut_count + 1) * sizeof *cuts);
    if (cuts == NULL)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < p->exact_count; i++) {
        cuts[n++] = list->items[i].begin_ns;
        cuts[n++] = list->items[i].end_ns;
    }
    for (uint32_t k = 0; k < p->sampled; k++) {
        ompc_timeline_span(p->report, p->thread, k, &begin, &stop, &state);
        cuts[n++] = begin;
        cuts[n++] = stop;
    }
    ompc_qsort(cuts, n, sizeof *cuts, ompc_compare_u64);
    size_t unique = 0;
    for (size_t i = 0; i < n; i++)
        if (unique == 0 || cuts[i] != cuts[unique - 1])
            cuts[unique++] = cuts[i];
    p->cuts = cuts;
    p->cut_count = unique;
    return 0;
}

/* The exact spans in nesting order, to find the innermost that fixes a piece's state, and their ends in order.  -1 without memory. */
static int pieces_index(struct pieces *p, const struct span_list *list)
{
    p->exact = malloc((p->exact_count + 1) * sizeof *p->exact);
    if (p->exact == NULL)
        return -1;
    if (p->exact_count > 0)
        memcpy(p->exact, list->items, p->exact_count * sizeof *p->exact);
    ompc_qsort(p->exact, p->exact_count, sizeof *p->exact, compare_spans);
    p->open = malloc((p->exact_count + 1) * sizeof *p->open);
    p->ends = malloc((p->exact_count + 1) * sizeof *p->ends);
    if (p->open == NULL || p->ends == NULL)
        return -1;
    for (size_t i = 0; i < p->exact_count; i++)
        p->ends[i] = p->exact[i].end_ns;
    ompc_qsort(p->ends, p->exact_count, sizeof *p->ends, ompc_compare_u64);
    return 0;
}

/* Frees what cutting the pieces allocated. */
static void pieces_free(struct pieces *p)
{
    free(p->open);
    free(p->ends);
    free(p->exact);
    free(p->cuts);
}

/* Opens and closes the exact spans up to `from`; 1 when one begins or ends there, so the state span before it ends. */
static int pieces_advance(struct pieces *p, uint64_t from)
{
    const struct ompc_span *exact = p->exact;
    while (p->open_count > 0 && exact[p->open[p->open_count - 1]].end_ns <= from)
        p->open_count--;
    int boundary = 0;
    for (; p->next_exact < p->exact_count && exact[p->next_exact].begin_ns <= from; p->next_exact++) {
        boundary = 1;
        if (exact[p->next_exact].end_ns > from)
            p->open[p->open_count++] = p->next_exact;
    }
    while (p->next_end < p->exact_count && p->ends[p->next_end] < from)
        p->next_end++;
    boundary |= p->next_end < p->exact_count && p->ends[p->next_end] == from;
    return boundary;
}

/*
 * The state the innermost open exact span that has one fixes, with its
 * region; 0 when none does.  Inside a task's run the samples say: the
 * task works, or waits in a task wait no event brackets; a wait around
 * the run fixes nothing inside it.
 */
static int exact_piece(const struct pieces *p, uint64_t *region)
{
    for (size_t k = p->open_count; k-- > 0;) {
        const struct ompc_span *open = &p->exact[p->open[k]];
        if (open->kind == OMPC_SPAN_TASK)
            return 0;
        if (open->state != 0) {
            *region = open->region;
            return open->state;
        }
    }
    return 0;
}

/* The state the samples saw at `from`, 0 for none. */
static int sampled_piece(struct pieces *p, uint64_t from)
{
    uint64_t begin = 0, stop = 0;
    int state = 0, piece = 0;
    while (p->next_sampled < p->sampled) {
        ompc_timeline_span(p->report, p->thread, p->next_sampled, &begin, &stop, &state);
        if (stop > from)
            break;
        p->next_sampled++;
    }
    if (p->next_sampled < p->sampled && begin <= from && state > 0 && state < OMPC_NSTATES)
        piece = state;
    /* Inside a region its FORK opened, a SERIAL sample lags behind the FORK just as well. */
    int in_region = 0;
    for (size_t k = 0; k < p->open_count && !in_region; k++)
        in_region = p->exact[p->open[k]].kind == OMPC_SPAN_REGION && p->exact[p->open[k]].exact;
    int lagging = piece > 0 && (p->covered[piece] || (piece == THR_SERIAL_STATE && in_region));
    /* A wait the events say is over: the state the samples saw next. */
    for (uint32_t k = p->next_sampled + 1; p->has_log && from < p->limit && lagging; k++) {
        if (k >= p->sampled || k > p->next_sampled + 4) {
            piece = 0;
            break;
        }
        ompc_timeline_span(p->report, p->thread, k, &begin, &stop, &state);
        if (state > 0 && state < OMPC_NSTATES && !p->covered[state]
            && !(state == THR_SERIAL_STATE && in_region)) {
            piece = state;
            lagging = 0;
        }
    }
    return piece;
}

/* The state spans: neighbouring pieces of one state merged, except across an exact span's begin or end.  -1 without memory. */
static int state_spans(struct pieces *p, struct span_list *list)
{
    struct ompc_span current = {.kind = OMPC_SPAN_STATE, .depth = 1000, .pair = -1};
    int have_current = 0, failed = 0;
    for (size_t i = 0; i + 1 < p->cut_count && !failed; i++) {
        uint64_t from = p->cuts[i], to = p->cuts[i + 1];
        int boundary = pieces_advance(p, from);
        uint64_t region = 0;
        int piece = exact_piece(p, &region);
        int piece_exact = piece != 0;
        if (piece == 0)
            piece = sampled_piece(p, from);
        if (have_current && (piece != current.state || piece_exact != current.exact || boundary)) {
            failed = push_span(list, &current) != 0;
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
        failed = push_span(list, &current) != 0;
    return failed ? -1 : 0;
}

/* The spans of one thread (see report.h). */
long ompc_trace_spans(const struct ompc_report *report, int thread, struct ompc_span **spans)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    struct span_list list = {NULL, 0, 0};
    struct pieces p;
    memset(&p, 0, sizeof p);
    p.report = report;
    p.thread = thread;
    uint64_t end = thread_end(report, thread);
    p.has_log = slot->event_log != NULL;
    /* Events are exact until the log ran full (or for the whole thread when nothing was dropped). */
    uint64_t dropped_at = slot->event_log_dropped_ns;
    p.limit = p.has_log ? (dropped_at != 0 ? dropped_at : end) : 0;
    *spans = NULL;
    int failed = p.has_log && event_spans(report, thread, p.limit, &list) != 0;
    p.exact_count = list.count;
    exact_states(report->process, p.covered);
    if (!failed && !p.has_log && slot->initial && report->event_log_bytes == 0) {
        failed = serial_gap_regions(report, &list) != 0;
        p.exact_count = list.count;
    }
    failed = failed || pieces_cut(&p, &list) != 0 || pieces_index(&p, &list) != 0 || state_spans(&p, &list) != 0;
    pieces_free(&p);
    if (failed) {
        free(list.items);
        return -1;
    }
    ompc_qsort(list.items, list.count, sizeof *list.items, compare_spans);
    *spans = list.items;
    return (long)list.count;
}

/* A span's name: the state, or the construct with where it is when that is known ("lock wait at solve solver.c:34"). */
const char *ompc_span_region_kind(const struct ompc_span *span)
{
    return span->construct == OMPC_CONSTRUCT_TEAMS ? "teams" : "parallel";
}

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
    const char *what = span->kind == OMPC_SPAN_REGION                   ? ompc_span_region_kind(span)
                       : span->kind == OMPC_SPAN_TASK                   ? "task"
                       : span->pair >= 0 && span->pair < OMPC_NPAIRS ? constructs[span->pair]
                                                                     : "?";
    if (span->codeptr == 0) {
        snprintf(buffer, size, "%s", what);
        return buffer;
    }
    struct ompc_location where;
    char label[256];
    ompc_symbolize(symbolizer, span->codeptr, OMPC_ADDRESS_CODEPTR, &where);
    snprintf(buffer, size, "%s at %s", what, ompc_location_label(&where, span->codeptr, label, sizeof label));
    return buffer;
}
