/* scaling.c - ompcollect scaling's analysis: groups the runs by thread count, folds each count's median run's constructs by code location (merge's order), and derives speedup, the POP factors, their losses between counts and Amdahl's serial fraction. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "checked.h"
#include "merge_hybrid.h"
#include "scaling.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One construct row of one count's median report, before the rows of one place are folded. */
struct construct_ref {
    size_t count; /* index into scaling->counts */
    const struct ompc_merge_construct *construct;
};

/* A run's reports: its MPI ranks, or 1. */
static size_t run_ranks(const struct ompc_scaling_run *run)
{
    return run->ranks > 0 ? run->ranks : 1;
}

/* A run's wall time: an MPI job ends with its slowest rank. */
static int64_t run_wall(const struct ompc_scaling_run *run)
{
    int64_t wall = 0;
    for (size_t i = 0; i < run_ranks(run); i++)
        if (run->input[i].wall_ns > wall)
            wall = run->input[i].wall_ns;
    return wall;
}

/* qsort order of runs: by thread count, then wall time. */
static int compare_runs(const void *x, const void *y)
{
    const struct ompc_scaling_run *a = x, *b = y;
    if (a->threads != b->threads)
        return a->threads < b->threads ? -1 : 1;
    return (run_wall(a) > run_wall(b)) - (run_wall(a) < run_wall(b));
}

/* The counts from runs sorted by compare_runs: each count's runs, spread and median run; -1 with the reason. */
static int take_counts(struct ompc_scaling *scaling, const struct ompc_scaling_run *runs, size_t run_count,
                       char *error, size_t error_size)
{
    scaling->counts = calloc(run_count, sizeof *scaling->counts);
    if (scaling->counts == NULL)
        return snprintf(error, error_size, "out of memory"), -1;
    for (size_t first = 0, end; first < run_count; first = end) {
        for (end = first; end < run_count && runs[end].threads == runs[first].threads; end++)
            if (run_ranks(&runs[end]) != run_ranks(&runs[0]))
                return snprintf(error, error_size, "%s: a job of %zu ranks among jobs of %zu", runs[end].input->file,
                                run_ranks(&runs[end]), run_ranks(&runs[0])), -1;
        if (scaling->count_count == OMPC_SCALING_MAX_COUNTS)
            return snprintf(error, error_size, "more than %d thread counts", OMPC_SCALING_MAX_COUNTS), -1;
        struct ompc_scaling_count *count = &scaling->counts[scaling->count_count++];
        const struct ompc_scaling_run *median = &runs[first + (end - first - 1) / 2];
        count->threads = runs[first].threads;
        count->runs = (int)(end - first);
        count->median = median->input;
        count->ranks = run_ranks(median);
        count->wall_ns = run_wall(median);
        count->oversubscribed = scaling->cores > 0 && (double)count->threads * (double)count->ranks > scaling->cores;
        count->wall_min_ns = run_wall(&runs[first]);
        count->wall_max_ns = run_wall(&runs[end - 1]);
        scaling->mpi |= median->ranks > 0;
        for (size_t i = 0; i < count->ranks; i++)
            scaling->mpi |= count->median[i].mpi_measured;
        if (count->wall_ns == 0)
            return snprintf(error, error_size, "%s: a wall time of 0", count->median->file), -1;
    }
    return 0;
}

/* Adds one split into another (both known, or the sum not); -1 when a count would pass INT64_MAX. */
static int fold_split(struct ompc_merge_efficiency *into, const struct ompc_merge_efficiency *from, int first)
{
    into->known = (first || into->known) && from->known;
    return ompc_add_count(&into->samples, from->samples) | ompc_add_count(&into->useful, from->useful)
           | ompc_add_count(&into->imbalance, from->imbalance) | ompc_add_count(&into->sync, from->sync)
           | ompc_add_count(&into->sched, from->sched) | ompc_add_count(&into->serial, from->serial)
           | ompc_add_count(&into->mpi_idle, from->mpi_idle);
}

/* 1 - part / whole. */
static double kept(int64_t part, int64_t whole)
{
    return 1 - (double)part / (double)whole;
}

/* A point's efficiencies from its split (those against the reference come later). */
static void point_factors(struct ompc_scaling_point *point)
{
    const struct ompc_merge_efficiency *s = &point->split;
    point->known = point->ran && s->known && s->samples > 0;
    if (!point->known)
        return;
    point->useful_s = (double)s->useful * (double)point->interval_ns / 1e9;
    point->parallel = (double)s->useful / (double)s->samples;
    point->factors[OMPC_SCALING_LOAD_BALANCE] = kept(s->imbalance, s->samples);
    point->factors[OMPC_SCALING_SYNCHRONISATION] = kept(s->sync, s->samples);
    point->factors[OMPC_SCALING_SCHEDULING] = kept(s->sched, s->samples);
    point->factors[OMPC_SCALING_SERIALISATION] = kept(s->serial, s->samples);
    point->factors[OMPC_SCALING_MPI_LOAD_BALANCE] = kept(point->mpi_balance, s->samples);
    point->factors[OMPC_SCALING_MPI_COMMUNICATION] = kept(point->mpi_communication, s->samples);
}

/* The losses from each count to the next, split among the factors (scaling.h). */
static void row_losses(struct ompc_scaling_row *row, size_t count_count)
{
    for (size_t k = 1; k < count_count; k++) {
        const struct ompc_scaling_point *a = &row->points[k - 1], *b = &row->points[k];
        struct ompc_scaling_loss *loss = &row->losses[k - 1];
        loss->known = a->known && b->known && a->scaled && b->scaled;
        loss->largest = -1;
        if (!loss->known)
            continue;
        double ca = a->factors[OMPC_SCALING_COMPUTATION], cb = b->factors[OMPC_SCALING_COMPUTATION];
        for (int f = 0; f < OMPC_SCALING_COMPUTATION; f++)
            loss->parts[f] = ca * (a->factors[f] - b->factors[f]);
        loss->parts[OMPC_SCALING_COMPUTATION] = b->parallel * (ca - cb);
        for (int f = 0; f < OMPC_SCALING_FACTORS; f++)
            if (loss->parts[f] >= OMPC_SCALING_KEPT && (loss->largest < 0 || loss->parts[f] > loss->parts[loss->largest]))
                loss->largest = f;
    }
}

/*
 * The figures against the row's reference count (the first it ran at):
 * speedup wherever it ran, computation scalability and global efficiency
 * where both its and the reference's samples were split; then the losses.
 */
static void row_figures(struct ompc_scaling_row *row, size_t count_count)
{
    for (size_t k = 0; k < count_count; k++)
        point_factors(&row->points[k]);
    row->reference = 0;
    while (row->reference + 1 < count_count && !row->points[row->reference].ran)
        row->reference++;
    const struct ompc_scaling_point *ref = &row->points[row->reference];
    for (size_t k = 0; k < count_count; k++) {
        struct ompc_scaling_point *point = &row->points[k];
        if (point->ran && point->wall_ns > 0)
            point->speedup = (double)ref->wall_ns / (double)point->wall_ns;
        point->scaled = point->known && ref->known && point->useful_s > 0;
        if (!point->scaled)
            continue;
        point->factors[OMPC_SCALING_COMPUTATION] = ref->useful_s / point->useful_s;
        point->global = point->parallel * point->factors[OMPC_SCALING_COMPUTATION];
    }
    row_losses(row, count_count);
}

/* A row's points and losses, zeroed; -1 without memory. */
static int row_alloc(struct ompc_scaling_row *row, size_t count_count)
{
    row->points = calloc(count_count, sizeof *row->points);
    row->losses = calloc(count_count, sizeof *row->losses);
    return row->points != NULL && row->losses != NULL ? 0 : -1;
}

/* `value` thread-ns rounded to a count; -1 past INT64_MAX. */
static int64_t thread_ns(double value)
{
    return value >= 0 && value < 9e18 ? (int64_t)(value + 0.5) : -1;
}

/*
 * An MPI job's split in thread-ns, POP's additive hybrid model
 * (merge_hybrid.h): each rank's threads were there for the job's runtime
 * R (its longest wall time less MPI_Init and MPI_Finalize).  Of a rank's
 * thread-time outside MPI, its samples outside MPI (less its team's idle
 * while its master was in MPI) say what was useful and what each OpenMP
 * cause lost; its time outside MPI below the slowest rank's is MPI load
 * imbalance, the slowest rank's time in MPI communication.  The parts sum
 * to the threads x R, so the factors add up as in one process.
 */
static void hybrid_point(const struct ompc_merge_input *ranks, size_t count, struct ompc_scaling_point *point)
{
    struct ompc_hybrid hybrid;
    ompc_merge_hybrid(ranks, (int)count, &hybrid);
    double parts[6] = {0}, threads = 0, outside = 0;
    double runtime = hybrid.runtime_s * 1e9, slowest = hybrid.max_outside_s * 1e9;
    int known = runtime > 0;
    for (size_t i = 0; i < count; i++) {
        const struct ompc_merge_efficiency *e = &ranks[i].efficiency;
        double t = ranks[i].threads > 0 ? (double)ranks[i].threads : 1;
        double o = (double)ompc_merge_outside_mpi_ns(&ranks[i]);
        double n = (double)e->samples - (double)e->mpi_idle, scale = n > 0 ? t * o / n : 0;
        known &= e->known && (n > 0 || o == 0);
        const int64_t split[6] = {e->useful, e->imbalance, e->sync, e->sched, e->serial, 0};
        for (int j = 0; j < 5; j++)
            parts[j] += (double)split[j] * scale;
        threads += t;
        outside += t * o;
    }
    struct ompc_merge_efficiency *s = &point->split;
    *s = (struct ompc_merge_efficiency){known, thread_ns(threads * runtime), thread_ns(parts[0]), thread_ns(parts[1]),
                                        thread_ns(parts[2]), thread_ns(parts[3]), thread_ns(parts[4]), 0};
    point->mpi_balance = thread_ns(threads * slowest - outside);
    point->mpi_communication = thread_ns(threads * (runtime - slowest));
    point->interval_ns = 1;
    s->known &= s->samples >= 0 && s->useful >= 0 && s->imbalance >= 0 && s->sync >= 0 && s->sched >= 0
                && s->serial >= 0 && point->mpi_balance >= 0 && point->mpi_communication >= 0;
}

/* The whole run at each count, from its median report (an MPI job: its ranks' reports, merged). */
static int whole_run(struct ompc_scaling *scaling)
{
    if (row_alloc(&scaling->whole, scaling->count_count) != 0)
        return -1;
    for (size_t k = 0; k < scaling->count_count; k++) {
        const struct ompc_scaling_count *count = &scaling->counts[k];
        struct ompc_scaling_point *point = &scaling->whole.points[k];
        point->ran = 1;
        point->wall_ns = count->wall_ns;
        point->interval_ns = count->median->interval_ns;
        point->split = count->median->efficiency;
        if (scaling->mpi)
            hybrid_point(count->median, count->ranks, point);
    }
    row_figures(&scaling->whole, scaling->count_count);
    return 0;
}

/* qsort order of construct rows: by code location, then count. */
static int compare_refs(const void *x, const void *y)
{
    const struct construct_ref *a = x, *b = y;
    int place = ompc_merge_compare_places(&a->construct->where, &b->construct->where);
    return place != 0 ? place : (a->count > b->count) - (a->count < b->count);
}

/* Every median report's construct rows (every rank's of an MPI job), one place's adjacent; NULL without memory. */
static struct construct_ref *construct_refs(const struct ompc_scaling *scaling, size_t *used)
{
    size_t total = 0;
    for (size_t k = 0; k < scaling->count_count; k++)
        for (size_t r = 0; r < scaling->counts[k].ranks; r++)
            total += scaling->counts[k].median[r].construct_count;
    struct construct_ref *refs = calloc(total ? total : 1, sizeof *refs);
    *used = 0;
    for (size_t k = 0; k < scaling->count_count && refs != NULL; k++)
        for (size_t r = 0; r < scaling->counts[k].ranks; r++)
            for (size_t i = 0; i < scaling->counts[k].median[r].construct_count; i++)
                refs[(*used)++] = (struct construct_ref){k, &scaling->counts[k].median[r].constructs[i]};
    if (refs != NULL)
        qsort(refs, *used, sizeof *refs, compare_refs);
    return refs;
}

/* Adds one report row into its count's point of a construct; -1 when a sum would pass INT64_MAX. */
static int fold_construct(struct ompc_scaling_point *point, const struct ompc_merge_construct *construct,
                          int64_t interval_ns)
{
    int first = !point->ran;
    point->ran = 1;
    point->interval_ns = interval_ns;
    return ompc_add_count(&point->mpi_communication, construct->efficiency.mpi_idle)
           | ompc_add_count(&point->wall_ns, construct->total_ns)
           | ompc_add_count(&point->instances, construct->instances)
           | fold_split(&point->split, &construct->efficiency, first);
}

/* The longest at its reference count first, then by place. */
static int compare_rows(const void *x, const void *y)
{
    const struct ompc_scaling_row *a = x, *b = y;
    int64_t ta = a->points[a->reference].wall_ns, tb = b->points[b->reference].wall_ns;
    if (ta != tb)
        return ta > tb ? -1 : 1;
    return ompc_merge_compare_places(a->where, b->where);
}

/* The constructs matched by code location over the counts' median reports; -1 with the reason. */
static int constructs(struct ompc_scaling *scaling, char *error, size_t error_size)
{
    size_t used;
    struct construct_ref *refs = construct_refs(scaling, &used);
    scaling->constructs = calloc(used ? used : 1, sizeof *scaling->constructs);
    if (refs == NULL || scaling->constructs == NULL) {
        free(refs);
        return snprintf(error, error_size, "out of memory"), -1;
    }
    int failed = 0;
    for (size_t i = 0; i < used && !failed; i++) {
        if (i == 0 || ompc_merge_compare_places(&refs[i - 1].construct->where, &refs[i].construct->where) != 0) {
            struct ompc_scaling_row *row = &scaling->constructs[scaling->construct_count++];
            row->where = &refs[i].construct->where;
            failed = row_alloc(row, scaling->count_count);
            if (failed) {
                snprintf(error, error_size, "out of memory");
                break;
            }
        }
        struct ompc_scaling_row *row = &scaling->constructs[scaling->construct_count - 1];
        const struct ompc_merge_input *input = scaling->counts[refs[i].count].median;
        if (fold_construct(&row->points[refs[i].count], refs[i].construct, input->interval_ns) != 0) {
            snprintf(error, error_size, "%s: its constructs at one place sum to more than %" PRId64, input->file,
                     INT64_MAX);
            failed = 1;
        }
    }
    free(refs);
    if (failed)
        return -1;
    for (size_t i = 0; i < scaling->construct_count; i++)
        row_figures(&scaling->constructs[i], scaling->count_count);
    qsort(scaling->constructs, scaling->construct_count, sizeof *scaling->constructs, compare_rows);
    return 0;
}

double ompc_scaling_amdahl(double f, double p)
{
    return 1 / (f + (1 - f) / p);
}

/*
 * Amdahl's serial fraction two ways.  From the speedups: each count's
 * Karp-Flatt metric, and the fraction fitted to them all (Amdahl's law is
 * 1/S = f (1 - 1/p) + 1/p, a line through 0 in f, fitted by least
 * squares).  From the serial time: the smallest count's serial share s
 * (its initial thread's SERIAL samples), its parallel part taken back to
 * one thread: f = s / (s + n0 (1 - s)).
 */
static void amdahl(struct ompc_scaling *scaling)
{
    const struct ompc_scaling_count *first = &scaling->counts[0];
    double xy = 0, xx = 0, s = 0;
    /* An MPI job's: its ranks' mean. */
    for (size_t r = 0; r < first->ranks && s >= 0; r++)
        s = first->median[r].serial_fraction < 0 ? -1 : s + first->median[r].serial_fraction / (double)first->ranks;
    scaling->time_fraction = s >= 0 ? s / (s + first->threads * (1 - s)) : NAN;
    for (size_t k = 0; k < scaling->count_count; k++) {
        struct ompc_scaling_count *count = &scaling->counts[k];
        double p = (double)count->threads / first->threads, speedup = scaling->whole.points[k].speedup;
        count->karp_flatt = NAN;
        if (k == 0 || p <= 1 || speedup <= 0)
            continue;
        double x = 1 - 1 / p, y = 1 / speedup - 1 / p;
        count->karp_flatt = y / x;
        xy += x * y;
        xx += x * x;
    }
    scaling->fit_fraction = xx > 0 ? xy / xx : NAN;
    for (size_t k = 0; k < scaling->count_count; k++) {
        struct ompc_scaling_count *count = &scaling->counts[k];
        double p = (double)count->threads / first->threads;
        count->amdahl_fit_speedup = isnan(scaling->fit_fraction) ? NAN : ompc_scaling_amdahl(scaling->fit_fraction, p);
        count->amdahl_time_speedup = isnan(scaling->time_fraction) ? NAN
                                                                   : ompc_scaling_amdahl(scaling->time_fraction, p);
    }
}

int ompc_scaling_build(const struct ompc_scaling_run *runs, size_t run_count, int cores, struct ompc_scaling *scaling,
                       char *error, size_t error_size)
{
    memset(scaling, 0, sizeof *scaling);
    scaling->cores = cores;
    if (run_count == 0)
        return snprintf(error, error_size, "no runs"), -1;
    struct ompc_scaling_run *sorted = malloc(run_count * sizeof *sorted);
    if (sorted == NULL)
        return snprintf(error, error_size, "out of memory"), -1;
    memcpy(sorted, runs, run_count * sizeof *sorted);
    qsort(sorted, run_count, sizeof *sorted, compare_runs);
    int status = take_counts(scaling, sorted, run_count, error, error_size);
    scaling->same_program = 1;
    for (size_t i = 0; i < run_count; i++)
        for (size_t r = 0; r < run_ranks(&sorted[i]); r++)
            scaling->same_program &=
                ompc_merge_compare_texts(&sorted[i].input[r].program, &sorted[0].input->program) == 0;
    free(sorted);
    if (status == 0 && whole_run(scaling) != 0) {
        snprintf(error, error_size, "out of memory");
        status = -1;
    }
    if (status == 0)
        status = constructs(scaling, error, error_size);
    if (status == 0)
        amdahl(scaling);
    return status;
}

/* Frees one row. */
static void row_free(struct ompc_scaling_row *row)
{
    free(row->points);
    free(row->losses);
    row->points = NULL;
    row->losses = NULL;
}

void ompc_scaling_free(struct ompc_scaling *scaling)
{
    row_free(&scaling->whole);
    for (size_t i = 0; i < scaling->construct_count; i++)
        row_free(&scaling->constructs[i]);
    free(scaling->constructs);
    free(scaling->counts);
    scaling->constructs = NULL;
    scaling->counts = NULL;
    scaling->construct_count = scaling->count_count = 0;
}
