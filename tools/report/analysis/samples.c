/* samples.c - spreads a process's counted samples back out one by one (samples.h): per thread and state over the thread's sampled spans of that state, each with a stack-table entry's frames and their user-model continuation, and the threads' entries into the top-level parallel constructs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "coderanges.h"
#include "grow.h"
#include "samples.h"
#include "sort.h"
#include "spans.h"
#include "stacks.h"
#include "unwind.h"

#include <stdlib.h>
#include <string.h>

/* Continuations followed per stack, and the user-model frames kept (a longer stack is cut at its root). */
#define MAX_LINKS 64
#define MAX_FRAMES 2048

/* What a build works with. */
struct work {
    const struct ompc_model_process *process;
    struct ompc_samples *out;
    size_t frame_capacity, sample_capacity, entry_capacity, word_capacity, task_entry_capacity;
    int tasks_known;                       /* some thread's stacks say which task construct they ran in */
    const struct ompc_model_stack **forks; /* every thread's fork-stack entries, by id */
    size_t fork_count;
    struct ompc_code_ranges *runtime;      /* the runtime's, the shim's and the agent's code */
    uint64_t vdso;                         /* the vDSO's load address, 0 unknown */
    struct ompc_regions regions;           /* the top-level region instances, in time order */
    uint32_t *instance_constructs;         /* per instance: its construct's row + 1, 0 unknown */
    uint64_t *instance_masks;              /* per instance: the threads sampled in it (slot % 64) */
    struct ompc_unwinder *unwinder;        /* --stacks-unwind=dwarf: made at the first stack copy */
    uint64_t *unwound;                     /* MAX_FRAMES words: a copy's frames */
};

/* A sample's own frames: a stack-table entry's frame-pointer walk, or a stack copy's CFI unwinding of the same sample. */
struct own_frames {
    const uint64_t *pcs;
    int count;
    int cut;                               /* the CFI unwinding stopped before the stack's outermost frame */
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

/* Appends `count` frames but the vDSO's (with `user`, the runtime's left out too) to the words; 1 when the room ran out, -1 without memory. */
static int add_frames(struct work *w, const uint64_t *pcs, int count, size_t start, int user)
{
    for (int i = 0; i < count; i++) {
        /*
         * A clock read (omp_get_wtime, clock_gettime) in the vDSO, which has
         * no file the analyzer could name it from (ompc_stacks_build drops it
         * too): its caller is the leaf.
         */
        if (ompc_model_in_vdso(w->vdso, pcs[i]))
            continue;
        if (user && ompc_code_ranges_contain(w->runtime, pcs[i]))
            continue;
        if (w->out->word_count - start >= MAX_FRAMES)
            return 1;
        if (ompc_grow(&w->out->words, w->out->word_count + 1, &w->word_capacity, sizeof *w->out->words))
            return -1;
        w->out->words[w->out->word_count++] = pcs[i];
    }
    return 0;
}

/*
 * A sample's own frames (`own`) and those of the fork stacks its
 * stack-table entry continues into (with `user`, the runtime's left out)
 * into the words: where they start, how many, and whether they were cut;
 * -1 without memory.
 */
static int continued_frames(struct work *w, const struct ompc_model_stack *entry, const struct own_frames *own,
                            int user, struct ompc_frames *out)
{
    size_t start = w->out->word_count;
    const struct ompc_model_stack *piece = entry;
    int cut = 0;
    for (int link = 0; piece != NULL && !cut; link++) {
        int full = link == 0 ? add_frames(w, own->pcs, own->count, start, user)
                             : add_frames(w, piece->pcs, piece->frames, start, user);
        if (full < 0)
            return -1;
        /* An unwinding that stopped short does not reach where the stack goes on in the forking thread's. */
        cut = full || (link == 0 && own->cut);
        if (cut || piece->continuation == 0)
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

/* A new frame of thread `t` in `state` for `entry` (NULL: the samples not in the table) with its own frames `own`; its index, or -1 without memory. */
static long add_frame(struct work *w, int t, int state, const struct ompc_model_stack *entry,
                      const struct own_frames *own)
{
    struct ompc_samples *out = w->out;
    if (ompc_grow(&out->frames, out->frame_count + 1, &w->frame_capacity, sizeof *out->frames))
        return -1;
    struct ompc_sample_frame *frame = &out->frames[out->frame_count];
    memset(frame, 0, sizeof *frame);
    frame->thread = t;
    frame->state = state;
    if (entry != NULL && (continued_frames(w, entry, own, 0, &frame->machine) != 0
                          || continued_frames(w, entry, own, 1, &frame->user) != 0))
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

/* Copies by the entry each is of (to find them)... */
static int compare_copy_entries(const void *a, const void *b)
{
    const struct ompc_model_stack_copy *x = *(const struct ompc_model_stack_copy *const *)a;
    const struct ompc_model_stack_copy *y = *(const struct ompc_model_stack_copy *const *)b;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

/* ... then in the record's order, as ompc_stacks_build meets them (to sort them). */
static int compare_copies(const void *a, const void *b)
{
    const struct ompc_model_stack_copy *x = *(const struct ompc_model_stack_copy *const *)a;
    const struct ompc_model_stack_copy *y = *(const struct ompc_model_stack_copy *const *)b;
    int by_entry = compare_copy_entries(a, b);
    return by_entry != 0 ? by_entry : (x > y) - (x < y);
}

/*
 * A stack copy's frames unwound by CFI, as ompc_stacks_build takes them
 * (the report's stacks and the experiment's are then the same): cut when
 * the unwinding stopped short, unless the stack goes on in the forking
 * thread's, where the copy ends by design.  -1 without memory.
 */
static int unwound_frames(struct work *w, const struct ompc_model_stack *entry, const struct ompc_model_stack_copy *copy,
                          struct own_frames *own)
{
    if (w->unwound == NULL && (w->unwound = malloc(MAX_FRAMES * sizeof *w->unwound)) == NULL)
        return -1;
    if (w->unwinder == NULL)
        w->unwinder = ompc_unwinder_new(w->process);
    enum ompc_unwind_end end = OMPC_UNWIND_NONE;
    int count = w->unwinder != NULL ? ompc_unwind(w->unwinder, copy, w->unwound, MAX_FRAMES, &end) : 0;
    if (entry->continuation != 0 && end == OMPC_UNWIND_SLICE)
        end = OMPC_UNWIND_WHOLE;
    *own = (struct own_frames){w->unwound, count, end != OMPC_UNWIND_WHOLE};
    return 0;
}

/* An entry's samples by task construct: the model's task stacks of the entry, each with the samples still to give. */
struct task_pool {
    const struct ompc_model_task_stack *rows;
    size_t count, at;
    uint64_t left;          /* of rows[at] */
};

static int compare_task_stack_entries(const void *a, const void *b)
{
    const struct ompc_model_task_stack *x = a, *y = b;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

/* The task stacks of `entry` in thread `t`'s (sorted by entry). */
static struct task_pool task_pool(const struct ompc_model_thread *thread, uint64_t entry)
{
    struct task_pool pool = {NULL, 0, 0, 0};
    struct ompc_model_task_stack key = {.entry = entry};
    const struct ompc_model_task_stack *found =
        thread->task_stacks != NULL ? ompc_bsearch(&key, thread->task_stacks, thread->task_stack_count,
                                                   sizeof key, compare_task_stack_entries) : NULL;
    if (found == NULL)
        return pool;
    while (found > thread->task_stacks && found[-1].entry == entry)
        found--;
    pool.rows = found;
    while (pool.count < (size_t)(thread->task_stacks + thread->task_stack_count - found) && found[pool.count].entry == entry)
        pool.count++;
    pool.left = found[0].count;
    return pool;
}

/* 1 + the row of the task construct at `codeptr` in the process's, 0 none. */
static uint32_t task_row(const struct ompc_model_process *process, uint64_t codeptr)
{
    for (uint32_t r = 0; r < process->task_construct_count; r++)
        if (process->task_constructs[r].codeptr == codeptr)
            return r + 1;
    return 0;
}

/*
 * `n` samples with the frames `own` of `entry`: as many as the pool still
 * has in a task construct's tasks in a frame of that construct each, the
 * rest in a frame of no task.  -1 without memory.
 */
static int give_samples(struct work *w, struct placing *p, const struct ompc_model_stack *entry,
                        const struct own_frames *own, struct task_pool *pool, uint64_t n)
{
    while (n > 0) {
        while (pool->at < pool->count && pool->left == 0 && ++pool->at < pool->count)
            pool->left = pool->rows[pool->at].count;
        int in_task = pool->at < pool->count && pool->left > 0;
        uint64_t count = in_task && pool->left < n ? pool->left : n;
        long frame = add_frame(w, p->thread, p->state, entry, own);
        if (frame < 0)
            return -1;
        w->out->frames[frame].task = in_task ? task_row(w->process, pool->rows[pool->at].codeptr) : 0;
        if (place_frame(w, p, frame, count) != 0)
            return -1;
        if (in_task)
            pool->left -= count;
        n -= count;
    }
    return 0;
}

/*
 * `n` of an entry's samples: those its stack copies stand for (sorted by
 * entry, `copies` of them) with their CFI frames, the rest with the
 * frame-pointer walk's; how many were given, or -1 without memory.
 */
static int64_t entry_samples(struct work *w, struct placing *p, int t, const struct ompc_model_stack *entry,
                             const struct ompc_model_stack_copy *const *copies, size_t copy_count, uint64_t n)
{
    uint64_t left = n;
    struct task_pool pool = task_pool(&w->process->threads[t], entry->id);
    struct ompc_model_stack_copy key = {.entry = entry->id};
    const struct ompc_model_stack_copy *pointer = &key;
    const struct ompc_model_stack_copy *const *found =
        ompc_bsearch(&pointer, copies, copy_count, sizeof *copies, compare_copy_entries);
    size_t first = found != NULL ? (size_t)(found - copies) : copy_count;
    while (first > 0 && copies[first - 1]->entry == entry->id)
        first--;
    for (size_t c = first; c < copy_count && copies[c]->entry == entry->id && left > 0; c++) {
        uint64_t count = copies[c]->count < left ? copies[c]->count : left;
        struct own_frames own;
        if (copies[c]->state != p->state || count == 0)
            continue;
        if (unwound_frames(w, entry, copies[c], &own) != 0 || give_samples(w, p, entry, &own, &pool, count) != 0)
            return -1;
        left -= count;
    }
    struct own_frames walked = {entry->pcs, entry->frames, 0};
    if (give_samples(w, p, entry, &walked, &pool, left) != 0)
        return -1;
    return (int64_t)n;
}

/* The samples of thread `t` in `p->state`: the table's entries of that state in order, then those it did not keep. */
static int state_samples(struct work *w, struct placing *p, int t, const struct ompc_model_stack_copy *const *copies,
                         size_t copy_count)
{
    const struct ompc_model_stack_table *table = &w->process->threads[t].stacks;
    uint64_t n = w->process->threads[t].state_ticks[p->state], given = 0;
    for (size_t i = 0; table->entries != NULL && i < table->count && given < n; i++) {
        const struct ompc_model_stack *entry = &table->entries[i];
        if (entry->state != p->state || entry->count == 0)
            continue;
        uint64_t count = entry->count < n - given ? entry->count : n - given;
        if (entry_samples(w, p, t, entry, copies, copy_count, count) < 0)
            return -1;
        given += count;
    }
    if (given < n) {
        struct own_frames none = {NULL, 0, 0};
        long frame = add_frame(w, t, p->state, NULL, &none);
        if (frame < 0 || place_frame(w, p, frame, n - given) != 0)
            return -1;
    }
    return 0;
}

/* A thread's stack copies (--stacks-unwind=dwarf) sorted by the entry each is of; NULL (count 0) when none, -1 without memory. */
static int sorted_copies(const struct ompc_model_thread *thread, const struct ompc_model_stack_copy ***copies)
{
    *copies = NULL;
    if (thread->copies == NULL || thread->copy_count == 0)
        return 0;
    if ((*copies = malloc(thread->copy_count * sizeof **copies)) == NULL)
        return -1;
    for (size_t i = 0; i < thread->copy_count; i++)
        (*copies)[i] = &thread->copies[i];
    ompc_qsort(*copies, thread->copy_count, sizeof **copies, compare_copies);
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
    const struct ompc_model_stack_copy **copies = NULL;
    failed = failed || sorted_copies(thread, &copies) != 0;
    for (int state = 1; state < OMPC_NSTATES && !failed; state++) {
        p.state = state;
        if (thread->state_ticks[state] != 0)
            failed = state_samples(w, &p, t, copies, copies != NULL ? thread->copy_count : 0) != 0;
    }
    free(copies);
    free(ends);
    free(states);
    free(p.line);
    return failed ? -1 : 0;
}

static int compare_sample_times(const void *a, const void *b)
{
    const struct ompc_sample *x = a, *y = b;
    if (x->ns != y->ns)
        return (x->ns > y->ns) - (x->ns < y->ns);
    return (x->frame > y->frame) - (x->frame < y->frame);
}

/*
 * Thread samples [first, end) in time order, each at a time of its own (a
 * sample placed at another's time moves on by a nanosecond: the analyzer
 * finds a sample's task by its thread and time), and an entry where the
 * task changes; -1 without memory.
 */
static int task_entries(struct work *w, size_t first, int t)
{
    struct ompc_samples *out = w->out;
    struct ompc_sample *samples = out->samples + first;
    size_t count = out->sample_count - first;
    uint32_t task = 0;
    ompc_qsort(samples, count, sizeof *samples, compare_sample_times);
    for (size_t i = 0; i < count; i++) {
        if (i > 0 && samples[i].ns <= samples[i - 1].ns)
            samples[i].ns = samples[i - 1].ns + 1;
        uint32_t now = out->frames[samples[i].frame].task;
        if (now == task)
            continue;
        if (ompc_grow(&out->task_entries, out->task_entry_count + 1, &w->task_entry_capacity,
                      sizeof *out->task_entries))
            return -1;
        out->task_entries[out->task_entry_count++] = (struct ompc_task_entry){samples[i].ns, t, now};
        task = now;
    }
    return 0;
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
    for (int t = 0; t < w.process->thread_count; t++)
        w.tasks_known |= w.process->threads[t].task_stack_count > 0;
    for (int t = 0; !failed && t < w.process->thread_count; t++) {
        size_t first = w.out->sample_count;
        failed = thread_samples(&w, report, t) != 0 || (w.tasks_known && task_entries(&w, first, t) != 0);
    }
    if (!failed)
        failed = construct_entries(&w) != 0;
    free(w.regions.items);
    free(w.instance_constructs);
    free(w.instance_masks);
    free(w.forks);
    free(w.unwound);
    ompc_unwinder_free(w.unwinder);
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
    free(samples->task_entries);
    free(samples->words);
    free(samples);
}
