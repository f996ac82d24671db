/* diff.h - ompcollect diff: two JSON reports of one program, before (A) and after (B) a change, compared per state, parallel construct and wait location matched by code. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_DIFF_H
#define OMPCOLLECT_DIFF_H 1

#include "merge.h"
#include "merge_mpi.h"

#include <jansson.h>

#include <stdint.h>
#include <stdio.h>

/* How many rows of each table the text shows; JSON has them all. */
#define OMPC_DIFF_TEXT_ROWS 10

/* Where a construct or wait was found. */
enum ompc_diff_status {
    OMPC_DIFF_MATCHED,     /* in both reports */
    OMPC_DIFF_APPEARED,    /* only in B */
    OMPC_DIFF_DISAPPEARED, /* only in A */
};

/* One side of a row: its time in one report, that time's share of the report, and what it counts. */
struct ompc_diff_side {
    int64_t ns;     /* states, waits: samples x interval (thread time); constructs: fork to join */
    double share;   /* states, waits: of the report's samples; constructs: of its wall time */
    int64_t count;  /* states, waits: samples; constructs: instances */
};

/* One thread state in A and in B. */
struct ompc_diff_state {
    int state;
    struct ompc_diff_side a, b;
    int64_t change_ns;
};

/* One parallel construct (every report row at one code location, folded) in A and in B. */
struct ompc_diff_construct {
    const struct ompc_merge_location *where; /* the first report's that has it: names the row */
    enum ompc_diff_status status;
    struct ompc_diff_side a, b;
    int64_t change_ns;
    int64_t a_states_ns[OMPC_NSTATES], b_states_ns[OMPC_NSTATES]; /* thread time in it by state */
};

/* One place threads waited (state, code location and object) in A and in B. */
struct ompc_diff_wait {
    const struct ompc_merge_wait *first; /* the first report's that has it: names the row */
    enum ompc_diff_status status;
    struct ompc_diff_side a, b;
    int64_t change_ns;
};

/* One side of a task construct's row: its tasks, their time, and what creating them cost. */
struct ompc_diff_task_side {
    int64_t created, executed, runs, exec_ns, create_ns;
    double mean_ns;        /* exec_ns / runs: one task run's mean time (0: none) */
    double create_per_task_ns; /* create_ns / created (0: none) */
};

/* One task construct (every report row at one code location, folded) in A and in B. */
struct ompc_diff_task {
    const struct ompc_merge_location *where; /* the first report's that has it: names the row */
    enum ompc_diff_status status;
    struct ompc_diff_task_side a, b;
    int64_t change_ns;     /* of exec_ns */
};

/* One MPI call at one location (merge_mpi.h's matching) in A and in B. */
struct ompc_diff_mpi {
    const struct ompc_merge_mpi_site *first; /* the first report's that has it: names the row */
    enum ompc_diff_status status;
    int64_t a_ns, b_ns, a_calls, b_calls, change_ns;
};

/* How far apart two wall times must be (A/B or B/A) for one run to be called faster. */
#define OMPC_DIFF_SAME 1.005

/*
 * The part of the gain (or loss) the summary names: one state's thread
 * time in one construct, or outside them all.
 */
struct ompc_diff_largest {
    int direction;                           /* -1: the gain (the parts that fell), 1: the loss, 0: no change */
    int state;                               /* 0: none (no part changed in that direction) */
    const struct ompc_merge_location *where; /* NULL: outside every parallel construct */
    int64_t change_ns;
    double share;                            /* of the sum of the parts that changed in that direction */
};

/* The comparison, sorted: every table by the size of its change, largest first. */
struct ompc_diff {
    const struct ompc_merge_input *a, *b;
    int same_program;
    int64_t a_thread_ns, b_thread_ns; /* every sample of the report x its interval */
    double speedup;                   /* A's wall time / B's; 0 when either is 0 */
    struct ompc_diff_largest largest;
    struct ompc_diff_state states[OMPC_NSTATES - 1];
    struct ompc_diff_construct *constructs;
    size_t construct_count;
    struct ompc_diff_wait *waits;
    size_t wait_count;
    struct ompc_diff_task *tasks;     /* task constructs, largest change of task time first */
    size_t task_count;
    struct ompc_diff_mpi *mpi;        /* MPI calls by call and location, largest change first */
    size_t mpi_count;
};

/* The task constructs and MPI calls of both reports compared (diff_calls.c); -1 when memory runs out. */
int ompc_diff_calls_build(struct ompc_diff *diff);

/* Their text tables, JSON members ("task_constructs", "mpi_calls") and CSV tables ("task_construct", "mpi_call"). */
void ompc_diff_calls_text(FILE *out, const struct ompc_diff *diff);
int ompc_diff_calls_json(json_t *root, const struct ompc_diff *diff);
struct ompc_csv_tables;
int ompc_diff_calls_csv(struct ompc_csv_tables *tables, const struct ompc_diff *diff);

/*
 * Compares report `b` with report `a`; 0, or -1 with a one-line reason
 * naming the file in `error` (a report whose samples cannot be turned into
 * times within 64 bits, or memory).  `diff` points into both inputs, which
 * must outlive it; free it with ompc_diff_free either way.
 */
int ompc_diff_build(const struct ompc_merge_input *a, const struct ompc_merge_input *b, struct ompc_diff *diff,
                    char *error, size_t error_size);

/* Frees what ompc_diff_build made. */
void ompc_diff_free(struct ompc_diff *diff);

/* The comparison as text, CSV or JSON (OMPC_FORMAT_TEXT, _CSV or _JSON); 0, or -1 with a one-line reason in `error`. */
int ompc_diff_write(FILE *out, int format, const struct ompc_merge_input *a, const struct ompc_merge_input *b,
                    char *error, size_t error_size);

/* The writers of a built comparison (diff_write.c); the JSON one returns 0, or -1 when memory runs out or the write fails. */
void ompc_diff_write_text(FILE *out, const struct ompc_diff *diff);
int ompc_diff_write_json(FILE *out, const struct ompc_diff *diff);

struct ompc_sink;

/* The CSV writer (diff_csv.c): the tables side, warning, limit, summary, state, construct and wait_location into a stream sink; 0, or -1 when memory runs out or the write fails. */
int ompc_diff_write_csv(struct ompc_sink *sink, const struct ompc_diff *diff);

/* The one-line summary ("B is 1.31x faster (wall 2.10 s -> 1.60 s); 83% of the gain is IBAR at solve.c:42") in `buffer`. */
const char *ompc_diff_summary(const struct ompc_diff *diff, char *buffer, size_t size);

/* The most warnings there are about two reports, and the room for one. */
#define OMPC_DIFF_WARNINGS 5
#define OMPC_DIFF_WARNING_SIZE 512

/* The warnings about the two reports (different programs, a run cut short, no samples), each on one line; how many. */
int ompc_diff_warnings(const struct ompc_diff *diff, char (*lines)[OMPC_DIFF_WARNING_SIZE]);

#endif /* OMPCOLLECT_DIFF_H */
