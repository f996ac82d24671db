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
#define MAX_USER_FRAMES 2048

/* What a build works with. */
struct work {
    const struct ompc_model_process *process;
    struct ompc_samples *out;
    size_t frame_capacity, sample_capacity, entry_capacity, user_capacity;
    const struct ompc_model_stack **forks; /* every thread's fork-stack entries, by id */
    size_t fork_count;
    struct ompc_code_ranges *runtime;      /* the runtime's, the shim's and the agent's code */
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
        uint64_t bias = process->modules[m].bias;
        /* A clock read (omp_get_wtime, clock_gettime) is no call of the user's either: ompc_stacks_build drops it too. */
        if (ompc_model_vdso_module(path) && ompc_code_ranges_add(w->runtime, bias, bias + OMPC_VDSO_SIZE) != 0)
            return -1;
        if (ompc_runtime_module(path, process->runtime))
            ompc_code_ranges_add_file(w->runtime, ompc_model_module_file(process, path), process->symfs,
                                      process->modules[m].bias);
    }
    return 0;
}

/* Appends the frames of `stack` that are not the runtime's to the user words; 1 when the room ran out, -1 without memory. */
static int add_user_frames(struct work *w, const struct ompc_model_stack *stack, size_t start)
{
    for (int i = 0; i < stack->frames; i++) {
        if (ompc_code_ranges_contain(w->runtime, stack->pcs[i]))
            continue;
        if (w->out->user_count - start >= MAX_USER_FRAMES)
            return 1;
        if (ompc_grow(&w->out->user_words, w->out->user_count + 1, &w->user_capacity, sizeof *w->out->user_words))
            return -1;
        w->out->user_words[w->out->user_count++] = stack->pcs[i];
    }
    return 0;
}

/* The user-model frames of a stack-table entry into `frame`: its own and its forking threads', runtime frames left out; -1 without memory. */
static int user_frames(struct work *w, const struct ompc_model_stack *entry, struct ompc_sample_frame *frame)
{
    size_t start = w->out->user_count;
    const struct ompc_model_stack *piece = entry;
    int cut = 0;
    for (int link = 0; piece != NULL && !cut; link++) {
        int full = add_user_frames(w, piece, start);
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
    frame->user_at = start;
    frame->user_frames = (int)(w->out->user_count - start);
    frame->user_cut = cut;
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
    frame->user_at = out->user_count;
    if (entry != NULL) {
        frame->pcs = entry->pcs;
        frame->frames = entry->frames;
        if (user_frames(w, entry, frame) != 0)
            return -1;
    }
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

/* A thread's spans, and where the `k`th of `n` samples of one state lies along them. */
struct placing {
    const uint64_t *ends;   /* begin, end of each span */
    const int *states;
    size_t count;
    int state;
    uint64_t length;        /* of the state's spans together */
    size_t span;            /* the cursor: the span, and the length of the state's spans before it */
    uint64_t before;
    uint64_t fallback;      /* the time of samples when the state has no span */
};

/* The time of the `k`th of `n` samples: the middle of its share of the state's spans laid end to end (k rises). */
static uint64_t place(struct placing *p, uint64_t k, uint64_t n)
{
    if (p->length == 0)
        return p->fallback;
    uint64_t at = (uint64_t)(((unsigned __int128)(2 * k + 1) * p->length) / (2 * n));
    for (; p->span < p->count; p->span++) {
        if (p->states[p->span] != p->state)
            continue;
        uint64_t length = p->ends[2 * p->span + 1] - p->ends[2 * p->span];
        if (at < p->before + length)
            return p->ends[2 * p->span] + (at - p->before);
        p->before += length;
    }
    return p->fallback;
}

/* The row + 1 of the parallel construct whose call to the runtime (its codeptr) is a frame of `entry`'s stack or the stacks it continues into; 0: none. */
static uint32_t entry_construct(const struct work *w, const struct ompc_model_stack *entry)
{
    const struct ompc_model_process *process = w->process;
    const struct ompc_model_stack *piece = entry;
    for (int link = 0; piece != NULL && link < MAX_LINKS; link++) {
        for (int i = 0; i < piece->frames; i++)
            for (uint32_t c = 0; c < process->construct_count; c++)
                if (process->constructs[c].codeptr != 0 && piece->pcs[i] == process->constructs[c].codeptr)
                    return c + 1;
        if (piece->continuation == 0)
            break;
        struct ompc_model_stack key = {.id = piece->continuation};
        const struct ompc_model_stack *pointer = &key;
        const struct ompc_model_stack **found =
            ompc_bsearch(&pointer, w->forks, w->fork_count, sizeof *w->forks, compare_fork_ids);
        piece = found != NULL ? *found : NULL;
    }
    return 0;
}

/* The construct (row + 1, 0: none) of the top-level region instance thread `t`'s time `ns` falls in. */
static uint32_t construct_at(const struct work *w, uint64_t ns)
{
    long at = ompc_region_at(&w->regions, ns);
    return at >= 0 ? w->instance_constructs[at] : 0;
}

/* One stack-table entry of a thread's state while its samples are given times. */
struct owner {
    long frame;
    uint32_t construct;
    uint64_t left;
};

/*
 * Gives the slots (times) of one thread's state to their stacks: an
 * entry whose stack holds a construct's call takes free slots inside that
 * construct's instances first, then any entry any free slot, in order.
 */
static void give_slots(struct owner *owners, size_t owner_count, const uint32_t *constructs, long *slots, uint64_t n)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t e = 0; e < owner_count; e++)
            for (uint64_t k = 0; k < n && owners[e].left > 0; k++)
                if (slots[k] < 0 && (pass == 1 || (owners[e].construct != 0 && constructs[k] == owners[e].construct))) {
                    slots[k] = owners[e].frame;
                    owners[e].left--;
                }
}

/* The entries of thread `t`'s table in `p->state`, as owners of at most `n` slots; their count, or -1 without memory. */
static long state_owners(struct work *w, int t, int state, uint64_t n, struct owner **owners)
{
    const struct ompc_model_stack_table *table = &w->process->threads[t].stacks;
    size_t count = 0, capacity = 0;
    uint64_t given = 0;
    *owners = NULL;
    for (size_t i = 0; table->entries != NULL && i < table->count && given < n; i++) {
        const struct ompc_model_stack *entry = &table->entries[i];
        if (entry->state != state || entry->count == 0)
            continue;
        long frame = add_frame(w, t, state, entry);
        if (frame < 0 || ompc_grow(owners, count + 1, &capacity, sizeof **owners))
            return -1;
        uint64_t left = entry->count < n - given ? entry->count : n - given;
        (*owners)[count++] = (struct owner){frame, entry_construct(w, entry), left};
        given += left;
    }
    if (given < n) {
        long frame = add_frame(w, t, state, NULL);
        if (frame < 0 || ompc_grow(owners, count + 1, &capacity, sizeof **owners))
            return -1;
        (*owners)[count++] = (struct owner){frame, 0, n - given};
    }
    return (long)count;
}

/* The samples of thread `t` in `p->state`: their times along the state's spans, each given to a stack. */
static int state_samples(struct work *w, struct placing *p, int t)
{
    uint64_t n = w->process->threads[t].state_ticks[p->state];
    p->length = p->before = 0;
    p->span = 0;
    for (size_t i = 0; i < p->count; i++)
        if (p->states[i] == p->state)
            p->length += p->ends[2 * i + 1] - p->ends[2 * i];
    struct owner *owners = NULL;
    uint64_t *times = malloc(n * sizeof *times);
    uint32_t *constructs = malloc(n * sizeof *constructs);
    long *slots = malloc(n * sizeof *slots);
    struct ompc_samples *out = w->out;
    long owner_count = times != NULL && constructs != NULL && slots != NULL ? state_owners(w, t, p->state, n, &owners) : -1;
    int failed = owner_count < 0 || ompc_grow(&out->samples, out->sample_count + n, &w->sample_capacity, sizeof *out->samples);
    if (!failed) {
        for (uint64_t k = 0; k < n; k++) {
            times[k] = place(p, k, n);
            constructs[k] = construct_at(w, times[k]);
            slots[k] = -1;
        }
        give_slots(owners, (size_t)owner_count, constructs, slots, n);
        for (uint64_t k = 0; k < n; k++)
            out->samples[out->sample_count++] = (struct ompc_sample){times[k], (uint32_t)slots[k], t};
        out->untimed += p->length == 0 ? n : 0;
    }
    free(owners);
    free(times);
    free(constructs);
    free(slots);
    return failed ? -1 : 0;
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
    p.fallback = thread->last_sample_ns != 0 ? thread->last_sample_ns : thread->start_ns;
    for (int state = 1; state < OMPC_NSTATES && !failed; state++) {
        p.state = state;
        if (thread->state_ticks[state] != 0)
            failed = state_samples(w, &p, t) != 0;
    }
    free(ends);
    free(states);
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
    free(samples->user_words);
    free(samples);
}
