/* merge_hybrid.h - ompcollect merge's POP factors of a hybrid MPI+OpenMP job, from the ranks' JSON reports. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_MERGE_HYBRID_H
#define OMPCOLLECT_MERGE_HYBRID_H 1

#include "merge_input.h"

#include <jansson.h>
#include <stdio.h>

/*
 * The factors ompcollect(1) defines under MERGE: each rank's time outside
 * MPI is its wall time less its initial thread's time inside MPI calls;
 * the MPI load balance is their mean over their max, the MPI communication
 * efficiency their max over the job's runtime (the longest wall time), the
 * OpenMP parallel efficiency the useful (WORK, SERIAL) share of every
 * rank's samples outside MPI; NaN where a denominator is 0.  This is
 * POP's multiplicative hybrid model: parallel = MPI x OpenMP parallel
 * efficiency.
 *

 * POP's additive hybrid model, which ompcollect(1) MERGE defines: every
 * loss is a share of the runtime R averaged over every OpenMP thread of
 * every rank, so the losses add.  A rank's thread stands for its time
 * outside MPI; of it, its useful share (WORK, SERIAL of its samples outside
 * MPI) is useful.  The MPI (process) terms: load balance
 * 1 - (max - mean outside MPI) / R, communication max outside MPI / R,
 * their sum less 1 the MPI parallel efficiency (mean outside MPI / R); the
 * OpenMP (thread) efficiency of a rank 1 - its threads' time outside MPI
 * that was not useful / R; parallel = MPI + OpenMP parallel efficiency - 1
 * = a thread's mean useful time / R.  Means weigh a rank by its threads.
 */
struct ompc_hybrid_additive {
    double mpi_load_balance, mpi_communication, mpi_parallel;
    double openmp_parallel, parallel;
};

struct ompc_hybrid {
    int measured;               /* reports whose MPI time was measured (libompcollect-mpi ran) */
    double runtime_s;           /* the longest wall time less MPI_Init and MPI_Finalize */
    double mean_outside_s, max_outside_s;
    double mpi_load_balance, mpi_communication, mpi_parallel;
    double useful, samples;     /* over every report: WORK + SERIAL samples, and every state's */
    double openmp_parallel, parallel; /* the multiplicative model: parallel = MPI x OpenMP parallel efficiency */
    struct ompc_hybrid_additive additive;
};

/* The factors of `count` reports. */
void ompc_merge_hybrid(const struct ompc_merge_input *inputs, int count, struct ompc_hybrid *hybrid);

/* A report's time outside MPI, in ns: its wall time less its initial thread's time in MPI calls (0 at least). */
int64_t ompc_merge_outside_mpi_ns(const struct ompc_merge_input *input);

/* A report's useful share (WORK, SERIAL) of its samples outside MPI, less its team's idle in MPI; 1 when it has none (no loss seen). */
double ompc_merge_useful_share(const struct ompc_merge_input *input);

/* A rank's OpenMP (thread) efficiency in the additive model: 1 - its threads' time outside MPI not useful / the runtime. */
double ompc_merge_thread_efficiency(const struct ompc_merge_input *input, const struct ompc_hybrid *hybrid);

/* The text summary's "Hybrid MPI+OpenMP efficiency" section (only when a report measured MPI time). */
void ompc_merge_hybrid_text(FILE *out, const struct ompc_merge_input *inputs, int count,
                            const struct ompc_hybrid *hybrid);

/* The JSON summary's "hybrid" member; NULL when memory runs out. */
json_t *ompc_merge_hybrid_json(const struct ompc_merge_input *inputs, int count, const struct ompc_hybrid *hybrid);

struct ompc_csv_tables;

/* The CSV summary's "hybrid" table (model, factor, value) and "hybrid_rank" table (each rank's terms). */
int ompc_merge_hybrid_csv(struct ompc_csv_tables *tables, const struct ompc_merge_input *inputs, int count,
                          const struct ompc_hybrid *hybrid);

#endif /* OMPCOLLECT_MERGE_HYBRID_H */
