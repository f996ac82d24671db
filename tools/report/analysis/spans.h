/* spans.h - what the timeline and the traces are drawn from: the region instances in time order, the threads' sampled state spans, and each thread's properly nested spans of regions, constructs, states and tasks. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SPANS_H
#define OMPCOLLECT_SPANS_H 1

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* One recorded span of thread slot `thread`: the `index`th state change to the next (or the last sample); 0 past the end. */
int ompc_timeline_span(const struct ompc_report *report, int thread, uint32_t index,
                       uint64_t *begin_ns, uint64_t *end_ns, int *state);

/*
 * One top-level parallel region instance of the run: FORK to JOIN on the
 * initial thread when its events were logged, else the initial thread's
 * time out of SERIAL.  `instance` of `of` numbers it among the instances
 * of its construct (of all, when the constructs are unknown), from 1.
 */
struct ompc_region_instance {
    uint64_t begin_ns, end_ns;
    uint64_t id;        /* the region id of its FORK; 0 without events */
    uint64_t codeptr;   /* its parallel construct; 0 unknown */
    long instance, of;
};

/* The region instances, in time order, and until when they are known: the event log's cut, or the run's end. */
struct ompc_regions {
    struct ompc_region_instance *items; /* malloc'd */
    long count;
    int from_events;
    uint64_t known_until_ns;            /* UINT64_MAX: the whole run */
};

/* Finds the region instances of a process; 0, or -1 without memory. */
int ompc_regions_find(const struct ompc_report *report, struct ompc_regions *regions);

/* The index of the first instance that ends after `t` (regions->count: none). */
long ompc_region_after(const struct ompc_regions *regions, uint64_t t);

/* The index of the instance a time falls in; -1 outside every region, -2 past where the regions are known. */
long ompc_region_at(const struct ompc_regions *regions, uint64_t t);

/* Where a thread's sampled state changes stop being complete (its timeline ran full); 0 when they are complete. */
uint64_t ompc_timeline_cut_ns(const struct ompc_report *report, int thread);

/*
 * One span of a thread's trace.  REGION: a parallel region, FORK to JOIN on
 * its master (or, without an event log, the initial thread's time out of
 * SERIAL); CONSTRUCT: a BEGIN/END pair of events (a wait, master, single,
 * ordered); STATE: the thread's state, exact inside a wait's pair of
 * events and sampled elsewhere; TASK: one run of an explicit task on the
 * thread, from its BEGIN_EXEC_TASK to its BEGIN_FINISH_TASK (inside the
 * barrier or task wait it ran in; a task run inside another's wait is
 * inside that one's span).
 */
enum ompc_span_kind { OMPC_SPAN_REGION, OMPC_SPAN_CONSTRUCT, OMPC_SPAN_STATE, OMPC_SPAN_TASK };
struct ompc_span {
    uint64_t begin_ns, end_ns;
    int kind;           /* enum ompc_span_kind */
    int depth;          /* how many events' spans enclose it; STATE spans are innermost */
    int state;          /* STATE: the state */
    int pair;           /* CONSTRUCT: the event pair (names.h), else -1 */
    int exact;          /* from events (1) or from samples (0) */
    uint64_t region;    /* the region id recorded at its begin (REGION: its own), 0 unknown */
    uint64_t wait_id;   /* CONSTRUCT of a wait: its wait id */
    uint64_t codeptr;   /* REGION: the parallel (or teams) construct; CONSTRUCT: where it waited; 0 unknown */
    int construct;      /* REGION: its construct's kind, OMPC_CONSTRUCT_* (UNKNOWN: read as parallel) */
    int ended;          /* 1: its own END (JOIN) closed it, so end_ns is that event's time */
    /* TASK: the task's id, and 1 in `complete` when this run completes the task (model.h's completer). */
    uint64_t task;
    int complete;
};

/*
 * The spans of thread slot `thread`, properly nested, ordered by begin
 * (an enclosing span before those it encloses): from the event log where
 * there is one (until the log ran full), from the sampled state changes
 * elsewhere.  Returns the count (*spans malloc'd), or -1 without memory.
 */
long ompc_trace_spans(const struct ompc_report *report, int thread, struct ompc_span **spans);

/*
 * Orders spans for nesting: by begin, the longer (enclosing) first, states
 * last; with `regions_first`, a region before a span of the same times
 * (the OTF2 writer enters it first); then the shallower.
 */
int ompc_span_order(const struct ompc_span *x, const struct ompc_span *y, int regions_first);

struct ompc_symbolizer;

/* What a REGION span is, by its construct's kind: "teams" for a league, else "parallel". */
const char *ompc_span_region_kind(const struct ompc_span *span);

/* A span's name: its state, or its construct with the source location where known ("lock wait at solve solver.c:34"); `buffer` holds it. */
const char *ompc_span_name(const struct ompc_span *span, struct ompc_symbolizer *symbolizer, char *buffer,
                           size_t size);

#endif /* OMPCOLLECT_SPANS_H */
