/* taskgraph.c - builds the task graph from the model's logged tasks and event logs: each task's own time, its creation and join edges, and work, span and the critical path over them. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "grow.h"
#include "omp_collector_api.h"
#include "sort.h"
#include "taskgraph.h"

#include <stdlib.h>
#include <string.h>

/* A stretch of time one task ran its own code on a thread. */
struct segment {
    size_t task;
    uint64_t begin, end;
};

struct segments {
    struct segment *items;
    size_t count, capacity;
};

static int push_segment(struct segments *list, size_t task, uint64_t begin, uint64_t end)
{
    if (end <= begin)
        return 0;
    if (ompc_grow(&list->items, list->count + 1, &list->capacity, sizeof *list->items) != 0)
        return -1;
    list->items[list->count++] = (struct segment){task, begin, end};
    return 0;
}

/* A task run open on a thread while its log is read, and since when it runs its own code. */
struct open_run {
    size_t task;
    uint64_t since;
    int waiting; /* task waits open in it (the shim's OMPCOLLECTOR_EVENT_*_TASK_WAIT): no own code runs */
};

struct run_stack {
    struct open_run *runs;
    size_t depth, capacity;
};

static int push_run(struct run_stack *stack, size_t task, uint64_t when)
{
    if (ompc_grow(&stack->runs, stack->depth + 1, &stack->capacity, sizeof *stack->runs) != 0)
        return -1;
    stack->runs[stack->depth++] = (struct open_run){task, when, 0};
    return 0;
}

/*
 * Ends the own segment of the run on top, if it runs its own code; 0, or
 * -1 without memory.  `off` is the time the agent saw the thread off the
 * CPU in the gap `when` ends (record.h, off_cpu_ns): not the task's own
 * time, so the segment is that much shorter (never below nothing: the
 * value is the record's, untrusted).
 */
static int close_top(struct run_stack *stack, uint64_t when, uint64_t off, struct segments *out)
{
    if (stack->depth == 0 || stack->runs[stack->depth - 1].waiting)
        return 0;
    const struct open_run *top = &stack->runs[stack->depth - 1];
    uint64_t end = when > top->since && when - top->since > off ? when - off : top->since;
    return push_segment(out, top->task, top->since, end);
}

/* A task wait of the run on top begins or ends (a wait naming another task is not this run's). */
static int task_wait(struct run_stack *stack, size_t task, int begin, uint64_t when, uint64_t off,
                     struct segments *out)
{
    if (stack->depth == 0 || stack->runs[stack->depth - 1].task != task)
        return 0;
    struct open_run *top = &stack->runs[stack->depth - 1];
    if (begin && close_top(stack, when, off, out) != 0)
        return -1;
    if (begin)
        top->waiting++;
    else if (top->waiting > 0 && --top->waiting == 0)
        top->since = when;
    return 0;
}

/*
 * One thread's task runs cut into own segments: a run nested in another
 * (a task run at a scheduling point of the one below, in a taskwait most
 * often) is time the one below did not run its own code, and so is a
 * task wait the shim reported.  The loader named every run's end
 * (load.c); runs above it whose ends the log lost end with it.
 */
static int thread_segments(const struct ompc_model_process *process, const struct ompc_model_thread *thread,
                           struct run_stack *stack, struct segments *out)
{
    stack->depth = 0;
    for (uint32_t k = 0; thread->event_log != NULL && k < thread->event_log_length; k++) {
        const struct ompc_event_entry *entry = &thread->event_log[k];
        int code = OMPC_EVENT_CODE(entry);
        uint64_t when = OMPC_EVENT_WHEN(entry);
        const struct ompc_model_task *task = NULL;
        if ((code == OMP_EVENT_THR_BEGIN_EXEC_TASK || code == OMP_EVENT_THR_BEGIN_FINISH_TASK
             || OMPC_EVENT_IS_TASK_WAIT(code)) && entry->task != 0)
            task = ompc_model_task(process, entry->task);
        if (task == NULL)
            continue;
        size_t index = (size_t)(task - process->tasks);
        /* A creation's field is its code address; the others' the gap's off-CPU time. */
        uint64_t off = entry->off_cpu_ns;
        if (OMPC_EVENT_IS_TASK_WAIT(code)) {
            if (task_wait(stack, index, code == OMPC_EVENT_TASK_WAIT_BEGIN, when, off, out) != 0)
                return -1;
            continue;
        }
        if (code == OMP_EVENT_THR_BEGIN_EXEC_TASK) {
            if (close_top(stack, when, off, out) != 0 || push_run(stack, index, when) != 0)
                return -1;
            continue;
        }
        size_t match = stack->depth;
        while (match > 0 && stack->runs[match - 1].task != index)
            match--;
        if (match == 0)
            continue;
        /* The off-CPU time was in the innermost run's gap, the one that ran until now. */
        for (; stack->depth >= match; stack->depth--, off = 0)
            if (close_top(stack, when, off, out) != 0)
                return -1;
        if (stack->depth > 0)
            stack->runs[stack->depth - 1].since = when;
    }
    return 0;
}

/* qsort: by task, then time. */
static int compare_segments(const void *a, const void *b)
{
    const struct segment *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return (x->begin > y->begin) - (x->begin < y->begin);
}

/* What the sweep keeps per task: its segments, how far it has read them, and its path so far. */
struct sweep_task {
    size_t first, count;   /* its segments */
    size_t cursor;         /* segments wholly before the last time asked */
    uint64_t own_before;   /* their own time */
    uint64_t end_time;     /* its completion (or its last segment's end) */
    uint64_t base, base_own; /* path = base + scale * own time since base_own */
    double scale;          /* typical / own time: 1 for measured paths */
    int64_t binder;        /* what base came from: -1 its start, else a joined child */
    int completed;
};

/* The task's own time up to `when`; `when` never decreases between calls for one task. */
static uint64_t own_at(struct sweep_task *task, const struct segment *segments, uint64_t when)
{
    while (task->cursor < task->count && segments[task->first + task->cursor].end <= when) {
        const struct segment *s = &segments[task->first + task->cursor++];
        task->own_before += s->end - s->begin;
    }
    uint64_t own = task->own_before;
    if (task->cursor < task->count && segments[task->first + task->cursor].begin < when)
        own += when - segments[task->first + task->cursor].begin;
    return own;
}

/* Its path at `when`: its own time since base scaled to its typical time, so a creation part-way through its run stands part-way through its typical time. */
static uint64_t path_at(struct sweep_task *task, const struct segment *segments, uint64_t when)
{
    uint64_t own = own_at(task, segments, when);
    uint64_t since = own > task->base_own ? own - task->base_own : 0;
    return task->base + (task->scale == 1.0 ? since : (uint64_t)((double)since * task->scale + 0.5));
}

/* One step of the sweep: a task's creation (0) or completion (1). */
struct step {
    uint64_t when;
    size_t task;
    int kind;
};

static int compare_steps(const void *a, const void *b)
{
    const struct step *x = a, *y = b;
    if (x->when != y->when)
        return x->when < y->when ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    return (x->task > y->task) - (x->task < y->task);
}

/*
 * Parents, roots and depths.  A parent is taken only when it comes
 * before the child in the table: ids grow with time, so a creator's id is
 * the smaller, and a table that says otherwise draws no edge (and no cycle).
 */
static void link_parents(const struct ompc_model_process *process, struct ompc_task_graph *graph)
{
    for (size_t i = 0; i < graph->count; i++) {
        struct ompc_graph_task *task = &graph->tasks[i];
        const struct ompc_model_task *parent
            = process->tasks[i].creator >= 0 && process->tasks[i].parent != 0
                  ? ompc_model_task(process, process->tasks[i].parent)
                  : NULL;
        size_t up = parent != NULL ? (size_t)(parent - process->tasks) : i;
        task->parent = up < i ? (int64_t)up : -1;
        task->start_via = task->end_via = task->start_dep = -1;
        if (task->parent < 0) {
            task->root = (int64_t)i;
            graph->roots++;
            continue;
        }
        struct ompc_graph_task *above = &graph->tasks[up];
        task->root = above->root;
        task->depth = above->depth + 1;
        above->children++;
        if (task->depth > graph->max_depth)
            graph->max_depth = task->depth;
    }
}

/* Each task's segments and own time, from every thread's log; the segments sorted by task. */
static int own_times(const struct ompc_model_process *process, struct ompc_task_graph *graph,
                     struct segments *segments, struct sweep_task *sweep)
{
    struct run_stack stack = {NULL, 0, 0};
    for (int t = 0; t < process->thread_count; t++)
        if (thread_segments(process, &process->threads[t], &stack, segments) != 0) {
            free(stack.runs);
            return -1;
        }
    free(stack.runs);
    ompc_qsort(segments->items, segments->count, sizeof *segments->items, compare_segments);
    for (size_t s = 0; s < segments->count; s++) {
        const struct segment *segment = &segments->items[s];
        struct sweep_task *task = &sweep[segment->task];
        if (task->count++ == 0)
            task->first = s;
        graph->tasks[segment->task].own_ns += segment->end - segment->begin;
        graph->work_ns += segment->end - segment->begin;
        if (segment->end > task->end_time)
            task->end_time = segment->end;
    }
    for (size_t i = 0; i < graph->count; i++) {
        const struct ompc_model_task *task = &process->tasks[i];
        sweep[i].binder = -1;
        if (task->completer >= 0)
            sweep[i].end_time = task->complete_ns;
        else if (sweep[i].count == 0 && task->creator >= 0)
            sweep[i].end_time = task->create_ns;
    }
    return 0;
}

static int compare_dependences(const void *a, const void *b)
{
    const struct ompc_graph_dependence *x = a, *y = b;
    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    return (x->sink > y->sink) - (x->sink < y->sink);
}

/* The dependences the logs hold (OMPC_EVENT_TASK_DEPENDENCE) between tasks of the table, each once. */
static int gather_dependences(const struct ompc_model_process *process, struct ompc_task_graph *graph)
{
    size_t count = 0;
    for (int t = 0; t < process->thread_count; t++)
        for (uint32_t k = 0; process->threads[t].event_log != NULL && k < process->threads[t].event_log_length; k++)
            count += OMPC_EVENT_CODE(&process->threads[t].event_log[k]) == OMPC_EVENT_TASK_DEPENDENCE;
    graph->dependences = malloc((count + 1) * sizeof *graph->dependences);
    if (graph->dependences == NULL)
        return -1;
    for (int t = 0; t < process->thread_count; t++)
        for (uint32_t k = 0; process->threads[t].event_log != NULL && k < process->threads[t].event_log_length; k++) {
            const struct ompc_event_entry *entry = &process->threads[t].event_log[k];
            if (OMPC_EVENT_CODE(entry) != OMPC_EVENT_TASK_DEPENDENCE)
                continue;
            const struct ompc_model_task *source = ompc_model_task(process, entry->parent);
            const struct ompc_model_task *sink = ompc_model_task(process, entry->task);
            if (source != NULL && sink != NULL && source != sink)
                graph->dependences[graph->dependence_count++]
                    = (struct ompc_graph_dependence){(size_t)(source - process->tasks), (size_t)(sink - process->tasks)};
        }
    ompc_qsort(graph->dependences, graph->dependence_count, sizeof *graph->dependences, compare_dependences);
    size_t unique = 0;
    for (size_t i = 0; i < graph->dependence_count; i++)
        if (unique == 0 || compare_dependences(&graph->dependences[unique - 1], &graph->dependences[i]) != 0)
            graph->dependences[unique++] = graph->dependences[i];
    graph->dependence_count = unique;
    return 0;
}

/*
 * A dependence source completed: each of its sinks starts on a path no
 * shorter than the source's (it could not start before), whether or not
 * the sweep has met its creation yet.
 */
static void release_sinks(struct ompc_task_graph *graph, struct sweep_task *sweep, const struct segment *segments,
                          size_t source, uint64_t when)
{
    const struct ompc_graph_dependence *deps = graph->dependences;
    size_t low = 0, high = graph->dependence_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (deps[middle].source < source)
            low = middle + 1;
        else
            high = middle;
    }
    for (size_t d = low; d < graph->dependence_count && deps[d].source == source; d++) {
        struct ompc_graph_task *sink = &graph->tasks[deps[d].sink];
        uint64_t end = graph->tasks[source].end_path;
        if (end <= sink->start_path)
            continue;
        sink->start_path = end;
        sink->start_dep = (int64_t)source;
        sweep[deps[d].sink].base = end;
        sweep[deps[d].sink].base_own = own_at(&sweep[deps[d].sink], segments, when);
        sweep[deps[d].sink].binder = -1;
    }
}

/* A child completed while its parent runs: the parent's later own time comes after it on a path. */
static void join(struct ompc_task_graph *graph, struct sweep_task *sweep, const struct segment *segments,
                 size_t child, uint64_t when)
{
    int64_t parent = graph->tasks[child].parent;
    if (parent < 0 || sweep[parent].completed)
        return;
    graph->tasks[child].joined = 1;
    graph->joins++;
    struct sweep_task *above = &sweep[parent];
    uint64_t here = path_at(above, segments, when);
    if (graph->tasks[child].end_path > here) {
        above->base = graph->tasks[child].end_path;
        above->base_own = own_at(above, segments, when);
        above->binder = (int64_t)child;
    }
}

/*
 * The longest paths, in one sweep over creations and completions in time
 * order: a task starts where its parent's path stood when it created it,
 * and completes at its own path then; a completion joins into the parent
 * when the parent has not completed yet.
 */
static int sweep_paths(const struct ompc_model_process *process, struct ompc_task_graph *graph,
                       struct sweep_task *sweep, const struct segment *segments)
{
    struct step *steps = malloc((2 * graph->count + 1) * sizeof *steps);
    if (steps == NULL)
        return -1;
    size_t count = 0;
    for (size_t i = 0; i < graph->count; i++) {
        if (process->tasks[i].creator >= 0)
            steps[count++] = (struct step){process->tasks[i].create_ns, i, 0};
        steps[count++] = (struct step){sweep[i].end_time, i, 1};
    }
    ompc_qsort(steps, count, sizeof *steps, compare_steps);
    for (size_t s = 0; s < count; s++) {
        size_t i = steps[s].task;
        struct ompc_graph_task *task = &graph->tasks[i];
        if (steps[s].kind == 0) {
            uint64_t from_parent = task->parent >= 0 ? path_at(&sweep[task->parent], segments, steps[s].when) : 0;
            if (task->parent >= 0 && (task->start_dep < 0 || from_parent >= task->start_path)) {
                task->start_path = from_parent;
                task->start_via = sweep[task->parent].binder;
                task->start_dep = -1;
            }
            sweep[i].base = task->start_path;
            continue;
        }
        task->end_path = path_at(&sweep[i], segments, steps[s].when);
        task->end_via = sweep[i].binder;
        sweep[i].completed = 1;
        join(graph, sweep, segments, i, steps[s].when);
        release_sinks(graph, sweep, segments, i, steps[s].when);
    }
    free(steps);
    return 0;
}

/*
 * The critical path's steps that end at `from`'s completion, latest
 * first: a task is listed at each stretch of it on the path (a parent
 * before and after a join), so out holds up to 2 * count + 2 entries.
 */
static void walk_back(const struct ompc_task_graph *graph, size_t from, size_t *out, size_t *count)
{
    int64_t at = (int64_t)from;
    int at_end = 1;
    /* Every step goes to an earlier point of the path; the bound only guards against a table that loops. */
    for (size_t steps = 0; at >= 0 && steps <= 2 * graph->count + 1; steps++) {
        const struct ompc_graph_task *task = &graph->tasks[at];
        if (!at_end && task->start_dep >= 0) {
            /* Its start waited for a dependence's source: the path comes from that source's completion. */
            at = task->start_dep;
            at_end = 1;
            continue;
        }
        int64_t mark = at_end ? at : task->parent;
        if (mark < 0)
            break;
        out[(*count)++] = (size_t)mark;
        if (at_end) {
            at_end = task->end_via >= 0;
            at = at_end ? task->end_via : at;
        } else {
            at_end = task->start_via >= 0;
            at = at_end ? task->start_via : task->parent;
        }
    }
}

/* Appends one region's critical path to graph->path in path order, each task once, at its first stretch. */
static void add_path(struct ompc_task_graph *graph, size_t last, size_t *steps)
{
    size_t count = 0;
    walk_back(graph, last, steps, &count);
    while (count > 0) {
        size_t task = steps[--count];
        if (!graph->tasks[task].on_path) {
            graph->tasks[task].on_path = 1;
            graph->path[graph->path_length++] = task;
        }
    }
}

/* One parallel region's task trees: the region their roots ran in, and the task its longest path ends at. */
struct region_span {
    uint64_t region;
    size_t first, last;
};

static int compare_regions(const void *a, const void *b)
{
    const struct region_span *x = a, *y = b;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static int compare_first(const void *a, const void *b)
{
    const struct region_span *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/*
 * The span: regions run one after another, so their longest paths add
 * up; the critical path goes through each region's, in the order the
 * regions began.
 */
static int span_and_path(const struct ompc_model_process *process, struct ompc_task_graph *graph)
{
    struct region_span *spans = malloc((graph->count + 1) * sizeof *spans);
    size_t *steps = malloc((2 * graph->count + 2) * sizeof *steps);
    graph->path = malloc((graph->count + 1) * sizeof *graph->path);
    if (spans == NULL || steps == NULL || graph->path == NULL) {
        free(spans);
        free(steps);
        return -1;
    }
    for (size_t i = 0; i < graph->count; i++)
        spans[i] = (struct region_span){process->tasks[graph->tasks[i].root].region, i, i};
    ompc_qsort(spans, graph->count, sizeof *spans, compare_regions);
    size_t regions = 0;
    for (size_t i = 0; i < graph->count; i++) {
        if (regions == 0 || spans[regions - 1].region != spans[i].region)
            spans[regions++] = spans[i];
        struct region_span *region = &spans[regions - 1];
        if (graph->tasks[spans[i].last].end_path > graph->tasks[region->last].end_path)
            region->last = spans[i].last;
    }
    ompc_qsort(spans, regions, sizeof *spans, compare_first);
    for (size_t r = 0; r < regions; r++) {
        graph->span_ns += graph->tasks[spans[r].last].end_path;
        add_path(graph, spans[r].last, steps);
    }
    graph->regions = (uint32_t)regions;
    free(spans);
    free(steps);
    return 0;
}

/* A task as its class sees it: construct, depth, children, then its own time. */
struct class_key {
    uint64_t codeptr, own_ns;
    uint32_t depth, children;
    size_t task;
};

static int same_class(const struct class_key *x, const struct class_key *y)
{
    return x->codeptr == y->codeptr && x->depth == y->depth && x->children == y->children;
}

/* qsort: by class, then own time, then task. */
static int compare_class(const void *a, const void *b)
{
    const struct class_key *x = a, *y = b;
    if (x->codeptr != y->codeptr)
        return x->codeptr < y->codeptr ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    if (x->children != y->children)
        return x->children < y->children ? -1 : 1;
    if (x->own_ns != y->own_ns)
        return x->own_ns < y->own_ns ? -1 : 1;
    return (x->task > y->task) - (x->task < y->task);
}

/* One class once its typical time is known: where its tasks are in the sorted keys. */
struct class_summary {
    uint64_t codeptr, typical;
    uint32_t children, depth;
    size_t first, last;
};

/* qsort: by construct and children, then depth (the classes of one construct and children across depths together). */
static int compare_summary(const void *a, const void *b)
{
    const struct class_summary *x = a, *y = b;
    if (x->codeptr != y->codeptr)
        return x->codeptr < y->codeptr ? -1 : 1;
    if (x->children != y->children)
        return x->children < y->children ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/*
 * A class too small for a typical time takes its construct's at other
 * depths when that does not change with depth: two or more depths with a
 * typical time of their own, the largest at most twice the smallest (fib's
 * tasks cost alike at every depth; a sort's merge halves with each, and
 * its top keeps its own time).  The first tasks of a run are the few at
 * the top of its tree, and the coldest.
 */
static void depth_free_times(struct ompc_task_graph *graph, const struct class_key *keys,
                             struct class_summary *classes, size_t count, uint64_t *medians)
{
    ompc_qsort(classes, count, sizeof *classes, compare_summary);
    for (size_t first = 0, last; first < count; first = last) {
        size_t typical = 0;
        for (last = first; last < count && classes[last].codeptr == classes[first].codeptr
                           && classes[last].children == classes[first].children;
             last++)
            if (classes[last].last - classes[last].first >= OMPC_TASK_CLASS_MIN)
                medians[typical++] = classes[last].typical;
        ompc_qsort(medians, typical, sizeof *medians, ompc_compare_u64);
        if (typical < 2 || medians[0] == 0 || medians[typical - 1] / 2 > medians[0])
            continue;
        /* The median of the depths' typical times. */
        uint64_t pooled = medians[typical / 2];
        if (typical % 2 == 0)
            pooled = pooled / 2 + medians[typical / 2 - 1] / 2;
        for (size_t c = first; c < last; c++) {
            if (classes[c].last - classes[c].first >= OMPC_TASK_CLASS_MIN)
                continue;
            for (size_t k = classes[c].first; k < classes[c].last; k++)
                if (graph->tasks[keys[k].task].own_ns != 0) {
                    graph->tasks[keys[k].task].typical_ns = pooled;
                    graph->depth_free_tasks++;
                }
        }
    }
}

/*
 * A class's typical own time: the mean of its tasks but those over
 * OMPC_TASK_TRIM times its median.  The mean, as work sums measured
 * times: a median under a skewed class's mean would read the path
 * shorter than the work it is measured against; without the tasks far
 * above the median, as one delayed task moves a small class's mean.
 */
static uint64_t typical_of(const struct class_key *keys, size_t first, size_t last)
{
    size_t members = last - first, middle = first + members / 2;
    uint64_t median = keys[middle].own_ns;
    if (members % 2 == 0)
        median = median / 2 + keys[middle - 1].own_ns / 2;
    double sum = 0;
    size_t kept = 0;
    for (size_t k = first; k < last && keys[k].own_ns / OMPC_TASK_TRIM <= median; k++, kept++)
        sum += (double)keys[k].own_ns;
    return kept > 0 ? (uint64_t)(sum / (double)kept + 0.5) : median;
}

/*
 * Each task's typical time: tasks of one construct at one depth with as
 * many children do the same work by the program's structure, so their
 * typical own time stands for each, and one a cold cache or an interrupt
 * delayed does not set the span; a class too small for a majority keeps
 * its own times (a task systematically longer than its like is alone in
 * its class most often: at its own depth or construct) unless its
 * construct's cost does not depend on depth (depth_free_times).
 */
static int typical_times(const struct ompc_model_process *process, struct ompc_task_graph *graph)
{
    struct class_key *keys = malloc((graph->count + 1) * sizeof *keys);
    struct class_summary *classes = malloc((graph->count + 1) * sizeof *classes);
    uint64_t *medians = malloc((graph->count + 1) * sizeof *medians);
    if (keys == NULL || classes == NULL || medians == NULL) {
        free(keys);
        free(classes);
        free(medians);
        return -1;
    }
    for (size_t i = 0; i < graph->count; i++)
        keys[i] = (struct class_key){process->tasks[i].codeptr, graph->tasks[i].own_ns, graph->tasks[i].depth,
                                     graph->tasks[i].children, i};
    ompc_qsort(keys, graph->count, sizeof *keys, compare_class);
    for (size_t first = 0, last; first < graph->count; first = last) {
        for (last = first + 1; last < graph->count && same_class(&keys[first], &keys[last]); last++)
            ;
        size_t members = last - first;
        uint64_t typical = typical_of(keys, first, last);
        classes[graph->classes++]
            = (struct class_summary){keys[first].codeptr, typical, keys[first].children, keys[first].depth, first, last};
        graph->typical_classes += members >= OMPC_TASK_CLASS_MIN;
        for (size_t k = first; k < last; k++) {
            struct ompc_graph_task *task = &graph->tasks[keys[k].task];
            task->class_size = (uint32_t)(members < UINT32_MAX ? members : UINT32_MAX);
            /* A task with no own time logged has nothing to spread a typical time over. */
            task->typical_ns = members >= OMPC_TASK_CLASS_MIN && task->own_ns != 0 ? typical : task->own_ns;
        }
    }
    depth_free_times(graph, keys, classes, graph->classes, medians);
    free(keys);
    free(classes);
    free(medians);
    return 0;
}

/* Forgets the paths a sweep found, for the next sweep with other costs: `typical` scales each task's own time to its typical time. */
static void reset_paths(struct ompc_task_graph *graph, struct sweep_task *sweep, int typical)
{
    for (size_t i = 0; i < graph->count; i++) {
        struct ompc_graph_task *task = &graph->tasks[i];
        task->start_path = task->end_path = 0;
        task->joined = task->on_path = 0;
        task->start_via = task->end_via = task->start_dep = -1;
        struct sweep_task *state = &sweep[i];
        state->cursor = 0;
        state->own_before = state->base = state->base_own = 0;
        state->binder = -1;
        state->completed = 0;
        state->scale = typical && task->own_ns != 0 ? (double)task->typical_ns / (double)task->own_ns : 1.0;
    }
    free(graph->path);
    graph->path = NULL;
    graph->path_length = graph->joins = 0;
    graph->span_ns = 0;
    graph->regions = 0;
}

/* The longest path on measured own times: kept as a second figure, with the outliers on it. */
static void keep_measured(struct ompc_task_graph *graph)
{
    graph->measured_span_ns = graph->span_ns;
    graph->measured_path_length = graph->path_length;
    for (size_t i = 0; i < graph->path_length; i++) {
        const struct ompc_graph_task *task = &graph->tasks[graph->path[i]];
        if (task->own_ns / OMPC_TASK_OUTLIER_FACTOR > task->typical_ns) {
            graph->measured_outliers++;
            graph->measured_excess_ns += task->own_ns - task->typical_ns;
        }
    }
}

/* The paths twice: on measured own times (kept as measured_*), then on typical times (the span). */
static int both_paths(const struct ompc_model_process *process, struct ompc_task_graph *graph,
                      struct sweep_task *sweep, const struct segment *segments)
{
    reset_paths(graph, sweep, 0);
    if (sweep_paths(process, graph, sweep, segments) != 0 || span_and_path(process, graph) != 0)
        return -1;
    keep_measured(graph);
    reset_paths(graph, sweep, 1);
    if (sweep_paths(process, graph, sweep, segments) != 0 || span_and_path(process, graph) != 0)
        return -1;
    return 0;
}

int ompc_task_graph_build(const struct ompc_model_process *process, struct ompc_task_graph *graph)
{
    *graph = (struct ompc_task_graph){0};
    if (process->task_count == 0 || process->tasks == NULL)
        return 0;
    graph->count = process->task_count;
    graph->created_exact = process->task_constructs_dropped == 0;
    for (uint32_t r = 0; process->task_constructs != NULL && r < process->task_construct_count; r++)
        graph->created += process->task_constructs[r].created;
    graph->tasks = calloc(graph->count, sizeof *graph->tasks);
    struct sweep_task *sweep = calloc(graph->count, sizeof *sweep);
    struct segments segments = {NULL, 0, 0};
    int status = -1;
    if (graph->tasks != NULL && sweep != NULL) {
        link_parents(process, graph);
        status = gather_dependences(process, graph);
        if (status == 0)
            status = own_times(process, graph, &segments, sweep);
        if (status == 0)
            status = typical_times(process, graph);
        if (status == 0)
            status = both_paths(process, graph, sweep, segments.items);
    }
    free(segments.items);
    free(sweep);
    if (status != 0)
        ompc_task_graph_free(graph);
    return status;
}

void ompc_task_graph_free(struct ompc_task_graph *graph)
{
    free(graph->tasks);
    free(graph->path);
    free(graph->dependences);
    *graph = (struct ompc_task_graph){0};
}

int ompc_task_graph_partial(const struct ompc_task_graph *graph)
{
    return graph->created > graph->count || !graph->created_exact;
}

double ompc_task_graph_parallelism(const struct ompc_task_graph *graph)
{
    return graph->span_ns != 0 ? (double)graph->work_ns / (double)graph->span_ns : 0.0;
}

double ompc_task_graph_measured_parallelism(const struct ompc_task_graph *graph)
{
    return graph->measured_span_ns != 0 ? (double)graph->work_ns / (double)graph->measured_span_ns : 0.0;
}
