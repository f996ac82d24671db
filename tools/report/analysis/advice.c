/* advice.c - derives a process's POP-style efficiency metrics, the potential gain of its constructs and wait locations, and the ranked opportunities, from the summary's counts and locations (write/advice_write.c writes them). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "advice.h"
#include "checked.h"
#include "omp_collector_api.h"
#include "counts.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A construct whose instances are shorter than this on average is "many short regions" to the overhead hint. */
#define SHORT_REGION_NS 1000000

/* 1 - part/whole, or NaN when there is no whole. */
static double efficiency_of(uint64_t lost, uint64_t whole)
{
    return whole > 0 ? 1.0 - (double)lost / (double)whole : NAN;
}

/* The efficiencies of a split: useful work, and 1 less each loss, over its samples. */
static void rates(struct ompc_efficiency *out)
{
    out->parallel = out->samples > 0 ? (double)out->useful / (double)out->samples : NAN;
    out->load_balance = efficiency_of(out->imbalance, out->samples);
    out->synchronisation = efficiency_of(out->sync, out->samples);
    out->scheduling = efficiency_of(out->sched, out->samples);
    out->serialisation = efficiency_of(out->serial, out->samples);
}

/*
 * Splits a set of samples by state into useful work and the four losses;
 * `imbalance` is the barrier waiting that balanced work would remove, as
 * the caller knows it, and is taken from the barrier states' samples.
 */
static void split_states(const uint64_t *ticks, uint64_t imbalance, struct ompc_efficiency *out)
{
    uint64_t barrier = ticks[THR_IBAR_STATE] + ticks[THR_EBAR_STATE];
    memset(out, 0, sizeof *out);
    for (int state = 1; state < OMPC_NSTATES; state++)
        out->samples += ticks[state];
    out->useful = ticks[THR_WORK_STATE] + ticks[THR_SERIAL_STATE];
    out->imbalance = imbalance < barrier ? imbalance : barrier;
    out->sync = barrier - out->imbalance + ticks[THR_LKWT_STATE] + ticks[THR_CTWT_STATE] + ticks[THR_ODWT_STATE]
                + ticks[THR_ATWT_STATE];
    out->sched = ticks[THR_OVHD_STATE] + ticks[THR_REDUC_STATE];
    out->serial = ticks[THR_IDLE_STATE];
    out->mpi_idle = 0;
    rates(out);
}

/* The threads of a construct's team: those sampled in it, or with WORK in it when more. */
static int construct_team(const struct ompc_construct_row *row)
{
    int team = popcount64(row->thread_mask);
    return (int)row->work_threads > team ? (int)row->work_threads : team;
}

/* Whether a construct's instances are short enough for fork and join to be most of them (SHORT_REGION_NS). */
int ompc_construct_short_regions(const struct ompc_construct_row *row)
{
    return row->instances > 0 && row->total_ns / row->instances < SHORT_REGION_NS;
}

/*
 * A construct's metrics and gains; returns the barrier waiting its balance
 * would remove, in samples.  The runtime overhead of short regions also
 * counts their barrier waiting beyond the imbalance: a region of little
 * work waits in its join barrier (IBAR) for the team to arrive, which is
 * the join's cost, and on a loaded machine most of it.
 */
static uint64_t advise_construct(const struct ompc_construct_row *row, double interval_s,
                                 struct ompc_construct_advice *out)
{
    int team = construct_team(row);
    uint64_t imbalance = 0;
    if (team > 0 && row->work_max * (uint64_t)team > row->work_sum)
        imbalance = row->work_max * (uint64_t)team - row->work_sum;
    split_states(row->ticks, imbalance, &out->efficiency);
    out->efficiency.serial = 0;
    out->efficiency.serialisation = efficiency_of(0, out->efficiency.samples);
    out->team = team;
    /* The elapsed time the balance saves: each instance would end at the mean thread's work, not the longest. */
    out->balance_gain_s = team > 0 ? (double)out->efficiency.imbalance / team * interval_s : 0.0;
    uint64_t overhead = out->efficiency.sched;
    if (ompc_construct_short_regions(row))
        overhead += row->ticks[THR_IBAR_STATE] + row->ticks[THR_EBAR_STATE] - out->efficiency.imbalance;
    out->overhead_samples = overhead;
    out->overhead_gain_s = team > 0 ? (double)overhead / team * interval_s : 0.0;
    return out->efficiency.imbalance;
}

/*
 * Scheduling tasks is the runtime's own work, though the threads do it
 * waiting in a taskwait or barrier: the samples the task table charges
 * (ompc_task_sched_ns) count as scheduling, not synchronisation, so that
 * a run of tasks too fine for their overhead shows it in its metrics.
 */
static void move_task_scheduling(const struct ompc_advice_input *in, struct ompc_advice *advice)
{
    const struct ompc_task_granularity *tasks = &advice->tasks;
    uint64_t charged = 0;
    for (int i = 0; tasks->known && tasks->interval_ns > 0 && i < in->thread_count; i++)
        charged += ompc_task_sched_ns(tasks, &in->process->threads[i]) / (uint64_t)tasks->interval_ns;
    if (charged > advice->process.sync)
        charged = advice->process.sync;
    advice->task_sched = charged;
    advice->process.sync -= charged;
    advice->process.sched += charged;
}

/* The initial thread's share of samples in serial code, and Amdahl's bounds from it. */
static void advise_amdahl(const struct ompc_advice_input *in, struct ompc_advice *advice)
{
    for (int i = 0; i < in->thread_count; i++) {
        const struct ompc_model_thread *thread = &in->process->threads[i];
        /* Of the samples in a state: time inside MPI calls is neither serial nor parallel OpenMP code. */
        uint64_t total = thread_ticks(thread) - thread->state_ticks[0] - thread->mpi_ticks;
        if (!thread->initial || total == 0)
            continue;
        double f = (double)thread->state_ticks[THR_SERIAL_STATE] / (double)total;
        advice->serial_located_s = (double)thread->state_ticks[THR_SERIAL_STATE] * advice->interval_s;
        advice->serial_fraction = f;
        advice->amdahl_speedup = 1.0 / (f + (1.0 - f) / advice->threads);
        advice->amdahl_limit = f > 0 ? 1.0 / f : 0.0;
        return;
    }
}

/* Adds a finding when it gains enough on enough samples (a sample or two is chance), keeping the list the largest first and at most OMPC_MAX_FINDINGS long. */
static void consider(struct ompc_advice *advice, int kind, int index, double gain_s, uint64_t samples)
{
    if (samples < OMPC_FINDING_MIN_SAMPLES || !(gain_s > 0) || advice->run_s <= 0 || gain_s < OMPC_FINDING_MIN_SHARE * advice->run_s)
        return;
    int at = advice->finding_count;
    while (at > 0 && advice->findings[at - 1].gain_s < gain_s)
        at--;
    if (at >= OMPC_MAX_FINDINGS)
        return;
    int last = advice->finding_count < OMPC_MAX_FINDINGS ? advice->finding_count : OMPC_MAX_FINDINGS - 1;
    memmove(&advice->findings[at + 1], &advice->findings[at], (size_t)(last - at) * sizeof advice->findings[0]);
    advice->findings[at] = (struct ompc_finding){kind, index, gain_s};
    if (advice->finding_count < OMPC_MAX_FINDINGS)
        advice->finding_count++;
}

/* A task wait (taskwait, taskgroup): no construct's balance explains it, so it is a finding of its own. */
int ompc_wait_is_task_wait(const struct ompc_wait_row *row)
{
    return row->kind == OMPCOLLECTOR_WAIT_TASKWAIT || row->kind == OMPCOLLECTOR_WAIT_TASKGROUP;
}

/*
 * A lock, critical, atomic or ordered: the gain if the body it protects
 * stays serial.  Its constructs (those with samples in its wait state)
 * last E; with the body serial they cannot end before the body's total B
 * has run one thread at a time, so the waiting can go only down to that:
 * the gain is the waiting over the threads, at most E - B.  Without the
 * exclusion (wait_gain_s) the body runs in parallel and all of the
 * waiting goes.  An unmeasured body (a runtime without
 * OMPCOLLECTOR_WAIT_HELD) bounds nothing: both gains are the waiting.
 */
static void advise_exclusion(const struct ompc_locations *locations, const struct ompc_wait_row *row,
                             struct ompc_advice *advice, int i)
{
    double elapsed_s = 0;
    for (int c = 0; c < locations->construct_count; c++)
        if (locations->constructs[c].ticks[row->state] > 0)
            elapsed_s += (double)locations->constructs[c].total_ns / 1e9;
    advice->wait_body_s[i] = (double)row->held_ticks * advice->interval_s;
    if (row->held_ticks == 0 || elapsed_s <= 0)
        return;
    double room = elapsed_s - advice->wait_body_s[i];
    room = room > 0 ? room : 0;
    advice->wait_kept_gain_s[i] = advice->wait_gain_s[i] < room ? advice->wait_gain_s[i] : room;
}

/*
 * The wait locations' gains and findings: a barrier's belongs to its
 * construct's balance, the others (task waits among them) are their own --
 * unless tasks too fine for their overhead were found, whose gain holds
 * the waiting in task waits that scheduling them costs.
 */
static void advise_waits(const struct ompc_advice_input *in, struct ompc_advice *advice, int too_fine)
{
    const struct ompc_locations *locations = in->locations;
    for (int i = 0; i < locations->wait_count; i++) {
        const struct ompc_wait_row *row = &locations->waits[i];
        advice->wait_gain_s[i] = (double)row->ticks * advice->interval_s / advice->threads;
        advice->wait_kept_gain_s[i] = advice->wait_gain_s[i];
        if (row->state == THR_LKWT_STATE || row->state == THR_CTWT_STATE || row->state == THR_ODWT_STATE
            || row->state == THR_ATWT_STATE)
            advise_exclusion(locations, row, advice, i);
        /* An ordered region keeps its order: its fix shortens the body, which stays serial. */
        double gain = row->state == THR_ODWT_STATE ? advice->wait_kept_gain_s[i] : advice->wait_gain_s[i];
        if ((row->state != THR_IBAR_STATE && row->state != THR_EBAR_STATE) || (ompc_wait_is_task_wait(row) && !too_fine))
            consider(advice, OMPC_FINDING_WAIT, i, gain, row->ticks);
    }
}

/*
 * The task constructs too fine for their overhead, each a finding whose
 * gain is its tasks' overhead (creation, and the scheduling estimate per
 * dispatched run) over the threads; returns whether one made the list.
 */
static int advise_tasks(const struct ompc_advice_input *in, struct ompc_advice *advice)
{
    const struct ompc_task_granularity *tasks = &advice->tasks;
    double interval_ns = advice->interval_s * 1e9;
    for (int i = 0; tasks->known && i < tasks->count; i++) {
        const struct ompc_task_grain *grain = &tasks->constructs[i];
        if (grain->too_fine && interval_ns > 0)
            consider(advice, OMPC_FINDING_TOO_FINE, i, grain->cost_ns / 1e9 / advice->threads,
                     ompc_u64_of(grain->cost_ns / interval_ns));
    }
    (void)in;
    for (int i = 0; i < advice->finding_count; i++)
        if (advice->findings[i].kind == OMPC_FINDING_TOO_FINE)
            return 1;
    return 0;
}

/*
 * MPI waiting by call site: the time the program spent inside each MPI
 * call (MPI_Init and MPI_Finalize apart: starting and ending MPI is no
 * waiting a balanced layout removes).  It is the most a balance of the
 * ranks' work could take off this rank, whose other threads idle
 * meanwhile: a finding of its own, never serial code.
 */
static void advise_mpi(const struct ompc_advice_input *in, struct ompc_advice *advice)
{
    const struct ompc_mpi_sites *sites = &in->locations->mpi;
    for (int i = 0; i < sites->count; i++) {
        const struct ompc_mpi_site_row *row = &sites->rows[i];
        double seconds = (double)row->sum.ns / 1e9;
        if (!row->setup)
            consider(advice, OMPC_FINDING_MPI_WAIT, i, seconds < advice->run_s ? seconds : advice->run_s,
                     row->sum.ticks);
    }
}

int ompc_advice_build(const struct ompc_advice_input *in, struct ompc_advice *advice)
{
    const struct ompc_locations *locations = in->locations;
    memset(advice, 0, sizeof *advice);
    advice->constructs = calloc((size_t)locations->construct_count + 1, sizeof *advice->constructs);
    advice->wait_gain_s = calloc((size_t)locations->wait_count + 1, sizeof *advice->wait_gain_s);
    advice->wait_body_s = calloc((size_t)locations->wait_count + 1, sizeof *advice->wait_body_s);
    advice->wait_kept_gain_s = calloc((size_t)locations->wait_count + 1, sizeof *advice->wait_kept_gain_s);
    if (advice->constructs == NULL || advice->wait_gain_s == NULL || advice->wait_body_s == NULL
        || advice->wait_kept_gain_s == NULL)
        return -1;
    const struct ompc_report *report = in->report;
    advice->threads = in->openmp_threads;
    advice->interval_s = report->interval_ns > 0 ? (double)report->interval_ns / 1e9 : 0.0;
    advice->run_s = (double)report->wall_ns / 1e9;
    /* Samples inside MPI calls are in no state: they tell nothing of the OpenMP efficiency. */
    advice->known = report->sampling && advice->threads > 0
                    && in->total_ticks - in->mpi_ticks > in->state_ticks[0];
    if (!advice->known)
        return 0;
    if (ompc_task_granularity_build(in->process, locations, report->interval_ns, &advice->tasks) != 0)
        return -1;
    uint64_t imbalance = 0;
    for (int i = 0; i < locations->construct_count; i++) {
        imbalance += advise_construct(&locations->constructs[i], advice->interval_s, &advice->constructs[i]);
        const struct ompc_construct_advice *row = &advice->constructs[i];
        consider(advice, OMPC_FINDING_IMBALANCE, i, row->balance_gain_s, row->efficiency.imbalance);
        consider(advice, OMPC_FINDING_OVERHEAD, i, row->overhead_gain_s, row->overhead_samples);
    }
    split_states(in->state_ticks, imbalance, &advice->process);
    move_task_scheduling(in, advice);
    /* The team idle while its master is inside MPI waits for MPI, not for serial code: neither serialisation nor a serial finding. */
    advice->process.mpi_idle = in->mpi_idle_ticks < advice->process.serial ? in->mpi_idle_ticks : advice->process.serial;
    advice->process.serial -= advice->process.mpi_idle;
    /*
     * The run's threads were there for all of it as far as POP is concerned:
     * a worker the runtime started at the first fork left its core idle
     * until then, as the serial code kept it, and that is serialisation.
     */
    advice->process.before_threads = in->before_threads;
    advice->process.serial += in->before_threads;
    advice->process.mpi_idle += in->mpi_before_threads;
    advice->process.samples += in->before_threads + in->mpi_before_threads;
    rates(&advice->process);
    advise_amdahl(in, advice);
    /* Amdahl at the located serial code: run on the threads, its time S takes S / threads. */
    advice->serial_gain_s = advice->serial_located_s * (1.0 - 1.0 / advice->threads);
    consider(advice, OMPC_FINDING_SERIAL, -1, advice->serial_gain_s, advice->process.serial);
    advise_waits(in, advice, advise_tasks(in, advice));
    advise_mpi(in, advice);
    return 0;
}

void ompc_advice_free(struct ompc_advice *advice)
{
    ompc_task_granularity_free(&advice->tasks);
    free(advice->constructs);
    free(advice->wait_gain_s);
    free(advice->wait_body_s);
    free(advice->wait_kept_gain_s);
    memset(advice, 0, sizeof *advice);
}
