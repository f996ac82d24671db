/* samples.c - spreads a process's counted samples back out one by one (samples.h): per thread and state over the thread's sampled spans of that state, each with a stack-table entry's frames and their user-model continuation, and the threads' entries into the top-level parallel constructs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "coderanges.h"
#include "grow.h"
#include "samples.h"
#include "sort.h"
#include "spans.h"
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

/* Continuations followed per stack, and the user-model frames kept (a longer stack is cut at its root). */
#define MAX_LINKS 64
#define MAX_FRAMES 2048

/* What a build works with. */
struct work {
    const struct ompc_model_process *process;
    struct ompc_samples *out;
    size_t frame_capacity, sample_capacity, entry_capacity, word_capacity;
    const struct ompc_model_stack **forks; /* every thread's fork-stack entries, by id */
    size_t fork_count;
    struct ompc_code_ranges *runtime;      /* the runtime's, the shim's and the agent's code */
    uint64_t vdso;                         /* the vDSO's load address, 0 unknown */
    struct ompc_regions regions;           /* the top-level region instances, in time order */
    uint32_t *instance_constructs;         /* per instance: its construct's row + 1, 0 unknown */
    uint64_t *instance_masks;              /* per instance: the threads sampled in it (slot % 64) */
};

static int compare_fork_ids(const void *a, const void *b)
{
    const struct ompc_model_stack *x = *(const struct ompc_model_stack *const *)a;
    const struct ompc_model_stack *y = *(const struct ompc_model_stack *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

/* The fork-stack entries of every thread, sorted by id, and the runtime's code; -1 without memory. */
static int index_process(struct work *w)
{
    const struct ompc_model_process *process = w->process;
    size_t count = 0;
    for (int t = 0; t < process->thread_count; t++)
        count += process->threads[t].fork_stacks.entries != NULL ? process->threads[t].fork_stacks.count : 0;
    w->forks = malloc((count + 1) * sizeof *w->forks);
    w->runtime = ompc_code_ranges_new();
    if (w->forks == NULL || w->runtime == NULL)
        return -1;
    for (int t = 0; t < process->thread_count; t++) {
        const struct ompc_model_stack_table *table = &process->threads[t].fork_stacks;
        for (size_t i = 0; table->entries != NULL && i < table->count; i++)
            w->forks[w->fork_count++] = &table->entries[i];
    }
    ompc_qsort(w->forks, w->fork_count, sizeof *w->forks, compare_fork_ids);
    for (uint32_t m = 0; m < process->module_count; m++) {
        const char *path = process->modules[m].path;
        if (ompc_model_vdso_module(path))
            w->vdso = process->modules[m].bias;
        if (ompc_runtime_module(path, process->runtime))
            ompc_code_ranges_add_file(w->runtime, ompc_model_module_file(process, path), process->symfs,
                                      process->modules[m].bias);
    }
    return 0;
}

/* Appends the frames of `stack` but the vDSO's (with `user`, the runtime's left out too) to the words; 1 when the room ran out, -1 without memory. */
static int add_frames(struct work *w, const struct ompc_model_stack *stack, size_t start, int user)
{
    for (int i = 0; i < stack->frames; i++) {
        /*
         * A clock read (omp_get_wtime, clock_gettime) in the vDSO, which has
         * no file the analyzer could name it from (ompc_stacks_build drops it
         * too): its caller is the leaf.
         */
        if (ompc_model_in_vdso(w->vdso, stack->pcs[i]))
            continue;
        if (user && ompc_code_ranges_contain(w->runtime, stack->pcs[i]))
            continue;
        if (w->out->word_count - start >= MAX_FRAMES)
            return 1;
        if (ompc_grow(&w->out->words, w->out->word_count + 1, &w->word_capacity, sizeof *w->out->words))
            return -1;
        w->out->words[w->out->word_count++] = stack->pcs[i];
    }
    return 0;
}

/*
 * The frames of a stack-table entry and of the fork stacks it continues
 * into (with `user`, the runtime's left out) into the words: where they
 * start, how many, and whether they were cut; -1 without memory.
 */
static int continued_frames(struct work *w, const struct ompc_model_stack *entry, int user, struct ompc_frames *out)
{
    size_t start = w->out->word_count;
    const struct ompc_model_stack *piece = entry;
    int cut = 0;
    for (int link = 0; piece != NULL && !cut; link++) {
        int full = add_frames(w, piece, start, user);
        if (full < 0)
            return -1;
        cut = full;
        if (piece->continuation == 0)
            break;
        struct ompc_model_stack key = {.id = piece->continuation};
        const struct ompc_model_stack *pointer = &key;
        const struct ompc_model_stack **found =
            ompc_bsearch(&pointer, w->forks, w->fork_count, sizeof *w->forks, compare_fork_ids);
        piece = found != NULL && link + 1 < MAX_LINKS ? *found : NULL;
        cut |= piece == NULL;
    }
    *out = (struct ompc_frames){start, (int)(w->out->word_count - start), cut};
    return 0;
}

/* A new frame of thread `t` in `state` for `entry` (NULL: the samples not in the table); its index, or -1 without memory. */
static long add_frame(struct work *w, int t, int state, const struct ompc_model_stack *entry)
{
    struct ompc_samples *out = w->out;
    if (ompc_grow(&out->frames, out->frame_count + 1, &w->frame_capacity, sizeof *out->frames))
        return -1;
    struct ompc_sample_frame *frame = &out->frames[out->frame_count];
    memset(frame, 0, sizeof *frame);
    frame->thread = t;
    frame->state = state;
    if (entry != NULL && (continued_frames(w, entry, 0, &frame->machine) != 0
                          || continued_frames(w, entry, 1, &frame->user) != 0))
        return -1;
    return (long)out->frame_count++;
}

/* A thread's sampled spans: their begins, ends and states (malloc'd, *count of them); -1 without memory. */
static int thread_spans(const struct ompc_report *report, int t, uint64_t **ends, int **states, size_t *count)
{
    uint64_t begin, end;
    int state;
    uint32_t n = 0;
    while (ompc_timeline_span(report, t, n, &begin, &end, &state))
        n++;
    *ends = malloc((2 * (size_t)n + 1) * sizeof **ends);
    *states = malloc(((size_t)n + 1) * sizeof **states);
    if (*ends == NULL || *states == NULL)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        ompc_timeline_span(report, t, i, &(*ends)[2 * i], &(*ends)[2 * i + 1], &(*states)[i]);
        if ((*ends)[2 * i + 1] < (*ends)[2 * i])
            (*ends)[2 * i + 1] = (*ends)[2 * i];
    }
    *count = n;
    return 0;
}

/* A thread's spans (begin, end of each, and its state) and the state whose samples are placed. */
struct placing {
    const uint64_t *ends;
    const int *states;
    size_t count;
    int state;
    int thread;
    uint64_t fallback;      /* the time of samples when the state has no span */
    uint64_t *line;         /* begin, end of the pieces a stack's samples are spread over */
    size_t line_count, line_capacity;
};

/* Adds [begin, end) to the line; -1 without memory. */
static int add_piece(struct placing *p, uint64_t begin, uint64_t end)
{
    if (end <= begin)
        return 0;
    if (ompc_grow(&p->line, 2 * (p->line_count + 1), &p->line_capacity, sizeof *p->line))
        return -1;
    p->line[2 * p->line_count] = begin;
    p->line[2 * p->line_count + 1] = end;
    p->line_count++;
    return 0;
}

/*
 * The line a stack's samples are spread over: the thread's spans of the
 * state, within the instances of `construct` the thread was sampled in
 * (0: all of them); its length, or -1 without memory.
 */
static int64_t make_line(const struct work *w, struct placing *p, uint32_t construct)
{
    uint64_t length = 0;
    p->line_count = 0;
    for (size_t i = 0; i < p->count; i++) {
        uint64_t begin = p->ends[2 * i], end = p->ends[2 * i + 1];
        if (p->states[i] != p->state)
            continue;
        if (construct == 0 && add_piece(p, begin, end) != 0)
            return -1;
        for (long r = construct != 0 ? ompc_region_after(&w->regions, begin) : w->regions.count;
             r < w->regions.count && w->regions.items[r].begin_ns < end; r++) {
            const struct ompc_region_instance *instance = &w->regions.items[r];
            if (w->instance_constructs[r] == construct && (w->instance_masks[r] & (UINT64_C(1) << (p->thread % 64)))
                && add_piece(p, begin > instance->begin_ns ? begin : instance->begin_ns,
                             end < instance->end_ns ? end : instance->end_ns) != 0)
                return -1;
        }
    }
    for (size_t i = 0; i < p->line_count; i++)
        length += p->line[2 * i + 1] - p->line[2 * i];
    return (int64_t)length;
}

/* Adds `n` samples of `frame`, each at the middle of its share of the line laid end to end (fallback: no line); -1 without memory. */
static int spread(struct work *w, struct placing *p, uint64_t length, long frame, uint64_t n)
{
    struct ompc_samples *out = w->out;
    if (ompc_grow(&out->samples, out->sample_count + n, &w->sample_capacity, sizeof *out->samples))
        return -1;
    size_t piece = 0;
    uint64_t before = 0;
    for (uint64_t k = 0; k < n; k++) {
        uint64_t at = (uint64_t)(((unsigned __int128)(2 * k + 1) * length) / (2 * n)), ns = p->fallback;
        for (; length != 0 && piece < p->line_count; piece++) {
            uint64_t size = p->line[2 * piece + 1] - p->line[2 * piece];
            if (at < before + size) {
                ns = p->line[2 * piece] + (at - before);
                break;
            }
            before += size;
        }
        out->samples[out->sample_count++] = (struct ompc_sample){ns, (uint32_t)frame, p->thread};
    }
    out->untimed += length == 0 ? n : 0;
    return 0;
}

/* The row + 1 of the parallel construct whose call to the runtime (its codeptr) is one of a frame's recorded frames (its own or its forking threads'); 0: none. */
static uint32_t frame_construct(const struct work *w, long frame)
{
    const struct ompc_model_process *process = w->process;
    const struct ompc_frames *machine = &w->out->frames[frame].machine;
    for (int i = 0; i < machine->count; i++)
        for (uint32_t c = 0; c < process->construct_count; c++)
            if (process->constructs[c].codeptr != 0 && w->out->words[machine->at + i] == process->constructs[c].codeptr)
                return c + 1;
    return 0;
}

/* `n` samples of `frame` over the state's spans in its construct's instances, or over all its spans when it names none or they hold none. */
static int place_frame(struct work *w, struct placing *p, long frame, uint64_t n)
{
    uint32_t construct = frame_construct(w, frame);
    int64_t length = make_line(w, p, construct);
    if (length == 0 && construct != 0)
        length = make_line(w, p, 0);
    return length < 0 ? -1 : spread(w, p, (uint64_t)length, frame, n);
}

/* The samples of thread `t` in `p->state`: the table's entries of that state in order, then those it did not keep. */
static int state_samples(struct work *w, struct placing *p, int t)
{
    const struct ompc_model_stack_table *table = &w->process->threads[t].stacks;
    uint64_t n = w->process->threads[t].state_ticks[p->state], given = 0;
    for (size_t i = 0; table->entries != NULL && i < table->count && given < n; i++) {
        const struct ompc_model_stack *entry = &table->entries[i];
        if (entry->state != p->state || entry->count == 0)
            continue;
        uint64_t count = entry->count < n - given ? entry->count : n - given;
        long frame = add_frame(w, t, p->state, entry);
        if (frame < 0 || place_frame(w, p, frame, count) != 0)
            return -1;
        given += count;
    }
    if (given < n) {
        long frame = add_frame(w, t, p->state, NULL);
        if (frame < 0 || place_frame(w, p, frame, n - given) != 0)
            return -1;
    }
    return 0;
}

/* Every sample of thread slot `t`; -1 without memory. */
static int thread_samples(struct work *w, const struct ompc_report *report, int t)
{
    const struct ompc_model_thread *thread = &w->process->threads[t];
    struct placing p;
    memset(&p, 0, sizeof p);
    uint64_t *ends = NULL;
    int *states = NULL;
    int failed = thread_spans(report, t, &ends, &states, &p.count) != 0;
    p.ends = ends;
    p.states = states;
    p.thread = t;
    p.fallback = thread->last_sample_ns != 0 ? thread->last_sample_ns : thread->start_ns;
    for (int state = 1; state < OMPC_NSTATES && !failed; state++) {
        p.state = state;
        if (thread->state_ticks[state] != 0)
            failed = state_samples(w, &p, t) != 0;
    }
    free(ends);
    free(states);
    free(p.line);
    return failed ? -1 : 0;
}

/* Thread `t` enters `construct` (1 + its row, 0: leaves for serial code) at `ns`; -1 without memory. */
static int add_entry(struct work *w, uint64_t ns, int t, uint32_t construct)
{
    struct ompc_samples *out = w->out;
    if (ompc_grow(&out->entries, out->entry_count + 1, &w->entry_capacity, sizeof *out->entries))
        return -1;
    out->entries[out->entry_count++] = (struct ompc_construct_entry){ns, t, construct};
    return 0;
}

/* The row + 1 of the construct at `codeptr`, and the threads sampled in region `id` (all when unknown). */
static uint32_t construct_of(const struct ompc_model_process *process, const struct ompc_region_instance *instance,
                             uint64_t *mask)
{
    *mask = ~UINT64_C(0);
    for (uint32_t r = 0; r < process->region_count; r++)
        if (instance->id != 0 && process->regions[r].id == instance->id && process->regions[r].thread_mask != 0)
            *mask = process->regions[r].thread_mask;
    for (uint32_t c = 0; instance->codeptr != 0 && c < process->construct_count; c++)
        if (process->constructs[c].codeptr == instance->codeptr)
            return c + 1;
    return 0;
}

static int compare_entries(const void *a, const void *b)
{
    const struct ompc_construct_entry *x = a, *y = b;
    if (x->thread != y->thread)
        return (x->thread > y->thread) - (x->thread < y->thread);
    return (x->ns > y->ns) - (x->ns < y->ns);
}

/* The top-level region instances and their constructs; -1 without memory. */
static int find_instances(struct work *w, const struct ompc_report *report)
{
    if (ompc_regions_find(report, &w->regions) != 0)
        return -1;
    size_t count = (size_t)w->regions.count;
    w->instance_constructs = malloc((count + 1) * sizeof *w->instance_constructs);
    w->instance_masks = malloc((count + 1) * sizeof *w->instance_masks);
    if (w->instance_constructs == NULL || w->instance_masks == NULL)
        return -1;
    for (size_t i = 0; i < count; i++)
        w->instance_constructs[i] = construct_of(w->process, &w->regions.items[i], &w->instance_masks[i]);
    return 0;
}

/* Each thread sampled in a top-level region instance enters its construct at its begin and leaves at its end. */
static int construct_entries(struct work *w)
{
    int failed = 0;
    for (long i = 0; i < w->regions.count && !failed; i++)
        for (int t = 0; t < w->process->thread_count && !failed; t++)
            if (w->instance_masks[i] & (UINT64_C(1) << (t % 64)))
                failed = add_entry(w, w->regions.items[i].begin_ns, t, w->instance_constructs[i]) != 0
                      || add_entry(w, w->regions.items[i].end_ns, t, 0) != 0;
    if (!failed)
        ompc_qsort(w->out->entries, w->out->entry_count, sizeof *w->out->entries, compare_entries);
    return failed ? -1 : 0;
}

struct ompc_samples *ompc_samples_build(const struct ompc_report *report)
{
    struct work w;
    memset(&w, 0, sizeof w);
    w.process = report->process;
    w.out = calloc(1, sizeof *w.out);
    int failed = w.out == NULL || index_process(&w) != 0 || find_instances(&w, report) != 0;
    for (int t = 0; !failed && t < w.process->thread_count; t++)
        failed = thread_samples(&w, report, t) != 0;
    if (!failed)
        failed = construct_entries(&w) != 0;
    free(w.regions.items);
    free(w.instance_constructs);
    free(w.instance_masks);
    free(w.forks);
    ompc_code_ranges_free(w.runtime);
    if (failed) {
        ompc_samples_free(w.out);
        return NULL;
    }
    return w.out;
}

void ompc_samples_free(struct ompc_samples *samples)
{
    if (samples == NULL)
        return;
    free(samples->frames);
    free(samples->samples);
    free(samples->entries);
    free(samples->words);
    free(samples);
}
