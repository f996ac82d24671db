/* regions.c - a process's parallel region instances in time order (from FORK and JOIN where logged, else from the initial thread's sampled states), and its threads' sampled state spans, for the timeline and the traces. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "omp_collector_api.h"
#include "sort.h"
#include "spans.h"

#include <stdlib.h>
#include <string.h>

/* Decodes one timeline entry into a span (see spans.h). */
int ompc_timeline_span(const struct ompc_report *report, int thread, uint32_t index,
                       uint64_t *begin_ns, uint64_t *end_ns, int *state)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    const uint64_t *timeline = slot->timeline;
    if (timeline == NULL)
        return 0;
    uint32_t length = slot->timeline_length;
    if (length > OMPC_TIMELINE_CAP)
        length = OMPC_TIMELINE_CAP;
    if (index >= length)
        return 0;
    *begin_ns = ompc_change_ns(timeline[index]);
    *state = ompc_change_state(timeline[index]);
    /* A full timeline's last change lasted until one that was not kept: nothing says how long. */
    *end_ns = index + 1 < length ? ompc_change_ns(timeline[index + 1])
              : slot->timeline_truncated ? *begin_ns
                                         : slot->last_sample_ns;
    if (*end_ns < *begin_ns)
        *end_ns = *begin_ns;
    return 1;
}

/* Appends one region instance to a growing list; -1 without memory. */
static int add_region(struct ompc_regions *regions, size_t *capacity, uint64_t begin, uint64_t end,
                      uint64_t id, uint64_t codeptr)
{
    if ((size_t)regions->count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 64;
        struct ompc_region_instance *grown = realloc(regions->items, grown_capacity * sizeof *grown);
        if (grown == NULL)
            return -1;
        regions->items = grown;
        *capacity = grown_capacity;
    }
    regions->items[regions->count++] = (struct ompc_region_instance){begin, end, id, codeptr, 0, 0};
    return 0;
}

/* The initial thread's slot, or -1. */
static int initial_thread(const struct ompc_report *report)
{
    for (int i = 0; i < report->process->thread_count && i < OMPC_MAX_THREADS; i++)
        if (report->process->threads[i].initial)
            return i;
    return -1;
}

/* Without events: the regions are the initial thread's time out of SERIAL, the state it has outside every region. */
static int sampled_regions(const struct ompc_report *report, int initial, struct ompc_regions *regions)
{
    size_t capacity = 0;
    uint64_t begin, end, open = 0, last_end = 0;
    int state, inside = 0, failed = 0;
    for (uint32_t k = 0; !failed && ompc_timeline_span(report, initial, k, &begin, &end, &state); k++) {
        last_end = end;
        if (state == 0)
            continue;
        int parallel = state != 6;
        if (parallel && !inside)
            open = begin;
        if (!parallel && inside)
            failed = add_region(regions, &capacity, open, begin, 0, 0) != 0;
        inside = parallel;
    }
    /* A run that ended inside a region: it closes where the record ends. */
    if (!failed && inside)
        failed = add_region(regions, &capacity, open, last_end, 0, 0) != 0;
    return failed ? -1 : 0;
}

/*
 * From the initial thread's FORK and JOIN events: the outermost regions
 * (a nested FORK opens a region inside one).  They are known until the log
 * ran full; one open there closes at the cut.
 */
static int logged_regions(const struct ompc_report *report, int initial, struct ompc_regions *regions)
{
    const struct ompc_model_thread *slot = &report->process->threads[initial];
    uint64_t cut = slot->event_log_dropped_ns;
    regions->from_events = 1;
    regions->known_until_ns = cut != 0 ? cut : UINT64_MAX;
    size_t capacity = 0;
    int depth = 0;
    const struct ompc_event_entry *open = NULL;
    for (uint32_t k = 0; k < slot->event_log_length; k++) {
        const struct ompc_event_entry *entry = &slot->event_log[k];
        int event = OMPC_EVENT_CODE(entry);
        if (cut != 0 && OMPC_EVENT_WHEN(entry) > cut)
            break;
        if (event == OMP_EVENT_FORK && depth++ == 0)
            open = entry;
        if (event == OMP_EVENT_JOIN && depth > 0 && --depth == 0
            && add_region(regions, &capacity, OMPC_EVENT_WHEN(open), OMPC_EVENT_WHEN(entry), open->region,
                          open->codeptr) != 0)
            return -1;
    }
    if (depth > 0) {
        uint64_t end = cut != 0 ? cut : slot->end_ns > slot->last_sample_ns ? slot->end_ns : slot->last_sample_ns;
        if (end < OMPC_EVENT_WHEN(open))
            end = OMPC_EVENT_WHEN(open);
        return add_region(regions, &capacity, OMPC_EVENT_WHEN(open), end, open->region, open->codeptr);
    }
    return 0;
}

/* A region instance's place in the order by construct. */
struct by_construct {
    uint64_t codeptr, begin_ns;
    long index;
};

/* qsort: by construct, then in time order. */
static int compare_by_construct(const void *a, const void *b)
{
    const struct by_construct *x = a, *y = b;
    if (x->codeptr != y->codeptr)
        return x->codeptr < y->codeptr ? -1 : 1;
    return (x->begin_ns > y->begin_ns) - (x->begin_ns < y->begin_ns);
}

/* Numbers each instance among those of its construct; -1 without memory. */
static int number_instances(struct ompc_regions *regions)
{
    struct by_construct *order = malloc(((size_t)regions->count + 1) * sizeof *order);
    if (order == NULL)
        return -1;
    for (long i = 0; i < regions->count; i++)
        order[i] = (struct by_construct){regions->items[i].codeptr, regions->items[i].begin_ns, i};
    ompc_qsort(order, (size_t)regions->count, sizeof *order, compare_by_construct);
    for (long first = 0, last; first < regions->count; first = last) {
        for (last = first; last < regions->count && order[last].codeptr == order[first].codeptr; last++)
            regions->items[order[last].index].instance = last - first + 1;
        for (long i = first; i < last; i++)
            regions->items[order[i].index].of = last - first;
    }
    free(order);
    return 0;
}

/* The region instances (see spans.h). */
int ompc_regions_find(const struct ompc_report *report, struct ompc_regions *regions)
{
    memset(regions, 0, sizeof *regions);
    regions->known_until_ns = UINT64_MAX;
    int initial = initial_thread(report);
    if (initial < 0)
        return 0;
    int failed = report->process->threads[initial].event_log != NULL
                     ? logged_regions(report, initial, regions)
                     : sampled_regions(report, initial, regions);
    if (failed == 0)
        failed = number_instances(regions);
    if (failed != 0) {
        free(regions->items);
        memset(regions, 0, sizeof *regions);
        return -1;
    }
    return 0;
}

/* The first region instance that ends after `t` (see spans.h). */
long ompc_region_after(const struct ompc_regions *regions, uint64_t t)
{
    long low = 0, high = regions->count;
    while (low < high) {
        long middle = (low + high) / 2;
        if (regions->items[middle].end_ns <= t)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* The instance a time falls in (see spans.h). */
long ompc_region_at(const struct ompc_regions *regions, uint64_t t)
{
    if (t >= regions->known_until_ns)
        return -2;
    long low = ompc_region_after(regions, t);
    return low < regions->count && regions->items[low].begin_ns <= t ? low : -1;
}


/* Where the sampled state changes stop being complete (see spans.h). */
uint64_t ompc_timeline_cut_ns(const struct ompc_report *report, int thread)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    if (!slot->timeline_truncated)
        return 0;
    uint32_t length = slot->timeline_length < OMPC_TIMELINE_CAP ? slot->timeline_length : OMPC_TIMELINE_CAP;
    uint64_t cut = slot->timeline != NULL && length > 0 ? ompc_change_ns(slot->timeline[length - 1]) : slot->start_ns;
    return cut != 0 ? cut : 1;
}
