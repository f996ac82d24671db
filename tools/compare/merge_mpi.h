/* merge_mpi.h - ompcollect merge's MPI calls by call and location: each rank's, and over the ranks matched by call and source line, as text, JSON and CSV. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_MERGE_MPI_H
#define OMPCOLLECT_MERGE_MPI_H 1

#include "merge_input.h"

#include <jansson.h>
#include <stdio.h>

/* One MPI call at one location over every report that made it. */
struct ompc_merged_mpi_call {
    const struct ompc_merge_mpi_site *first; /* the first report's: names the row */
    int reports;
    int slowest;                             /* the report whose time in it is max_ns */
    int64_t calls, ns, samples;
    int64_t min_ns, max_ns;                  /* of one report's time in it; min is 0 when a report lacks it */
    /*
     * What a balanced layout of the ranks' work gains at this call
     * (ompc_merge_mpi_gains): the processes' mean time in it, 0 for
     * MPI_Init and MPI_Finalize; and its share of the job's runtime
     * (merge_hybrid.h), NaN when that is unknown.
     */
    int64_t balanced_ns;
    double balanced_share;
};

/* Orders MPI call sites by call, then source line (file, line), else function, else address. */
int ompc_merge_compare_mpi_sites(const struct ompc_merge_mpi_site *x, const struct ompc_merge_mpi_site *y);

/* The MPI calls of every report merged by call and location, most time first; the count, or -1 with the message. */
long ompc_merge_mpi_calls(const struct ompc_merge_input *inputs, int count, struct ompc_merged_mpi_call **result,
                          char *error, size_t error_size);

/*
 * Each merged call's gain of a balanced layout (ompcollect(1), MERGE): a
 * rank waits in a collective or a receive for the slowest rank's work, so
 * with every rank working the mean, the time the call costs the job is
 * what the ranks' mean wait there was.  `count` processes, the job's
 * runtime in seconds.
 */
void ompc_merge_mpi_gains(struct ompc_merged_mpi_call *calls, long call_count, int count, double runtime_s);

/* The text summary's top MPI calls over the ranks and each rank's own (only when a report has MPI call sites). */
void ompc_merge_mpi_text(FILE *out, const struct ompc_merge_input *inputs, int count,
                         const struct ompc_merged_mpi_call *calls, long call_count);

/* The JSON summary's "mpi_calls": the merged rows, then each rank's as "ranks"; NULL when memory runs out. */
json_t *ompc_merge_mpi_json(const struct ompc_merge_input *inputs, int count, const struct ompc_merged_mpi_call *calls,
                            long call_count);

struct ompc_csv_tables;

/* The CSV summary's "mpi_call" (over the ranks) and "mpi_call_rank" (every rank's every site) tables; 0, or -1. */
int ompc_merge_mpi_csv(struct ompc_csv_tables *tables, const struct ompc_merge_input *inputs, int count,
                       const struct ompc_merged_mpi_call *calls, long call_count);

/* A call site's location on one line ("main mpi-wait.c:43"), as merge and diff name it. */
const char *ompc_merge_mpi_place(const struct ompc_merge_mpi_site *site, char *buffer, size_t size);

#endif /* OMPCOLLECT_MERGE_MPI_H */
