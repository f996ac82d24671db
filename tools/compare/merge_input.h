/* merge_input.h - what merge and diff read: one JSON report, checked value by value into plain rows within set caps (merge_input.c), and report files loaded and refused with one line each (merge_load.c). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_MERGE_INPUT_H
#define OMPCOLLECT_MERGE_INPUT_H 1

#include "names.h"

#include <stddef.h>
#include <stdint.h>

/* The most merge reads of one report file, and the most memory it builds
 * from one (its parsed form and what it keeps), both documented in
 * tools/README.ompcollect.md and doc/ompcollect.1.  Parsed, a report takes
 * about 10 times its size as ompcollect lays it out (15 times without the
 * indentation): the largest ompcollect writes (16384 regions,
 * 512 threads) needs 64 MiB without its stacks, so the memory bound leaves
 * room for those. */
#define OMPC_MERGE_MAX_INPUT ((size_t)64 << 20)
#define OMPC_MERGE_MAX_MEMORY ((size_t)256 << 20)

/* A string taken from a report: UTF-8, NUL-terminated, maybe holding NULs. */
struct ompc_merge_text {
    char *text;
    size_t length;
};

/* One region of one report. */
struct ompc_merge_region {
    int64_t id;
    int64_t time_ns;
    int64_t samples;
    int64_t states[OMPC_NSTATES];
};

/* Where in the program: what the report's "location" objects say. */
struct ompc_merge_location {
    int kind;                 /* 0 none, 1 module, 2 symbol, 3 line (locations.c's "kind") */
    uint64_t address;         /* this process's address: differs across processes under ASLR */
    struct ompc_merge_text module, function, file; /* text NULL: null */
    struct ompc_merge_text mangled; /* the linkage name "function" was demangled from; text NULL: null or absent */
    struct ompc_merge_text enclosing; /* the programmer's function of compiler-outlined code; text NULL: absent */
    uint64_t module_offset;   /* the same in every process of one binary */
    int64_t function_offset;
    int64_t line;             /* -1: none */
    /* A construct's "kind" ("parallel", "teams", ...; text NULL: a wait's, or a report without kinds), kept apart in matching. */
    struct ompc_merge_text construct;
};

/*
 * A report's POP split of its OpenMP threads' samples ("efficiency", and
 * each construct's "efficiency.constructs[].efficiency"): useful work and
 * the samples each cause lost, which together are at most `samples`.
 * `known` 0: the report has none (no samples, or written before them).
 */
struct ompc_merge_efficiency {
    int known;
    int64_t samples, useful;
    int64_t imbalance, sync, sched, serial, mpi_idle; /* "lost": load_imbalance, synchronisation, ... */
};

/* One parallel construct of one report ("constructs"). */
struct ompc_merge_construct {
    struct ompc_merge_location where;
    int64_t instances, total_ns, max_ns, samples;
    int64_t states[OMPC_NSTATES];
    struct ompc_merge_efficiency efficiency; /* its row of "efficiency.constructs" (same index) */
};

/* One place of one report where threads waited ("wait_locations"). */
struct ompc_merge_wait {
    int state;
    struct ompc_merge_text what;
    struct ompc_merge_location where, object;
    int64_t samples, threads;
};

/* One MPI call at one call site of one report ("totals.mpi.sites"): where names the line of the call. */
struct ompc_merge_mpi_site {
    struct ompc_merge_text call;      /* "MPI_Barrier" */
    struct ompc_merge_location where; /* kind line when the report named file and line, symbol when a function */
    int setup;                        /* MPI_Init, MPI_Init_thread or MPI_Finalize: start and end, not communication */
    int64_t calls, ns, samples;
};

/* One task construct of one report ("tasks.constructs"). */
struct ompc_merge_task {
    struct ompc_merge_location where;
    int64_t created, executed, runs;
    int64_t create_ns, exec_ns;       /* creating its tasks; running them (less time suspended) */
};

/* A bound a report says its run reached ("limits"), or its record's damage ("record_damage"). */
struct ompc_merge_limit {
    struct ompc_merge_text what, text;
    int64_t count, bound;
};

/* What merge takes from one report; every count is from 0 to INT64_MAX. */
struct ompc_merge_input {
    const char *file;
    struct ompc_merge_text program, host, fate;
    int64_t pid;
    int64_t rank;         /* -1: none */
    int complete;
    int64_t wall_ns;
    int64_t interval_ns;
    int64_t threads;      /* OpenMP threads */
    int64_t samples;
    int64_t states[OMPC_NSTATES];
    /* MPI ("totals.mpi"; reports written before it have none: all 0): samples inside MPI calls (in no state), their time and count. */
    int mpi_measured;
    int64_t mpi_samples, mpi_ns, mpi_calls;
    int64_t initial_mpi_ns; /* the initial thread's time inside MPI calls ("threads[].mpi.ns") */
    int64_t mpi_setup_ns;   /* of the MPI time, MPI_Init and MPI_Finalize ("totals.mpi.setup_ns"; 0 in older reports) */
    int64_t mpi_idle_samples; /* IDLE samples while the initial thread was in MPI ("totals.mpi.idle_samples") */
    struct ompc_merge_efficiency efficiency; /* the process's ("efficiency") */
    double serial_fraction;   /* "efficiency.serial_fraction": the initial thread's SERIAL share, 0 to 1; -1: absent */
    struct ompc_merge_region *regions;
    size_t region_count;
    struct ompc_merge_construct *constructs;
    size_t construct_count;
    struct ompc_merge_wait *waits;
    size_t wait_count;
    struct ompc_merge_mpi_site *mpi_sites; /* longest first, as the report lists them */
    size_t mpi_site_count;
    struct ompc_merge_task *tasks;    /* absent when the runtime did not name task constructs */
    size_t task_count;
    double sched_per_run_ns;          /* "tasks.sched_per_run_ns": the scheduling cost of one task run, -1 unknown */
    struct ompc_merge_limit *limits; /* "limits", then "record_damage" as what "record_damage" */
    size_t limit_count;
};

/*
 * Parses one report of `length` bytes and takes what the summary needs,
 * building no more than `budget` bytes from it; 0, or -1 with a one-line
 * reason (without the file name) in `error`.  Bytes that are not UTF-8 and
 * lone surrogate escapes become U+FFFD.  Release `input` either way.
 */
int ompc_merge_parse(const char *data, size_t length, size_t budget, struct ompc_merge_input *input,
                     char *error, size_t error_size);

/* Frees what ompc_merge_parse kept. */
void ompc_merge_input_release(struct ompc_merge_input *input);

/* Prints a message prefixed "ompcollect: merge:" on stderr, on one line whatever a file name in it holds. */
void ompc_merge_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints a message prefixed "ompcollect: COMMAND:" on stderr, on one line whatever a file name in it holds. */
void ompc_reports_complain(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Reads the report at `path` within merge's caps (OMPC_MERGE_MAX_INPUT and
 * _MEMORY) and parses it into `input` (its file set to `path`); 0, or -1
 * after one line on stderr, prefixed with COMMAND, naming the file.
 * Release `input` either way.
 */
int ompc_merge_load(const char *command, const char *path, struct ompc_merge_input *input);

/* Reads and checks every report (merge's), refusing a file given twice; 0, or -1 after a message for each it cannot use. */
int ompc_merge_load_all(char **paths, int count, struct ompc_merge_input *inputs);

#endif /* OMPCOLLECT_MERGE_INPUT_H */
