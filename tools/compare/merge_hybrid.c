/* merge_hybrid.c - ompcollect merge's POP factors of a hybrid MPI+OpenMP job, in POP's multiplicative and additive models: MPI load balance and communication efficiency from the ranks' time outside MPI, OpenMP parallel efficiency from their samples outside MPI, as text, JSON and CSV. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "checked.h"
#include "csv.h"
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

double ompc_merge_useful_share(const struct ompc_merge_input *input)
{
    double useful = (double)input->states[THR_WORK_STATE] + (double)input->states[THR_SERIAL_STATE], samples = 0;
    for (int state = 1; state < OMPC_NSTATES; state++)
        samples += (double)input->states[state];
    samples -= (double)input->mpi_idle_samples;
    return samples > 0 ? useful / samples : 1;
}

/* A rank's threads, 1 at least: a report with no OpenMP thread still had its initial one. */
static double rank_threads(const struct ompc_merge_input *input)
{
    return input->threads > 0 ? (double)input->threads : 1;
}

double ompc_merge_thread_efficiency(const struct ompc_merge_input *input, const struct ompc_hybrid *hybrid)
{
    double outside = (double)ompc_merge_outside_mpi_ns(input) / 1e9;
    return ratio(hybrid->runtime_s - outside * (1 - ompc_merge_useful_share(input)), hybrid->runtime_s);
}

/* The additive model's terms (merge_hybrid.h), once the runtime and the max time outside MPI are known. */
static void additive(const struct ompc_merge_input *inputs, int count, struct ompc_hybrid *hybrid)
{
    double threads = 0, outside = 0, lost = 0, runtime = hybrid->runtime_s;
    for (int i = 0; i < count; i++) {
        double t = rank_threads(&inputs[i]), rank_outside = (double)ompc_merge_outside_mpi_ns(&inputs[i]) / 1e9;
        threads += t;
        outside += t * rank_outside;
        lost += t * rank_outside * (1 - ompc_merge_useful_share(&inputs[i]));
    }
    double mean_outside = threads > 0 ? outside / threads : 0;
    struct ompc_hybrid_additive *a = &hybrid->additive;
    a->mpi_communication = ratio(hybrid->max_outside_s, runtime);
    a->mpi_load_balance = ratio(runtime - (hybrid->max_outside_s - mean_outside), runtime);
    a->mpi_parallel = a->mpi_load_balance + a->mpi_communication - 1;
    a->openmp_parallel = threads > 0 ? ratio(runtime - lost / threads, runtime) : NAN;
    a->parallel = a->mpi_parallel + a->openmp_parallel - 1;
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
    additive(inputs, count, hybrid);
}

/* One factor's line, indented by `indent` spaces: its value ("-" when undefined) and what it is. */
static void text_factor(FILE *out, int indent, const char *name, double value, const char *meaning)
{
    if (isnan(value))
        fprintf(out, "%*s%-*s %6s  %s\n", indent, "", 36 - indent, name, "-", meaning);
    else
        fprintf(out, "%*s%-*s %6.3f  %s\n", indent, "", 36 - indent, name, value, meaning);
}

/* "rank 3" or "pid 1234". */
static void rank_name(const struct ompc_merge_input *input, char *name, size_t size)
{
    if (input->rank >= 0)
        snprintf(name, size, "rank %" PRId64, input->rank);
    else
        snprintf(name, size, "pid %" PRId64, input->pid);
}

/* The additive model's lines, the OpenMP term per rank. */
static void text_additive(FILE *out, const struct ompc_merge_input *inputs, int count, const struct ompc_hybrid *hybrid)
{
    const struct ompc_hybrid_additive *a = &hybrid->additive;
    fputs("  Additive model (POP's additive hybrid metrics: parallel = MPI + OpenMP parallel efficiency - 1, each\n"
          "  loss a share of the runtime averaged over every thread of every rank):\n", out);
    text_factor(out, 4, "MPI load balance", a->mpi_load_balance, "1 - (max - mean time outside MPI) / runtime");
    text_factor(out, 4, "MPI communication efficiency", a->mpi_communication, "max time outside MPI / runtime");
    text_factor(out, 4, "MPI parallel efficiency", a->mpi_parallel,
                "load balance + communication efficiency - 1 (mean time outside MPI / runtime)");
    text_factor(out, 4, "OpenMP parallel efficiency", a->openmp_parallel,
                "1 - a thread's mean time outside MPI that was not useful / runtime");
    for (int i = 0; i < count; i++) {
        char name[32], meaning[128];
        rank_name(&inputs[i], name, sizeof name);
        snprintf(meaning, sizeof meaning, "%" PRId64 " thread%s, useful %.1f%% of their samples outside MPI",
                 inputs[i].threads, inputs[i].threads == 1 ? "" : "s", 100 * ompc_merge_useful_share(&inputs[i]));
        text_factor(out, 6, name, ompc_merge_thread_efficiency(&inputs[i], hybrid), meaning);
    }
    text_factor(out, 4, "parallel efficiency", a->parallel,
                "MPI + OpenMP parallel efficiency - 1 (a thread's mean useful time / runtime)");
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
        rank_name(input, name, sizeof name);
        fprintf(out, "  %-10s wall %8.3f s, in MPI %8.3f s (initial thread, of it MPI_Init and MPI_Finalize %.3f s; "
                     "all threads %.3f s in %" PRId64 " calls), outside MPI %8.3f s\n",
                name, (double)input->wall_ns / 1e9, (double)input->initial_mpi_ns / 1e9,
                (double)input->mpi_setup_ns / 1e9, (double)input->mpi_ns / 1e9, input->mpi_calls,
                (double)ompc_merge_outside_mpi_ns(input) / 1e9);
    }
    fprintf(out, "  runtime %.3f s: the longest wall time less MPI_Init and MPI_Finalize\n", hybrid->runtime_s);
    fputs("  Multiplicative model (POP's hybrid metrics: parallel = MPI x OpenMP parallel efficiency):\n", out);
    text_factor(out, 2, "MPI load balance", hybrid->mpi_load_balance, "mean / max of the processes' time outside MPI");
    text_factor(out, 2, "MPI communication efficiency", hybrid->mpi_communication,
                "max time outside MPI / runtime (the longest wall time less MPI_Init and MPI_Finalize)");
    text_factor(out, 2, "MPI parallel efficiency", hybrid->mpi_parallel, "MPI load balance x communication efficiency");
    text_factor(out, 2, "OpenMP parallel efficiency", hybrid->openmp_parallel,
                "useful (WORK, SERIAL) / all samples outside MPI (less the team's idle while its master is in MPI)");
    text_factor(out, 2, "parallel efficiency", hybrid->parallel, "MPI x OpenMP parallel efficiency");
    text_additive(out, inputs, count, hybrid);
}

/* A factor to 6 decimals, null when undefined. */
static json_t *json_factor(double value)
{
    return isnan(value) ? json_null() : ompc_json_fixed(value, 6);
}

/* The additive model as JSON, the OpenMP term per rank. */
static json_t *json_additive(const struct ompc_merge_input *inputs, int count, const struct ompc_hybrid *hybrid)
{
    const struct ompc_hybrid_additive *a = &hybrid->additive;
    json_t *object = json_object(), *ranks = json_array();
    int failed = ompc_json_set(object, "mpi_load_balance", json_factor(a->mpi_load_balance));
    failed |= ompc_json_set(object, "mpi_communication_efficiency", json_factor(a->mpi_communication));
    failed |= ompc_json_set(object, "mpi_parallel_efficiency", json_factor(a->mpi_parallel));
    failed |= ompc_json_set(object, "openmp_parallel_efficiency", json_factor(a->openmp_parallel));
    failed |= ompc_json_set(object, "parallel_efficiency", json_factor(a->parallel));
    for (int i = 0; i < count && !failed; i++)
        failed = ompc_json_append(
            ranks, json_pack("{s:o, s:I, s:o, s:I, s:I, s:o, s:o}", "file", ompc_json_string(inputs[i].file), "pid",
                             (json_int_t)inputs[i].pid, "rank",
                             inputs[i].rank >= 0 ? json_integer(inputs[i].rank) : json_null(), "threads",
                             (json_int_t)inputs[i].threads, "outside_mpi_ns",
                             (json_int_t)ompc_merge_outside_mpi_ns(&inputs[i]), "useful_share",
                             json_factor(ompc_merge_useful_share(&inputs[i])), "openmp_parallel_efficiency",
                             json_factor(ompc_merge_thread_efficiency(&inputs[i], hybrid))));
    failed |= ompc_json_set(object, "ranks", ranks);
    return ompc_json_built(object, failed);
}

json_t *ompc_merge_hybrid_json(const struct ompc_merge_input *inputs, int count, const struct ompc_hybrid *hybrid)
{
    json_t *object = json_object();
    int failed = ompc_json_set(object, "mpi_measured_reports", json_integer(hybrid->measured));
    failed |= ompc_json_set(object, "runtime_ns", json_integer(ompc_i64_of(hybrid->runtime_s * 1e9 + 0.5)));
    failed |= ompc_json_set(object, "mean_outside_mpi_ns",
                            json_integer(ompc_i64_of(hybrid->mean_outside_s * 1e9 + 0.5)));
    failed |= ompc_json_set(object, "max_outside_mpi_ns",
                            json_integer(ompc_i64_of(hybrid->max_outside_s * 1e9 + 0.5)));
    failed |= ompc_json_set(object, "mpi_load_balance", json_factor(hybrid->mpi_load_balance));
    failed |= ompc_json_set(object, "mpi_communication_efficiency", json_factor(hybrid->mpi_communication));
    failed |= ompc_json_set(object, "mpi_parallel_efficiency", json_factor(hybrid->mpi_parallel));
    failed |= ompc_json_set(object, "openmp_parallel_efficiency", json_factor(hybrid->openmp_parallel));
    failed |= ompc_json_set(object, "parallel_efficiency", json_factor(hybrid->parallel));
    failed |= ompc_json_set(object, "additive", json_additive(inputs, count, hybrid));
    return ompc_json_built(object, failed);
}

/* One row of the "hybrid" table; a NaN is the empty field. */
static void csv_factor(struct ompc_csv_tables *tables, const char *model, const char *factor, double value)
{
    ompc_csv_lead(tables);
    fprintf(tables->out, "%s,%s,", model, factor);
    if (!isnan(value))
        fprintf(tables->out, "%.6f", value);
    fputc('\n', tables->out);
}

/* The "hybrid_rank" table: each rank's times, useful share and additive OpenMP term. */
static int csv_ranks(struct ompc_csv_tables *tables, const struct ompc_merge_input *inputs, int count,
                     const struct ompc_hybrid *hybrid)
{
    FILE *out = ompc_csv_begin(tables, "hybrid_rank");
    if (out == NULL)
        return -1;
    fputs("report,pid,rank,threads,wall_ns,initial_mpi_ns,setup_ns,mpi_ns,mpi_calls,outside_mpi_ns,useful_share,"
          "openmp_parallel_efficiency\n", out);
    for (int i = 0; i < count; i++) {
        const struct ompc_merge_input *input = &inputs[i];
        double efficiency = ompc_merge_thread_efficiency(input, hybrid);
        ompc_csv_lead(tables);
        ompc_csv_string(out, input->file);
        fprintf(out, ",%" PRId64 ",", input->pid);
        if (input->rank >= 0)
            fprintf(out, "%" PRId64, input->rank);
        fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%.6f,",
                input->threads, input->wall_ns, input->initial_mpi_ns, input->mpi_setup_ns, input->mpi_ns,
                input->mpi_calls, ompc_merge_outside_mpi_ns(input), ompc_merge_useful_share(input));
        if (!isnan(efficiency))
            fprintf(out, "%.6f", efficiency);
        fputc('\n', out);
    }
    return 0;
}

int ompc_merge_hybrid_csv(struct ompc_csv_tables *tables, const struct ompc_merge_input *inputs, int count,
                          const struct ompc_hybrid *hybrid)
{
    const struct ompc_hybrid_additive *a = &hybrid->additive;
    if (ompc_csv_begin(tables, "hybrid") == NULL)
        return -1;
    fputs("model,factor,value\n", tables->out);
    csv_factor(tables, "job", "runtime_s", hybrid->runtime_s);
    csv_factor(tables, "multiplicative", "mpi_load_balance", hybrid->mpi_load_balance);
    csv_factor(tables, "multiplicative", "mpi_communication_efficiency", hybrid->mpi_communication);
    csv_factor(tables, "multiplicative", "mpi_parallel_efficiency", hybrid->mpi_parallel);
    csv_factor(tables, "multiplicative", "openmp_parallel_efficiency", hybrid->openmp_parallel);
    csv_factor(tables, "multiplicative", "parallel_efficiency", hybrid->parallel);
    csv_factor(tables, "additive", "mpi_load_balance", a->mpi_load_balance);
    csv_factor(tables, "additive", "mpi_communication_efficiency", a->mpi_communication);
    csv_factor(tables, "additive", "mpi_parallel_efficiency", a->mpi_parallel);
    csv_factor(tables, "additive", "openmp_parallel_efficiency", a->openmp_parallel);
    csv_factor(tables, "additive", "parallel_efficiency", a->parallel);
    return csv_ranks(tables, inputs, count, hybrid);
}
