/* tasks.c - the task table's figures (per thread and in all) from the per-thread task counters the agent recorded, and the constructs on the task graph's critical path. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "omp_collector_api.h"
#include "tasks.h"
#include "sort.h"
#include "taskgraph.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


/* How often task event `event` (23..35) arrived on a thread. */
static uint64_t task_count(const struct ompc_model_thread *thread, int event)
{
    return thread->task_events[event - OMPC_TASK_EVENT_FIRST];
}

/* Thread slots in use, bounded by the table. */
int ompc_tasks_thread_count(const struct ompc_model_process *process)
{
    int count = process->thread_count;
    return count < 0 ? 0 : count > OMPC_MAX_THREADS ? OMPC_MAX_THREADS : count;
}

/*
 * A thread's figures: created counts BEGIN_CREATE_TASK, split by the END
 * that closed it.  Where the runtime answers TASK_INFO a task counts as
 * executed once, where its last run ends, and as stolen once, at its
 * first run; else every run (each part of an untied task) counts.
 */
struct ompc_task_row ompc_task_thread_row(const struct ompc_model_thread *thread, int once,
                                          const struct ompc_task_granularity *grain)
{
    struct ompc_task_row row;
    row.created = task_count(thread, OMP_EVENT_THR_BEGIN_CREATE_TASK);
    row.undeferred = task_count(thread, OMP_EVENT_THR_END_CREATE_TASK_IMM);
    row.deferred = task_count(thread, OMP_EVENT_THR_END_CREATE_TASK_DEL);
    row.executed = once ? thread->task_completions : task_count(thread, OMP_EVENT_THR_BEGIN_EXEC_TASK);
    row.stolen = once ? thread->task_first_steals : task_count(thread, OMP_EVENT_THR_BEGIN_STEAL_TASK);
    row.suspensions = thread->task_suspensions;
    /* Creation as the granularity counts it: the tool's create phase and the runtime's work sampled in its code. */
    row.create_ns = thread->task_create_ns + ompc_task_runtime_ns(grain, thread);
    row.exec_ns = thread->task_exec_ns;
    row.suspend_ns = thread->task_suspend_ns;
    uint64_t end = thread->end_ns;
    row.lifetime_ns = end > thread->start_ns ? end - thread->start_ns : 0;
    row.sched_known = grain->known;
    row.sched_ns = ompc_task_sched_ns(grain, thread);
    return row;
}

/* Adds one row into a sum. */
static void add_row(struct ompc_task_row *sum, const struct ompc_task_row *row)
{
    sum->created += row->created;
    sum->undeferred += row->undeferred;
    sum->deferred += row->deferred;
    sum->executed += row->executed;
    sum->stolen += row->stolen;
    sum->suspensions += row->suspensions;
    sum->create_ns += row->create_ns;
    sum->exec_ns += row->exec_ns;
    sum->suspend_ns += row->suspend_ns;
    sum->lifetime_ns += row->lifetime_ns;
    sum->sched_ns += row->sched_ns;
    sum->sched_known = row->sched_known;
}

/* Whether a thread saw any task event. */
int ompc_thread_had_tasks(const struct ompc_model_thread *thread)
{
    /* In the sampled tier a thread that only ran tasks has their sampled time and no task event. */
    if (thread->task_exec_ns != 0)
        return 1;
    for (int i = 0; i < OMPC_TASK_EVENTS; i++)
        if (thread->task_events[i] != 0)
            return 1;
    return 0;
}

int ompc_tasks_ran(const struct ompc_model_process *process)
{
    if (ompc_thread_had_tasks(&process->untracked))
        return 1;
    int count = ompc_tasks_thread_count(process);
    for (int i = 0; i < count; i++)
        if (ompc_thread_had_tasks(&process->threads[i]))
            return 1;
    return 0;
}

/* Every thread together, the untracked ones (past OMPC_MAX_THREADS, counts only) included. */
struct ompc_task_row ompc_task_total_row(const struct ompc_model_process *process, const struct ompc_task_granularity *grain)
{
    struct ompc_task_row sum;
    memset(&sum, 0, sizeof sum);
    struct ompc_task_row untracked = ompc_task_thread_row(&process->untracked, process->has_task_info != 0, grain);
    untracked.lifetime_ns = 0;
    add_row(&sum, &untracked);
    int count = ompc_tasks_thread_count(process);
    for (int i = 0; i < count; i++) {
        struct ompc_task_row row = ompc_task_thread_row(&process->threads[i], process->has_task_info != 0, grain);
        add_row(&sum, &row);
    }
    return sum;
}

int ompc_tasks_overhead(const struct ompc_model_process *process, const struct ompc_task_granularity *grain,
                        uint64_t *create_ns, uint64_t *sched_ns)
{
    struct ompc_task_row sum = ompc_task_total_row(process, grain);
    *create_ns = sum.create_ns;
    *sched_ns = sum.sched_ns;
    return sum.sched_known;
}


static int compare_path_codeptr(const void *a, const void *b)
{
    const struct ompc_path_construct *x = a, *y = b;
    if (x->codeptr != y->codeptr)
        return x->codeptr < y->codeptr ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static int compare_path_first(const void *a, const void *b)
{
    const struct ompc_path_construct *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* The critical path's constructs in the order the path meets them; NULL (count 0) when memory ran out or no path. */
struct ompc_path_construct *ompc_task_path_constructs(const struct ompc_model_process *process,
                                              const struct ompc_task_graph *graph, size_t *count)
{
    *count = 0;
    struct ompc_path_construct *rows = malloc((graph->path_length + 1) * sizeof *rows);
    if (rows == NULL)
        return NULL;
    for (size_t i = 0; i < graph->path_length; i++)
        rows[i] = (struct ompc_path_construct){process->tasks[graph->path[i]].codeptr, i, 1};
    ompc_qsort(rows, graph->path_length, sizeof *rows, compare_path_codeptr);
    size_t unique = 0;
    for (size_t i = 0; i < graph->path_length; i++) {
        if (unique > 0 && rows[unique - 1].codeptr == rows[i].codeptr)
            rows[unique - 1].tasks++;
        else
            rows[unique++] = rows[i];
    }
    ompc_qsort(rows, unique, sizeof *rows, compare_path_first);
    *count = unique;
    return rows;
}
