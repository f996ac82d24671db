/* granularity.c - derives the per-task overhead a run shows and flags the task constructs whose tasks are too fine for it (ompcollect(1), TASK GRANULARITY). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "granularity.h"
#include "checked.h"
#include "omp_collector_api.h"

#include <stdlib.h>
#include <string.h>

/* How often task event `event` arrived on a thread. */
static uint64_t task_event(const struct ompc_model_thread *thread, int event)
{
    return thread->task_events[event - OMPC_TASK_EVENT_FIRST];
}

uint64_t ompc_task_dispatched(const struct ompc_model_thread *thread)
{
    uint64_t runs = task_event(thread, OMP_EVENT_THR_BEGIN_EXEC_TASK);
    uint64_t undeferred = task_event(thread, OMP_EVENT_THR_END_CREATE_TASK_IMM);
    return runs > undeferred ? runs - undeferred : 0;
}

/* A thread's dispatched runs: counted, or in the sampled tier estimated from its share of the sampled task time. */
static double dispatched_of(const struct ompc_task_granularity *granularity, const struct ompc_model_thread *thread)
{
    if (granularity->deferred_per_exec_ns > 0)
        return (double)thread->task_exec_ns * granularity->deferred_per_exec_ns;
    return (double)ompc_task_dispatched(thread);
}

/* Samples of a thread over every state. */
static uint64_t samples_of(const struct ompc_model_thread *thread)
{
    uint64_t total = 0;
    for (int state = 0; state < OMPC_NSTATES; state++)
        total += thread->state_ticks[state];
    return total;
}

/*
 * The scheduling estimate and the work share from the threads that ran
 * tasks.  The least waiting per run over the threads is taken because
 * waiting is scheduling or real waiting, and the thread that waited least
 * per task it ran shows the least real waiting: where work is uneven, the
 * most loaded thread hardly waits.
 */
static void from_threads(const struct ompc_model_process *process, int64_t interval_ns,
                         struct ompc_task_granularity *out)
{
    double work_ns = 0, exec_ns = 0;
    int count = process->thread_count < 0 ? 0 : process->thread_count > OMPC_MAX_THREADS ? OMPC_MAX_THREADS
                                                                                          : process->thread_count;
    out->sched_thread = -1;
    for (int i = 0; i < count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        double dispatched = dispatched_of(out, thread);
        int ran = out->deferred_per_exec_ns > 0 ? thread->task_exec_ns != 0
                                                : task_event(thread, OMP_EVENT_THR_BEGIN_EXEC_TASK) != 0;
        if (!ran)
            continue;
        work_ns += (double)thread->state_ticks[THR_WORK_STATE] * (double)interval_ns;
        exec_ns += (double)thread->task_exec_ns;
        if (dispatched < 1 || samples_of(thread) < OMPC_SCHED_MIN_SAMPLES)
            continue;
        uint64_t waiting = thread->state_ticks[THR_IBAR_STATE] + thread->state_ticks[THR_EBAR_STATE];
        double per_run = (double)waiting * (double)interval_ns / dispatched;
        if (out->sched_thread < 0 || per_run < out->sched_ns) {
            out->sched_ns = per_run;
            out->sched_thread = i;
        }
    }
    /* A task's run also counts the waiting in a taskwait inside it: only its WORK share is the task's own time. */
    out->work_share = exec_ns > 0 && work_ns < exec_ns ? work_ns / exec_ns : 1.0;
    out->known = out->sched_thread >= 0;
}

/*
 * One construct's figures.  The check counts scheduling at most as much as
 * creation: the estimate holds real waiting too (on a loaded machine, the
 * time a descheduled thread kept the others waiting), and taking a task
 * off a queue costs the runtime no more than making and queueing it.
 */
static void grain_of(const struct ompc_model_task_construct *row, const struct ompc_task_granularity *process,
                     struct ompc_task_grain *out)
{
    memset(out, 0, sizeof *out);
    if (row->created == 0 || row->timed_runs == 0)
        return;
    out->mean_ns = (double)row->exec_ns / (double)row->timed_runs * process->work_share;
    out->create_ns = (double)row->create_ns / (double)row->created + process->runtime_per_task_ns;
    out->sched_ns = process->sched_ns < out->create_ns ? process->sched_ns : out->create_ns;
    out->overhead_ns = out->create_ns + out->sched_ns;
    /* The sampled tier follows no run: each deferred task is taken as dispatched once. */
    uint64_t runs = process->deferred_per_exec_ns > 0 ? row->created : row->runs;
    uint64_t dispatched = runs > row->undeferred ? runs - row->undeferred : 0;
    out->cost_ns = out->create_ns * (double)row->created + (double)dispatched * process->sched_ns;
    out->created = row->created;
    out->cost_per_task_ns = out->cost_ns / (double)row->created;
    out->too_fine = out->overhead_ns > 0 && out->mean_ns < OMPC_TOO_FINE_FACTOR * out->overhead_ns;
}

/* The sampled tier's deferred tasks per ns of sampled task time, over the threads (0 when none was sampled). */
static double sampled_rate(const struct ompc_model_process *process)
{
    double deferred = 0, exec_ns = 0;
    int count = process->thread_count < 0 ? 0 : process->thread_count > OMPC_MAX_THREADS ? OMPC_MAX_THREADS
                                                                                          : process->thread_count;
    for (int i = 0; i < count; i++) {
        deferred += (double)task_event(&process->threads[i], OMP_EVENT_THR_END_CREATE_TASK_DEL);
        exec_ns += (double)process->threads[i].task_exec_ns;
    }
    return exec_ns > 0 ? deferred / exec_ns : 0;
}

/* The runtime's work per task created, from the threads' WORK samples in its code (0 when no task was counted). */
static double runtime_rate(const struct ompc_model_process *process, const struct ompc_locations *locations,
                           int64_t interval_ns)
{
    double created = 0, ticks = 0;
    for (int i = 0; i < locations->task_construct_count; i++)
        created += (double)locations->task_constructs[i].sum.created;
    int count = process->thread_count < 0 ? 0 : process->thread_count > OMPC_MAX_THREADS ? OMPC_MAX_THREADS
                                                                                          : process->thread_count;
    for (int i = 0; i < count; i++)
        ticks += (double)process->threads[i].runtime_work_ticks;
    return created > 0 ? ticks * (double)interval_ns / created : 0;
}

int ompc_task_granularity_build(const struct ompc_model_process *process, const struct ompc_locations *locations,
                                int64_t interval_ns, struct ompc_task_granularity *out)
{
    memset(out, 0, sizeof *out);
    out->sched_thread = -1;
    if (interval_ns <= 0 || !process->has_task_info || locations->task_construct_count <= 0)
        return 0;
    out->interval_ns = interval_ns;
    out->constructs = calloc((size_t)locations->task_construct_count, sizeof *out->constructs);
    if (out->constructs == NULL)
        return -1;
    out->count = locations->task_construct_count;
    if (process->task_tier == OMPC_TASK_TIER_SAMPLED)
        out->deferred_per_exec_ns = sampled_rate(process);
    out->runtime_per_task_ns = runtime_rate(process, locations, interval_ns);
    from_threads(process, interval_ns, out);
    for (int i = 0; out->known && i < out->count; i++)
        grain_of(&locations->task_constructs[i].sum, out, &out->constructs[i]);
    return 0;
}

uint64_t ompc_task_sched_ns(const struct ompc_task_granularity *granularity, const struct ompc_model_thread *thread)
{
    if (!granularity->known)
        return 0;
    double charged = dispatched_of(granularity, thread) * granularity->sched_ns;
    double waited = (double)(thread->state_ticks[THR_IBAR_STATE] + thread->state_ticks[THR_EBAR_STATE])
                    * (double)granularity->interval_ns;
    return ompc_u64_of(charged < waited ? charged : waited);
}

uint64_t ompc_task_runtime_ns(const struct ompc_task_granularity *granularity, const struct ompc_model_thread *thread)
{
    if (!granularity->known)
        return 0;
    return ompc_u64_of((double)thread->runtime_work_ticks * (double)granularity->interval_ns);
}

void ompc_task_granularity_free(struct ompc_task_granularity *granularity)
{
    free(granularity->constructs);
    memset(granularity, 0, sizeof *granularity);
    granularity->sched_thread = -1;
}
