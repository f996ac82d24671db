/* locations.h - the launcher's view of a record by source location: parallel constructs and waits named by function, file and line, for every report format. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_LOCATIONS_H
#define OMPCOLLECT_LOCATIONS_H 1

#include <stdint.h>

#include "model.h"
#include "record.h"
#include "symbolize.h"

/*
 * One parallel construct: every region instance forked at its source line,
 * whatever code copy of it forked them (fold.c); without a line, at one
 * code address.
 */
struct ompc_construct_row {
    uint64_t codeptr;          /* the widest copy's; 0: regions whose construct is unknown */
    uint32_t copies;           /* code addresses folded into the row */
    struct ompc_location where;
    uint64_t instances;        /* FORKs */
    uint64_t total_ns, max_ns; /* FORK to JOIN on the master */
    uint64_t thread_mask;
    uint64_t ticks[OMPC_NSTATES];
    double imbalance;          /* max/mean of per-thread WORK samples; 0 when not known */
    uint64_t work_sum, work_max; /* the per-thread WORK samples: their sum and the most of one thread */
    uint32_t work_threads;       /* threads with any */
    uint32_t kind;               /* OMPC_CONSTRUCT_*: parallel, teams (UNKNOWN from older records and other runtimes) */
    int target;                  /* its code is a target region's, run on the host (where.offload) */
    /* A parallel construct inside a teams construct: where that is, and its row here (-1 none; rows follow it). */
    uint64_t teams_codeptr;
    struct ompc_location teams_where;
    int teams;
};

/* One place threads waited: a construct (and for locks the object) in one state. */
struct ompc_wait_row {
    int state;
    int kind;                  /* OMPCOLLECTOR_WAIT_* of a barrier state: barrier, taskwait, taskgroup (0 unknown) */
    uint64_t codeptr, object;
    struct ompc_location where, what;
    uint64_t ticks;
    uint64_t held_ticks;       /* LKWT, CTWT, ODWT, ATWT: the WORK samples of threads holding it, the body it serialises */
    int threads;
    int worksharing;           /* IBAR not at a parallel construct's call: a worksharing construct's closing barrier */
    int at_construct;          /* codeptr is the region's construct, standing in for the runtime's own code (record.h) */
    uint32_t copies;           /* code addresses folded into the row (fold.c) */
};

/* A thread's wait entry, by the row it counts in: how folding counts each row's threads once. */
struct ompc_wait_ref {
    int row;
    int thread;
};

/* One task construct (OMPCOLLECTOR_REQ_TASK_INFO): every task made at its source line (as constructs). */
struct ompc_task_construct_row {
    struct ompc_model_task_construct sum; /* its copies' figures together; codeptr the widest copy's */
    uint32_t copies;
    struct ompc_location where;
};

/* One function where serial code ran (serial.c): its samples, named at the line that holds most of them. */
struct ompc_serial_row {
    struct ompc_location where; /* of `address`, at the hottest line; without a symbol, module+offset */
    uint64_t address;           /* an address on that line */
    uint64_t ticks;             /* the function's SERIAL samples */
    uint64_t line_ticks;        /* of them, on that line */
};

/* Where the threads ran serial code (SERIAL samples outside MPI calls). */
struct ompc_serial_places {
    int located;                  /* the record kept it (version 7 on, sampling on) */
    struct ompc_serial_row *rows; /* most samples first */
    int count;
    uint64_t located_ticks;       /* the rows' samples together */
    uint64_t dropped;             /* SERIAL samples the record could not place */
};

/* One MPI call at one call site (mpi_sites.c), named at the line of the call. */
struct ompc_mpi_site_row {
    struct ompc_model_mpi_site sum;
    struct ompc_location where;
    int setup;                  /* MPI_Init, MPI_Init_thread or MPI_Finalize: start and end, not communication */
};

/* The MPI calls by call site, longest first (record version 8 on). */
struct ompc_mpi_sites {
    struct ompc_mpi_site_row *rows;
    int count;
    uint64_t dropped;           /* outermost calls that found no row in the record */
};

/* Everything located, widest first. */
struct ompc_locations {
    struct ompc_symbolizer *symbolizer; /* NULL: addresses stay raw */
    uint64_t vdso;                      /* the kernel's vDSO's load address (no file to read), 0 unknown */
    int known;                          /* the runtime answered OMPCOLLECTOR_REQ_SAMPLE */
    struct ompc_construct_row *constructs;
    int construct_count;
    struct ompc_wait_row *waits;
    int wait_count;
    struct ompc_task_construct_row *task_constructs; /* most execution time first */
    int task_construct_count;
    struct ompc_serial_places serial;
    struct ompc_mpi_sites mpi;
};

/* Builds the tables from a finished process record; returns -1 when memory runs out. */
int ompc_locations_build(const struct ompc_model_process *process, struct ompc_locations *out);

/* The serial places of a process, named with `symbolizer` (NULL: raw); -1 when memory runs out. */
int ompc_serial_places_build(const struct ompc_model_process *process, struct ompc_symbolizer *symbolizer,
                             uint64_t vdso, struct ompc_serial_places *out);

/* The MPI call sites of a process, named with `symbolizer` (NULL: raw), longest first; -1 when memory runs out. */
int ompc_mpi_sites_build(const struct ompc_model_process *process, struct ompc_symbolizer *symbolizer,
                         struct ompc_mpi_sites *out);

/* Frees what build allocated; safe on a zeroed or half-built one. */
void ompc_locations_free(struct ompc_locations *locations);

/*
 * The program as written (fold.c): orders located code addresses by the
 * source line they name, file then line, so that every copy of one pragma
 * compares equal; an address without a line is its own.
 */
int ompc_compare_sources(const struct ompc_location *x, uint64_t x_address, const struct ompc_location *y,
                         uint64_t y_address);

/* Folds the rows of one source construct into one, named by its widest copy; *count becomes the rows left. */
void ompc_fold_constructs(struct ompc_construct_row *rows, int *count);
void ompc_fold_task_constructs(struct ompc_task_construct_row *rows, int *count);

/* The same for waits, by state, source and object; `refs` (each thread's entry by row) is renumbered to the folded rows, whose threads it counts.  0, or -1 without memory. */
int ompc_fold_waits(struct ompc_wait_row *rows, int *count, struct ompc_wait_ref *refs, size_t ref_count);

/* What a wait location waited in, as a reader names it ("critical(accum)", "lock `lk` (global)"); `buffer` holds it. */
const char *ompc_wait_what(const struct ompc_wait_row *row, char *buffer, size_t size);

/* What a construct is, as reports name it: "parallel", "teams", "target parallel", "target teams" or "unknown". */
const char *ompc_construct_kind_name(const struct ompc_construct_row *row);

/*
 * A construct row's name in the text tables: its kind before the
 * location, except for a parallel construct outside any teams or target
 * (the tables' usual row, named as before): "teams main a.c:8".
 */
const char *ompc_construct_label(const struct ompc_construct_row *row, char *buffer, size_t size);

/* A short name of a construct for tooltips ("solve solver.c:17"); `buffer` holds it. */
const char *ompc_location_label(const struct ompc_location *where, uint64_t address, char *buffer,
                                size_t size);

#endif /* OMPCOLLECT_LOCATIONS_H */
