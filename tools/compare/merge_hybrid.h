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
 * rank's samples outside MPI; NaN where a denominator is 0.
 */
struct ompc_hybrid {
    int measured;               /* reports whose MPI time was measured (libompcollect-mpi ran) */
    double runtime_s;           /* the longest wall time */
    double mean_outside_s, max_outside_s;
    double mpi_load_balance, mpi_communication, mpi_parallel;
    double useful, samples;     /* over every report: WORK + SERIAL samples, and every state's */
    double openmp_parallel, parallel;
};

/* The factors of `count` reports. */
void ompc_merge_hybrid(const struct ompc_merge_input *inputs, int count, struct ompc_hybrid *hybrid);

/* A report's time outside MPI, in ns: its wall time less its initial thread's time in MPI calls (0 at least). */
int64_t ompc_merge_outside_mpi_ns(const struct ompc_merge_input *input);

/* The text summary's "Hybrid MPI+OpenMP efficiency" section (only when a report measured MPI time). */
void ompc_merge_hybrid_text(FILE *out, const struct ompc_merge_input *inputs, int count,
                            const struct ompc_hybrid *hybrid);

/* The JSON summary's "hybrid" member; NULL when memory runs out. */
json_t *ompc_merge_hybrid_json(const struct ompc_hybrid *hybrid);

#endif /* OMPCOLLECT_MERGE_HYBRID_H */
