/* scaling_runs.h - ompcollect scaling's runs: the program at each thread count, each a normal ompcollect run whose JSON report is kept in the scaling directory, its output and exit status held against the first run's. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SCALING_RUNS_H
#define OMPCOLLECT_SCALING_RUNS_H 1

#include <stddef.h>

#include "scaling.h"

/* What the command line asked for. */
struct scaling_plan {
    int counts[OMPC_SCALING_MAX_COUNTS]; /* ascending, distinct */
    int count_count;
    int repeat;                /* runs at each count */
    const char *env;           /* --env: a variable set to the count besides OMP_NUM_THREADS, or NULL */
    int allow_differences;     /* go on when output or exit status differ between runs */
    const char *dir;           /* where the runs' reports, outputs and the analysis go */
    const char **run_options;  /* ompcollect options given to every run */
    int run_option_count;
    char **command;            /* PROGRAM ARGS */
    char **launcher;           /* --mpi: the MPI launcher's words ("mpirun", "-np", "2"), NULL-ended; or NULL */
};

/* One finished run: its report's path (an MPI job's: each rank's, by rank) and the thread count it ran at. */
struct scaling_done {
    char **reports;
    size_t report_count;
    int threads;
};

/* The cores this process may run on (its affinity mask), at least 1. */
int ompc_scaling_cores(void);

/* 1, 2, 4, ... up to `cores`, and `cores` itself; how many. */
int ompc_scaling_default_counts(int cores, int *counts);

/*
 * Runs the plan: every count `repeat` times, in ascending order (with a
 * launcher, ompcollect under it, each rank writing threads-N.RANK.json).
 * 0 with `done` (count_count x repeat entries, paths malloc'd) filled;
 * else a message was said and the exit status to end with is returned.
 */
int ompc_scaling_run_all(const struct scaling_plan *plan, struct scaling_done *done);

/* What this machine lets ompcollect say of instructions and cycles, in `buffer`. */
const char *ompc_scaling_counters_note(char *buffer, size_t size);

#endif /* OMPCOLLECT_SCALING_RUNS_H */
