/* stacks.h - the launcher's view of the sampled call stacks of --stacks: read from the record, continued into the forking threads' stacks, symbolized, and written as folded stacks, a call tree per state, or JSON. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_STACKS_H
#define OMPCOLLECT_STACKS_H 1

#include <stdint.h>

#include "model.h"
#include "record.h"
#include "symbolize.h"
#include "unwind.h"

/* One distinct user-model stack in one state: a line of the folded output. */
struct ompc_stack_path {
    char *text;        /* frames outermost first, joined by ';' ("main;solve;work") */
    int state;
    uint64_t samples;
};

/* A node of a state's top-down call tree. */
struct ompc_stack_node {
    const char *name;  /* points into a path's text, which owns it */
    size_t name_length;
    uint64_t samples;
    struct ompc_stack_node *children;
    int child_count, child_capacity;
};

/*
 * The share of frame-pointer stacks that must end before main by a frame
 * that made no sense (or one in no module's code) for the report to say the
 * program keeps no frame pointers, and the fewest such samples it judges
 * by (tools/README.ompcollect.md, "Call stacks", argues both).
 */
#define OMPC_FP_MISSING_SHARE 0.25
#define OMPC_FP_MISSING_MIN 20

/* Every sampled stack of one process. */
struct ompc_stacks {
    struct ompc_stack_path *paths; /* sorted by text, then state */
    size_t path_count;
    uint64_t samples;              /* all samples, with or without a recorded stack */
    uint64_t not_recorded;         /* samples whose stack did not fit the thread's table */
    uint64_t incomplete;           /* samples whose walk stopped before the outermost frame */
    uint64_t no_caller;            /* worker samples whose forking thread's stack was not found */
    uint64_t not_code;             /* samples whose stack was cut at an address in no module's code (counted in incomplete) */
    /* Frame-pointer samples with frames to walk, and those of them that ended neither in main nor at the thread's start. */
    uint64_t walked, walk_broken;
    int frame_pointers_missing;    /* walk_broken is over OMPC_FP_MISSING_SHARE of walked: say --stacks-unwind=dwarf */
    int code_known;                /* every module's code was known, so frames were checked against it */
    uint64_t table_full;           /* insertions the tables refused */
    /* How the samples' own frames were unwound: frame pointers in the program, or CFI over a stack copy (--stacks-unwind=dwarf). */
    uint64_t by_frame_pointers, by_cfi;
    uint64_t copies_dropped;       /* --stacks-unwind=dwarf samples whose copy did not fit: frame pointers instead */
    uint64_t copies, copy_bytes;   /* stack copies kept, and the record bytes they take (headers included) */
    uint64_t cut[OMPC_UNWIND_ENDS]; /* CFI-unwound samples that end before main, by why the unwinding stopped */
    int symbolized;                /* a symbolizer was available */
    /* The modules frames lay in and what named their code (the report's Symbols section); strings owned. */
    struct ompc_stack_module {
        char *path;                /* as the symbolizer was given it */
        enum ompc_symbol_source source;
        char *debug_file;          /* NULL: none */
    } *modules;
    size_t module_count;
    struct ompc_stack_node trees[OMPC_NSTATES]; /* per state; the root's name is unused */
};

/*
 * Builds the paths and trees from the stack tables the loader read into
 * the model.  NULL when memory runs out; a process without tables gives
 * an empty result.
 */
struct ompc_stacks *ompc_stacks_build(const struct ompc_model_process *process);

/* Whether a module is the OpenMP runtime (`runtime`: its path as the loader opened it), the shim or the agent: its code is not the user's. */
int ompc_runtime_module(const char *path, const char *runtime);

/* Frees what build made. */
void ompc_stacks_free(struct ompc_stacks *stacks);

#endif /* OMPCOLLECT_STACKS_H */
