/* merge_hybrid.c - ompcollect merge's POP factors of a hybrid MPI+OpenMP job: MPI load balance and communication efficiency from the ranks' time outside MPI, OpenMP parallel efficiency from their samples outside MPI, as text and JSON. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "jsonw.h"
#include "merge_hybrid.h"
#include "omp_collector_api.h"

#include <inttypes.h>
#include <math.h>

int64_t ompc_merge_outside_mpi_ns(const struct ompc_merge_input *input)
{
    return input->wall_ns > input->initial_mpi_ns ? input->wall_ns - input->initial_mpi_ns : 0;
}

/* The rank's time less MPI_Init and MPI_Finalize: starting and ending MPI is no communication of the program's. */
static int64_t measured_ns(const struct ompc_merge_input *input)
{
    return input->wall_ns > input->mpi_setup_ns ? input->wall_ns - input->mpi_setup_ns : 0;
}

/* part / whole, NaN when whole is 0. */
static double ratio(double part, double whole)
{
    return whole > 0 ? part / whole : NAN;
}

void ompc_merge_hybrid(const struct ompc_merge_input *inputs, int count, struct ompc_hybrid *hybrid)
{
    *hybrid = (struct ompc_hybrid){0};
    double sum_outside = 0;
    for (int i = 0; i < count; i++) {
        const struct ompc_merge_input *input = &inputs[i];
        double outside = (double)ompc_merge_outside_mpi_ns(input) / 1e9;
        hybrid->measured += input->mpi_measured;
        if ((double)measured_ns(input) / 1e9 > hybrid->runtime_s)
            hybrid->runtime_s = (double)measured_ns(input) / 1e9;
        if (outside > hybrid->max_outside_s)
            hybrid->max_outside_s = outside;
        sum_outside += outside;
        /* Samples in MPI are in no state, so these are the samples outside MPI. */
        hybrid->useful += (double)input->states[THR_WORK_STATE] + (double)input->states[THR_SERIAL_STATE];
        for (int state = 1; state < OMPC_NSTATES; state++)
            hybrid->samples += (double)input->states[state];
        /* The team idle while its master is in MPI is MPI's waiting, counted there: not an OpenMP loss too. */
        hybrid->samples -= (double)input->mpi_idle_samples;
    }
    hybrid->mean_outside_s = count > 0 ? sum_outside / count : 0;
    hybrid->mpi_load_balance = ratio(hybrid->mean_outside_s, hybrid->max_outside_s);
    hybrid->mpi_communication = ratio(hybrid->max_outside_s, hybrid->runtime_s);
    hybrid->mpi_parallel = ratio(hybrid->mean_outside_s, hybrid->runtime_s);
    hybrid->openmp_parallel = ratio(hybrid->useful, hybrid->samples);
    hybrid->parallel = hybrid->mpi_parallel * hybrid->openmp_parallel;
}

/* One factor's line: its value ("-" when undefined) and what it is. */
static void text_factor(FILE *out, const char *name, double value, const char *meaning)
{
    if (isnan(value))
        fprintf(out, "  %-29s %6s  %s\n", name, "-", meaning);
    else
        fprintf(out, "  %-29s %6.3f  %s\n", name, value, meaning);
}

void ompc_merge_hybrid_text(FILE *out, const struct ompc_merge_input *inputs, int count,
                            const struct ompc_hybrid *hybrid)
{
    if (hybrid->measured == 0)
        return;
    fprintf(out, "\nHybrid MPI+OpenMP efficiency (POP factors over %d process%s, %d with MPI time measured; "
                 "ompcollect(1) MERGE defines them):\n",
            count, count == 1 ? "" : "es", hybrid->measured);
    for (int i = 0; i < count; i++) {
        const struct ompc_merge_input *input = &inputs[i];
        char name[32];
        if (input->rank >= 0)
            snprintf(name, sizeof name, "rank %" PRId64, input->rank);
        else
            snprintf(name, sizeof name, "pid %" PRId64, input->pid);
        fprintf(out, "  %-10s wall %8.3f s, in MPI %8.3f s (initial thread, of it MPI_Init and MPI_Finalize %.3f s; "
                     "all threads %.3f s in %" PRId64 " calls), outside MPI %8.3f s\n",
                name, (double)input->wall_ns / 1e9, (double)input->initial_mpi_ns / 1e9,
                (double)input->mpi_setup_ns / 1e9, (double)input->mpi_ns / 1e9, input->mpi_calls,
                (double)ompc_merge_outside_mpi_ns(input) / 1e9);
    }
    text_factor(out, "MPI load balance", hybrid->mpi_load_balance, "mean / max of the processes' time outside MPI");
    text_factor(out, "MPI communication efficiency", hybrid->mpi_communication,
                "max time outside MPI / runtime (the longest wall time less MPI_Init and MPI_Finalize)");
    text_factor(out, "MPI parallel efficiency", hybrid->mpi_parallel, "MPI load balance x communication efficiency");
    text_factor(out, "OpenMP parallel efficiency", hybrid->openmp_parallel,
                "useful (WORK, SERIAL) / all samples outside MPI (less the team's idle while its master is in MPI)");
    text_factor(out, "parallel efficiency", hybrid->parallel, "MPI x OpenMP parallel efficiency");
}

/* A factor to 6 decimals, null when undefined. */
static json_t *json_factor(double value)
{
    return isnan(value) ? json_null() : ompc_json_fixed(value, 6);
}

json_t *ompc_merge_hybrid_json(const struct ompc_hybrid *hybrid)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "mpi_measured_reports", json_integer(hybrid->measured));
    failed |= ompc_json_set(object, "runtime_ns", json_integer((json_int_t)(hybrid->runtime_s * 1e9 + 0.5)));
    failed |= ompc_json_set(object, "mean_outside_mpi_ns",
                            json_integer((json_int_t)(hybrid->mean_outside_s * 1e9 + 0.5)));
    failed |= ompc_json_set(object, "max_outside_mpi_ns",
                            json_integer((json_int_t)(hybrid->max_outside_s * 1e9 + 0.5)));
    failed |= ompc_json_set(object, "mpi_load_balance", json_factor(hybrid->mpi_load_balance));
    failed |= ompc_json_set(object, "mpi_communication_efficiency", json_factor(hybrid->mpi_communication));
    failed |= ompc_json_set(object, "mpi_parallel_efficiency", json_factor(hybrid->mpi_parallel));
    failed |= ompc_json_set(object, "openmp_parallel_efficiency", json_factor(hybrid->openmp_parallel));
    failed |= ompc_json_set(object, "parallel_efficiency", json_factor(hybrid->parallel));
    return ompc_json_built(object, failed);
}
