/* stacks.c - turns the stack tables of --stacks into user-model call paths in the launcher after the program ended: continues workers' stacks into their forking threads', drops runtime and collector frames, symbolizes, and writes folded stacks, a call tree per state and JSON. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "coderanges.h"
#include "demangle.h"
#include "grow.h"
#include "names.h"
#include "paths.h"
#include "sort.h"
#include "stacks.h"
#include "symbolize.h"
#include "unwind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Continuations followed per stack; a longer chain (or a loop) ends with a marker. */
#define MAX_LINKS 64
/* Frames a stack copy's unwinding may give; a deeper stack keeps its innermost and outermost, as the agent's walk does. */
#define MAX_UNWIND 4096
#define HEAD (OMPC_STACK_DEPTH / 2)
#define TAIL (OMPC_STACK_DEPTH - HEAD)

/* One entry of a stack table, parsed. */
struct entry {
    uint64_t offset;        /* in the mapping: what continuations name */
    uint64_t count;
    int state, flags, frames;
    uint64_t continuation, elided;
    const uint64_t *pcs;    /* into the model's copy of the table, or the loaded unwound frames */
    int by_cfi;             /* the frames come from a stack copy's CFI unwinding */
    enum ompc_unwind_end end; /* why that unwinding stopped */
};

/* Everything parsed, before it becomes paths. */
struct loaded {
    struct entry *samples, *forks;
    size_t sample_count, fork_count;
    size_t sample_capacity, fork_capacity;
    struct entry *copies;   /* the stack copies, unwound, until they join the samples */
    size_t copy_count, copy_capacity;
    uint64_t *unwound;      /* their frames, OMPC_STACK_DEPTH per copy */
    size_t unwound_capacity;
};

/* A symbolized address: the name the paths use, and whether the frame is the runtime's or the collector's. */
struct symbol {
    uint64_t key;           /* address << 1 | is_return */
    char *name;
    int drop;
    int collector;          /* the shim's or the agent's: what it called is not the user's either */
    int runtime;            /* the runtime's, the shim's or the agent's */
    int system;             /* the C library's or the loader's: the user's when the user called it */
    int not_code;           /* in no module's code: a data word a frame-pointer walk took for a return address */
    int start;              /* the C library's program or thread start: a walk that got here was whole */
};

/* Open-addressing cache of symbols. */
struct symbols {
    struct ompc_symbolizer *symbolizer;
    uint64_t vdso;          /* the kernel's vDSO's load address (it has no file to read), 0 unknown */
    const char *runtime;    /* the runtime's path as the loader opened it */
    struct symbol *slots;
    size_t capacity, used;
    struct ompc_code_ranges *code; /* every module's code, NULL when not all of it is known: nothing is cut */
};

/* The entries of one of a thread's tables (the model owns them), samples or fork stacks. */
static int take_table(const struct ompc_model_stack_table *table, int forks, struct loaded *loaded)
{
    for (size_t i = 0; i < table->count; i++) {
        const struct ompc_model_stack *from = &table->entries[i];
        struct entry item = {from->id, from->count, from->state, from->flags, from->frames, from->continuation,
                             from->elided, from->pcs, 0, OMPC_UNWIND_WHOLE};
        struct entry **list = forks ? &loaded->forks : &loaded->samples;
        size_t *count = forks ? &loaded->fork_count : &loaded->sample_count;
        size_t *capacity = forks ? &loaded->fork_capacity : &loaded->sample_capacity;
        if (ompc_grow(list, *count + 1, capacity, sizeof **list) != 0)
            return -1;
        (*list)[(*count)++] = item;
    }
    return 0;
}

static int compare_offsets(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Whether a module is the collector's own (the shim or the agent). */
static int collector_module(const char *path)
{
    if (path == NULL)
        return 0;
    const char *base = ompc_base_name(path, "?");
    return strncmp(base, "libompcollector.so", 18) == 0 || strncmp(base, "libompcollect-agent.so", 22) == 0;
}

/* Whether a module is the C library or the loader, which the runtime calls too (sched_yield, futex waits). */
static int system_module(const char *path)
{
    static const char *const prefixes[] = {"libc.so", "libpthread.so", "ld-linux"};
    const char *base = ompc_base_name(path, "");
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

int ompc_runtime_module(const char *path, const char *runtime)
{
    /* libompcollect-runtime.so: the launcher's link to the LLVM runtime, in its private directory. */
    static const char *const prefixes[] = {"libomp.so", "libgomp.so", "libiomp5.so", "libompcollector.so",
                                           "libompcollect-agent.so", "libompcollect-runtime.so"};
    if (path == NULL)
        return 0;
    if (runtime != NULL && runtime[0] != '\0' && strcmp(path, runtime) == 0)
        return 1;
    const char *base = ompc_base_name(path, "?");
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* Whether a function is the C library's thread or program start, which is plumbing, not the user's call path. */
static int plumbing(const char *function)
{
    static const char *const names[] = {"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
                                        "clone", "clone3", "__clone", "__clone3"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(function, names[i]) == 0)
            return 1;
    return 0;
}

/* A copy of `text` fit for a folded line: no ';' (the separator) and no line breaks. */
static char *frame_name(const char *text)
{
    char *name = strdup(text);
    for (char *c = name; c != NULL && *c; c++)
        if (*c == ';' || *c == '\n' || *c == '\r')
            *c = *c == ';' ? ':' : ' ';
    return name;
}

/* One function's frame name: demangled without parameters (as perf's folded stacks have them), no ';' or line break. */
static void put_frame(const char *function, char *text, size_t size, size_t *used)
{
    char name[512];
    ompc_short_name(function != NULL ? function : "?", OMPC_SHORT_PARAMETERS, name, sizeof name);
    for (char *c = name; *c; c++)
        if (*c == ';' || *c == '\n' || *c == '\r')
            *c = *c == ';' ? ':' : ' ';
    int wrote = snprintf(text + *used, size - *used, "%s%s", *used ? ";" : "", name);
    if (wrote > 0)
        *used = *used + (size_t)wrote < size ? *used + (size_t)wrote : size - 1;
}

/* The frames of one address, outermost first and joined by ';': the functions inlined code was inlined into become frames. */
static void inline_frames(const struct ompc_location *where, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int i = where->caller_count; i-- > 0;)
        put_frame(where->callers[i].function, text, size, &used);
    put_frame(where->function, text, size, &used);
}

/* Whether a frame name (several when inlined, outermost first) starts in main. */
static int in_main(const char *name)
{
    return strncmp(name, "main", 4) == 0 && (name[4] == '\0' || name[4] == ';');
}

/* The cached symbol of an address, looked up on first use; NULL when memory runs out. */
static const struct symbol *symbol_of(struct symbols *symbols, uint64_t address, int is_return)
{
    if (symbols->used * 2 >= symbols->capacity) {
        size_t capacity = symbols->capacity ? 2 * symbols->capacity : 1024;
        struct symbol *slots = calloc(capacity, sizeof *slots);
        if (slots == NULL)
            return NULL;
        for (size_t i = 0; i < symbols->capacity; i++) {
            if (symbols->slots[i].name == NULL)
                continue;
            size_t at = (size_t)(symbols->slots[i].key * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (capacity - 1);
            while (slots[at].name != NULL)
                at = (at + 1) & (capacity - 1);
            slots[at] = symbols->slots[i];
        }
        free(symbols->slots);
        symbols->slots = slots;
        symbols->capacity = capacity;
    }
    uint64_t key = address << 1 | (uint64_t)(is_return != 0);
    size_t at = (size_t)(key * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (symbols->capacity - 1);
    while (symbols->slots[at].name != NULL) {
        if (symbols->slots[at].key == key)
            return &symbols->slots[at];
        at = (at + 1) & (symbols->capacity - 1);
    }
    struct ompc_location where;
    memset(&where, 0, sizeof where);
    if (symbols->symbolizer != NULL)
        ompc_symbolize(symbols->symbolizer, address, is_return, &where);
    char text[2048];
    int drop = ompc_runtime_module(where.module, symbols->runtime), start = 0;
    if (where.kind >= OMPC_LOC_SYMBOL) {
        inline_frames(&where, text, sizeof text);
        start = plumbing(where.function);
        drop |= start;
    } else if (where.kind == OMPC_LOC_MODULE) {
        snprintf(text, sizeof text, "[%s]", ompc_base_name(where.module, "?"));
    } else if (ompc_model_in_vdso(symbols->vdso, address)) {
        /* A clock read the runtime (omp_get_wtime) or the C library made: not the user's call path. */
        snprintf(text, sizeof text, "[vdso]");
        drop = 1;
    } else {
        snprintf(text, sizeof text, "0x%" PRIx64, address);
    }
    struct symbol *slot = &symbols->slots[at];
    slot->key = key;
    slot->name = where.kind >= OMPC_LOC_SYMBOL ? strdup(text) : frame_name(text);
    slot->drop = drop;
    slot->collector = collector_module(where.module);
    slot->runtime = ompc_runtime_module(where.module, symbols->runtime);
    slot->system = system_module(where.module);
    slot->start = start;
    /* A return address may end its code (a call to a function that does not return): the call is the byte before. */
    slot->not_code = symbols->code != NULL && !ompc_code_ranges_contain(symbols->code, address - (is_return && address));
    if (slot->name == NULL)
        return NULL;
    symbols->used++;
    return slot;
}

/* A growing string. */
struct text {
    char *data;
    size_t length, capacity;
};

/* Appends `count` bytes; returns -1 when memory runs out. */
static int append(struct text *text, const char *bytes, size_t count)
{
    if (text->length + count + 1 > text->capacity) {
        size_t capacity = text->capacity ? text->capacity : 256;
        while (capacity < text->length + count + 1)
            capacity *= 2;
        char *grown = realloc(text->data, capacity);
        if (grown == NULL)
            return -1;
        text->data = grown;
        text->capacity = capacity;
    }
    memcpy(text->data + text->length, bytes, count);
    text->length += count;
    text->data[text->length] = '\0';
    return 0;
}

/* One frame of a logical stack while it is assembled (leaf first). */
struct frame {
    const char *name;
    int drop, collector, runtime, system, start;
};

/*
 * A sample taken while the collector ran in the program's thread (an
 * interposed call, a callback): its frames and whatever it called (the C
 * library's pthread_sigmask...) are not the user's, so the sample's own
 * frames up to the innermost collector frame are dropped.  So are C
 * library frames at the leaf that the runtime called (sched_yield in a
 * barrier): the user did not call them.
 */
static void drop_collector_leaf(struct frame *frames, size_t count, int flags)
{
    size_t leaf = 0;
    while (leaf < count && frames[leaf].system)
        leaf++;
    /* Delivered as the block of the signal was lifted: the mask call at the leaf is the agent's doing. */
    if ((leaf < count && frames[leaf].runtime) || (flags & OMPC_STACK_AT_UNBLOCK))
        for (size_t j = 0; j < leaf; j++)
            frames[j].drop = 1;
    for (size_t i = 0; i < count; i++)
        if (frames[i].collector) {
            for (size_t j = 0; j <= i; j++)
                frames[j].drop = 1;
            return;
        }
}

/*
 * A piece's flag of the launcher's own, beside the record's OMPC_STACK_*
 * (16 bits): the stack was cut at an address in no module's code.
 */
#define CUT_NOT_CODE (1 << 24)

/* The marker at the root of a stack that does not reach main, from its flags and how it was unwound. */
static const char *root_marker(int flags, const struct entry *sample)
{
    static const char *const cut[OMPC_UNWIND_ENDS] = {
        "[incomplete stack]", "[incomplete stack: stack copy too small]", "[incomplete stack: no CFI]",
        "[incomplete stack: CFI unwinding failed]", "[incomplete stack: too deep]", "[incomplete stack]"};
    if (flags & OMPC_STACK_NO_BOUNDS)
        return "[stack not walked]";
    if (flags & CUT_NOT_CODE)
        return "[incomplete stack: not code]";
    if (flags & OMPC_STACK_NO_CALLER)
        return "[forking thread's stack unknown]";
    if (sample->by_cfi && sample->end != OMPC_UNWIND_WHOLE && sample->end < OMPC_UNWIND_ENDS)
        return cut[sample->end];
    if (flags & OMPC_STACK_BROKEN)
        return "[incomplete stack]";
    return NULL;
}

/* What one sample's path says of its stack, for the counts. */
struct verdict {
    int incomplete;   /* it ends before main */
    int no_caller;    /* a worker's forking thread's stack was not found */
    int not_code;     /* cut at an address in no module's code */
    int walked;       /* walked by frame pointers, with frames to follow and its forking thread's stack found */
    int broken;       /* walked, and ended neither in main nor at the thread's start */
};

/* Room for a sample's frames and the stacks it continues into, leaf first. */
struct frames {
    struct frame at[MAX_LINKS * (OMPC_STACK_DEPTH + 1) + 1];
    char elided_text[MAX_LINKS][48];
    size_t count, own;  /* all, and the sample's own */
};

/*
 * Collects the frames of a sample and of the stacks it continues into;
 * returns the flags of the piece it ended in (CUT_NOT_CODE added when cut),
 * or -1 when memory runs out.  A return address in no module's code ends
 * the stack: the frame-pointer walk read a data word as a frame (code
 * without frame pointers), so nothing it found beyond is a frame either.
 */
static int collect(const struct entry *sample, const struct loaded *loaded, struct symbols *symbols,
                   struct frames *out)
{
    const struct entry *piece = sample;
    int flags = 0;
    out->count = out->own = 0;
    for (int link = 0; piece != NULL; link++) {
        flags = piece->flags;
        for (int i = 0; i < piece->frames; i++) {
            if (piece->elided != 0 && i == OMPC_STACK_DEPTH / 2) {
                snprintf(out->elided_text[link], sizeof out->elided_text[link], "[%" PRIu64 " frames elided]",
                         piece->elided);
                out->at[out->count++] = (struct frame){out->elided_text[link], 0, 0, 0, 0, 0};
            }
            int is_return = !(piece == sample && i == 0 && (piece->flags & OMPC_STACK_LEAF_EXACT));
            const struct symbol *symbol = symbol_of(symbols, piece->pcs[i], is_return);
            if (symbol == NULL)
                return -1;
            if (symbol->not_code) {
                if (piece == sample)
                    out->own = out->count;
                return flags | CUT_NOT_CODE;
            }
            out->at[out->count++] = (struct frame){symbol->name, symbol->drop, symbol->collector, symbol->runtime,
                                                   symbol->system, symbol->start};
        }
        if (piece == sample)
            out->own = out->count;
        if (piece->continuation == 0)
            break;
        if (link + 1 == MAX_LINKS)
            return flags | OMPC_STACK_BROKEN;
        struct entry key = {.offset = piece->continuation};
        piece = ompc_bsearch(&key, loaded->forks, loaded->fork_count, sizeof key, compare_offsets);
        if (piece == NULL)
            flags |= OMPC_STACK_NO_CALLER;
    }
    return flags;
}

/*
 * The path of one sampled entry, outermost first, joined by ';': its own
 * frames, then those of the stacks it continues into, without the
 * runtime's and the collector's frames and without what lies outside
 * main; a marker at the root says when the stack is not whole.  NULL when
 * memory runs out.
 */
static char *path_of(const struct entry *sample, const struct loaded *loaded, struct symbols *symbols,
                     struct frames *work, struct verdict *verdict)
{
    int flags = collect(sample, loaded, symbols, work);
    if (flags < 0)
        return NULL;
    struct frame *frames = work->at;
    size_t count = work->count;
    drop_collector_leaf(frames, work->own, sample->flags);
    /* Outermost first from here; nothing outside main belongs to the user's model. */
    size_t root = count;
    int whole = 0;
    for (size_t i = count; i-- > 0;)
        if (!frames[i].drop && in_main(frames[i].name)) {
            root = i + 1;
            whole = 1;
            break;
        }
    struct text text = {NULL, 0, 0};
    const char *marker = whole ? NULL : root_marker(flags, sample);
    int cut = sample->by_cfi && sample->end != OMPC_UNWIND_WHOLE;
    verdict->incomplete = ((flags & (OMPC_STACK_BROKEN | OMPC_STACK_NO_BOUNDS | CUT_NOT_CODE)) != 0 || cut) && !whole;
    verdict->no_caller = (flags & OMPC_STACK_NO_CALLER) != 0 && !whole;
    verdict->not_code = (flags & CUT_NOT_CODE) != 0 && !whole;
    /*
     * For the hint, a walk breaks wherever it stops short of main and of the
     * thread's start, flagged or not: in code without frame pointers the
     * saved frame pointer may be 0 or lead to a word that looks like the end.
     */
    verdict->walked = !sample->by_cfi && !(flags & (OMPC_STACK_NO_CALLER | OMPC_STACK_NO_BOUNDS))
                      && (count > 0 || (flags & (OMPC_STACK_BROKEN | CUT_NOT_CODE)));
    verdict->broken = verdict->walked && !whole && !(count > 0 && frames[count - 1].start);
    if (marker != NULL && append(&text, marker, strlen(marker)) != 0)
        return NULL;
    for (size_t i = root; i-- > 0;) {
        if (frames[i].drop)
            continue;
        if ((text.length != 0 && append(&text, ";", 1) != 0)
            || append(&text, frames[i].name, strlen(frames[i].name)) != 0) {
            free(text.data);
            return NULL;
        }
    }
    if (text.data == NULL)
        text.data = strdup("");
    return text.data;
}

/* qsort: paths by text, then state. */
static int compare_paths(const void *a, const void *b)
{
    const struct ompc_stack_path *x = a, *y = b;
    int order = strcmp(x->text, y->text);
    return order != 0 ? order : x->state - y->state;
}

/* The child of `node` named by the `length` bytes at `name`, added when missing; NULL when memory runs out. */
static struct ompc_stack_node *child(struct ompc_stack_node *node, const char *name, size_t length)
{
    for (int i = 0; i < node->child_count; i++)
        if (node->children[i].name_length == length && memcmp(node->children[i].name, name, length) == 0)
            return &node->children[i];
    if (node->child_count == node->child_capacity) {
        int capacity = node->child_capacity ? 2 * node->child_capacity : 4;
        struct ompc_stack_node *grown = realloc(node->children, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return NULL;
        node->children = grown;
        node->child_capacity = capacity;
    }
    struct ompc_stack_node *added = &node->children[node->child_count++];
    memset(added, 0, sizeof *added);
    added->name = name;
    added->name_length = length;
    return added;
}

/* Adds one path to its state's tree; returns -1 when memory runs out. */
static int add_to_tree(struct ompc_stacks *stacks, const struct ompc_stack_path *path)
{
    struct ompc_stack_node *node = &stacks->trees[path->state];
    node->samples += path->samples;
    for (const char *at = path->text; *at;) {
        const char *end = strchr(at, ';');
        size_t length = end != NULL ? (size_t)(end - at) : strlen(at);
        node = child(node, at, length);
        if (node == NULL)
            return -1;
        node->samples += path->samples;
        at += length + (end != NULL);
    }
    return 0;
}

/* qsort: most samples first, then by name, so the output is stable. */
static int compare_nodes(const void *a, const void *b)
{
    const struct ompc_stack_node *x = a, *y = b;
    if (x->samples != y->samples)
        return (x->samples < y->samples) - (x->samples > y->samples);
    size_t shorter = x->name_length < y->name_length ? x->name_length : y->name_length;
    int order = memcmp(x->name, y->name, shorter);
    return order != 0 ? order : (x->name_length > y->name_length) - (x->name_length < y->name_length);
}

/* Orders every level of a tree. */
static void sort_tree(struct ompc_stack_node *node)
{
    ompc_qsort(node->children, (size_t)node->child_count, sizeof *node->children, compare_nodes);
    for (int i = 0; i < node->child_count; i++)
        sort_tree(&node->children[i]);
}

/* Frees a tree's nodes below `node`. */
static void free_tree(struct ompc_stack_node *node)
{
    for (int i = 0; i < node->child_count; i++)
        free_tree(&node->children[i]);
    free(node->children);
}

/* Adds a path (merging happens after sorting); returns -1 when memory runs out. */
static int add_path(struct ompc_stacks *stacks, size_t *capacity, char *text, int state, uint64_t samples)
{
    if (text == NULL || ompc_grow(&stacks->paths, stacks->path_count + 1, capacity, sizeof *stacks->paths) != 0) {
        free(text);
        return -1;
    }
    stacks->paths[stacks->path_count++] = (struct ompc_stack_path){text, state, samples};
    return 0;
}

/* Adds one sample's verdict to the counts. */
static void count_sample(struct ompc_stacks *stacks, const struct entry *sample, const struct verdict *verdict)
{
    stacks->samples += sample->count;
    stacks->incomplete += verdict->incomplete ? sample->count : 0;
    stacks->not_code += verdict->not_code ? sample->count : 0;
    if (sample->by_cfi)
        stacks->by_cfi += sample->count;
    else
        stacks->by_frame_pointers += sample->count;
    /* The hint weighs the samples a walk had frames to follow in: an idle worker's empty stack says nothing. */
    if (verdict->walked) {
        stacks->walked += sample->count;
        stacks->walk_broken += verdict->broken ? sample->count : 0;
    }
    if (verdict->incomplete && sample->by_cfi && sample->end != OMPC_UNWIND_WHOLE && sample->end < OMPC_UNWIND_ENDS)
        stacks->cut[sample->end] += sample->count;
    stacks->no_caller += verdict->no_caller ? sample->count : 0;
}

/* The samples whose stacks did not fit their thread's table, as "[stack not recorded]" paths; -1 when memory runs out. */
static int add_not_recorded(struct ompc_stacks *stacks, const struct ompc_model_process *process, size_t *capacity)
{
    for (int t = 0; t < process->thread_count && t < OMPC_MAX_THREADS; t++) {
        for (int state = 0; state < OMPC_NSTATES; state++) {
            uint64_t lost = process->threads[t].stack_dropped[state];
            if (lost == 0)
                continue;
            if (add_path(stacks, capacity, strdup("[stack not recorded]"), state, lost) != 0)
                return -1;
            stacks->samples += lost;
            stacks->not_recorded += lost;
        }
    }
    return 0;
}

/* Merges equal paths (they are sorted) and builds each state's tree; -1 when memory runs out. */
static int merge_paths(struct ompc_stacks *stacks)
{
    ompc_qsort(stacks->paths, stacks->path_count, sizeof *stacks->paths, compare_paths);
    size_t merged = 0;
    for (size_t i = 0; i < stacks->path_count; i++) {
        if (merged > 0 && compare_paths(&stacks->paths[merged - 1], &stacks->paths[i]) == 0) {
            stacks->paths[merged - 1].samples += stacks->paths[i].samples;
            free(stacks->paths[i].text);
        } else {
            stacks->paths[merged++] = stacks->paths[i];
        }
    }
    stacks->path_count = merged;
    for (size_t i = 0; i < stacks->path_count; i++)
        if (add_to_tree(stacks, &stacks->paths[i]) != 0)
            return -1;
    for (int state = 0; state < OMPC_NSTATES; state++)
        sort_tree(&stacks->trees[state]);
    return 0;
}

/* Copies what named each module the frames lay in, for the report after the symbolizer is gone; -1 when memory runs out. */
static int keep_modules(struct ompc_stacks *stacks, const struct ompc_symbolizer *symbolizer)
{
    size_t count;
    const struct ompc_module_symbols *modules = ompc_symbolizer_modules(symbolizer, &count);
    if (count == 0)
        return 0;
    if ((stacks->modules = calloc(count, sizeof *stacks->modules)) == NULL)
        return -1;
    for (size_t i = 0; i < count; i++) {
        struct ompc_stack_module *kept = &stacks->modules[stacks->module_count++];
        kept->source = modules[i].source;
        kept->path = strdup(modules[i].module);
        kept->debug_file = modules[i].debug_file != NULL ? strdup(modules[i].debug_file) : NULL;
        if (kept->path == NULL || (modules[i].debug_file != NULL && kept->debug_file == NULL))
            return -1;
    }
    return 0;
}

/* Builds paths and trees from what was loaded; returns -1 when memory runs out. */
static int build(struct ompc_stacks *stacks, const struct ompc_model_process *process, struct loaded *loaded)
{
    struct symbols symbols = {NULL, 0, process->runtime, NULL, 0, 0, NULL};
    symbols.symbolizer = ompc_model_symbolizer(process, &symbols.vdso);
    stacks->symbolized = symbols.symbolizer != NULL;
    symbols.code = ompc_model_code_ranges(process);
    stacks->code_known = ompc_code_ranges_complete(symbols.code);
    if (!stacks->code_known) {
        ompc_code_ranges_free(symbols.code);
        symbols.code = NULL;
    }
    ompc_qsort(loaded->forks, loaded->fork_count, sizeof *loaded->forks, compare_offsets);
    struct frames *work = malloc(sizeof *work);
    int failed = work == NULL;
    size_t capacity = 0;
    for (size_t i = 0; i < loaded->sample_count && !failed; i++) {
        const struct entry *sample = &loaded->samples[i];
        if (sample->count == 0)
            continue;
        struct verdict verdict = {0, 0, 0, 0, 0};
        char *text = path_of(sample, loaded, &symbols, work, &verdict);
        int state = sample->state >= 0 && sample->state < OMPC_NSTATES ? sample->state : 0;
        failed = add_path(stacks, &capacity, text, state, sample->count) != 0;
        count_sample(stacks, sample, &verdict);
    }
    /* Without the modules' files (names, code) no walk is known to reach main: nothing to judge by. */
    stacks->frame_pointers_missing = stacks->symbolized && stacks->code_known && stacks->walked >= OMPC_FP_MISSING_MIN
                                     && (double)stacks->walk_broken > OMPC_FP_MISSING_SHARE * (double)stacks->walked;
    if (!failed)
        failed = add_not_recorded(stacks, process, &capacity) != 0;
    free(work);
    for (size_t i = 0; i < symbols.capacity; i++)
        free(symbols.slots[i].name);
    free(symbols.slots);
    ompc_code_ranges_free(symbols.code);
    if (!failed)
        failed = keep_modules(stacks, symbols.symbolizer) != 0;
    if (symbols.symbolizer != NULL)
        ompc_symbolizer_free(symbols.symbolizer);
    return failed ? -1 : merge_paths(stacks);
}

/*
 * Keeps the innermost HEAD and outermost TAIL of `count` unwound frames in
 * `kept` (OMPC_STACK_DEPTH words); returns how many, with the frames left
 * out in *elided.
 */
static int keep_ends(const uint64_t *pcs, int count, uint64_t *kept, uint64_t *elided)
{
    *elided = 0;
    if (count <= OMPC_STACK_DEPTH) {
        memcpy(kept, pcs, (size_t)count * sizeof *pcs);
        return count;
    }
    memcpy(kept, pcs, HEAD * sizeof *pcs);
    memcpy(kept + HEAD, pcs + count - TAIL, TAIL * sizeof *pcs);
    *elided = (uint64_t)(count - OMPC_STACK_DEPTH);
    return OMPC_STACK_DEPTH;
}

/*
 * One stack copy of a thread as a sample entry unwound by CFI: its state
 * and samples are the copy's, and where it continues (a worker's forking
 * thread) and its flags are those of the frame-pointer entry the agent made
 * of the same sample, whose count loses the copy's.  Returns -1 when memory
 * runs out.
 */
static int add_copy(struct loaded *loaded, struct ompc_unwinder *unwinder, const struct ompc_model_stack_copy *copy,
                    uint64_t *pcs)
{
    struct entry key = {.offset = copy->entry};
    struct entry *walked = ompc_bsearch(&key, loaded->samples, loaded->sample_count, sizeof key, compare_offsets);
    struct entry item = {0, copy->count, copy->state, OMPC_STACK_LEAF_EXACT, 0, 0, 0, NULL, 1, OMPC_UNWIND_NONE};
    /* A copy stands for samples its entry counted: one of no entry, or of more samples than it, is not believed. */
    if (walked == NULL)
        return 0;
    item.count = walked->count < item.count ? walked->count : item.count;
    walked->count -= item.count;
    item.flags |= walked->flags & (OMPC_STACK_NO_CALLER | OMPC_STACK_NO_BOUNDS | OMPC_STACK_AT_UNBLOCK);
    item.continuation = walked->continuation;
    int count = unwinder != NULL ? ompc_unwind(unwinder, copy, pcs, MAX_UNWIND, &item.end) : 0;
    /* A stack that goes on in another thread's was copied only up to where it leaves this one. */
    if (item.continuation != 0 && item.end == OMPC_UNWIND_SLICE)
        item.end = OMPC_UNWIND_WHOLE;
    size_t words = (loaded->copy_count + 1) * OMPC_STACK_DEPTH;
    if (ompc_grow(&loaded->unwound, words, &loaded->unwound_capacity, sizeof *loaded->unwound) != 0
        || ompc_grow(&loaded->copies, loaded->copy_count + 1, &loaded->copy_capacity, sizeof item) != 0)
        return -1;
    item.frames = keep_ends(pcs, count, loaded->unwound + words - OMPC_STACK_DEPTH, &item.elided);
    loaded->copies[loaded->copy_count++] = item;
    return 0;
}

/* Every thread's stack copies (--stacks-unwind=dwarf) as entries of their own; -1 when memory runs out. */
static int add_copies(const struct ompc_model_process *process, struct loaded *loaded, struct ompc_stacks *stacks)
{
    ompc_qsort(loaded->samples, loaded->sample_count, sizeof *loaded->samples, compare_offsets);
    struct ompc_unwinder *unwinder = NULL;
    uint64_t *pcs = NULL;
    int failed = 0;
    for (int t = 0; t < process->thread_count && !failed; t++) {
        const struct ompc_model_thread *thread = &process->threads[t];
        stacks->copies_dropped += thread->copies_dropped;
        stacks->copy_bytes += thread->copy_bytes;
        for (size_t i = 0; i < thread->copy_count && !failed; i++) {
            if (pcs == NULL && ((pcs = malloc(MAX_UNWIND * sizeof *pcs)) == NULL)) {
                failed = 1;
                break;
            }
            if (unwinder == NULL)
                unwinder = ompc_unwinder_new(process);
            failed = add_copy(loaded, unwinder, &thread->copies[i], pcs) != 0;
            stacks->copies++;
        }
    }
    /* The copies join the samples once their frames' array no longer moves. */
    for (size_t i = 0; i < loaded->copy_count && !failed; i++) {
        loaded->copies[i].pcs = loaded->unwound + i * OMPC_STACK_DEPTH;
        failed = ompc_grow(&loaded->samples, loaded->sample_count + 1, &loaded->sample_capacity,
                      sizeof *loaded->samples) != 0;
        if (!failed)
            loaded->samples[loaded->sample_count++] = loaded->copies[i];
    }
    free(pcs);
    ompc_unwinder_free(unwinder);
    return failed ? -1 : 0;
}

struct ompc_stacks *ompc_stacks_build(const struct ompc_model_process *process)
{
    struct ompc_stacks *stacks = calloc(1, sizeof *stacks);
    struct loaded loaded;
    memset(&loaded, 0, sizeof loaded);
    if (stacks == NULL)
        return NULL;
    int failed = 0;
    for (int t = 0; t < process->thread_count && !failed; t++) {
        const struct ompc_model_thread *thread = &process->threads[t];
        stacks->table_full += thread->stacks.full + thread->fork_stacks.full;
        failed = take_table(&thread->stacks, 0, &loaded) != 0 || take_table(&thread->fork_stacks, 1, &loaded) != 0;
    }
    if (!failed)
        failed = add_copies(process, &loaded, stacks) != 0;
    if (!failed)
        failed = build(stacks, process, &loaded) != 0;
    free(loaded.samples);
    free(loaded.forks);
    free(loaded.copies);
    free(loaded.unwound);
    if (failed) {
        ompc_stacks_free(stacks);
        return NULL;
    }
    return stacks;
}

void ompc_stacks_free(struct ompc_stacks *stacks)
{
    if (stacks == NULL)
        return;
    for (size_t i = 0; i < stacks->path_count; i++)
        free(stacks->paths[i].text);
    free(stacks->paths);
    for (int state = 0; state < OMPC_NSTATES; state++)
        free_tree(&stacks->trees[state]);
    for (size_t i = 0; i < stacks->module_count; i++) {
        free(stacks->modules[i].path);
        free(stacks->modules[i].debug_file);
    }
    free(stacks->modules);
    free(stacks);
}
