/* tasks.h - the task table's figures: explicit tasks created, executed, stolen and suspended per thread, from the task events 23..35, and the task graph's critical path by construct. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TASKS_H
#define OMPCOLLECT_TASKS_H 1

#include <stddef.h>
#include <stdint.h>

#include "granularity.h"
#include "model.h"
#include "record.h"

/* Whether a thread saw any task event. */
int ompc_thread_had_tasks(const struct ompc_model_thread *thread);

/* Whether any task event arrived in the process: the table is shown only then. */
int ompc_tasks_ran(const struct ompc_model_process *process);

/*
 * The task overhead of the OpenMP threads (the task table's "all" row):
 * creating tasks, and scheduling them as `grain` estimates it; 0 when the
 * run gives no estimate (then *sched_ns is 0 too, and *create_ns the
 * creation time all the same).
 */
int ompc_tasks_overhead(const struct ompc_model_process *process, const struct ompc_task_granularity *grain,
                        uint64_t *create_ns, uint64_t *sched_ns);

/* One thread's task figures, or their sum. */
struct ompc_task_row {
    uint64_t created, undeferred, deferred, executed, stolen, suspensions;
    uint64_t create_ns, exec_ns, suspend_ns, lifetime_ns;
    uint64_t sched_ns; /* its dispatched runs times the scheduling estimate (granularity.h): at most its waiting */
    int sched_known;   /* the run gave that estimate */
};

/* Thread slots in use, bounded by the table. */
int ompc_tasks_thread_count(const struct ompc_model_process *process);

/*
 * A thread's figures: created counts BEGIN_CREATE_TASK, split by the END
 * that closed it.  With `once` (the runtime answers TASK_INFO) a task
 * counts as executed once, where its last run ends, and as stolen once, at
 * its first run; else every run (each part of an untied task) counts.
 */
struct ompc_task_row ompc_task_thread_row(const struct ompc_model_thread *thread, int once,
                                          const struct ompc_task_granularity *grain);

/* Every thread together, the untracked ones (past OMPC_MAX_THREADS, counts only) included. */
struct ompc_task_row ompc_task_total_row(const struct ompc_model_process *process,
                                         const struct ompc_task_granularity *grain);

/* A task construct on the critical path, and how many of the path's tasks it made. */
struct ompc_path_construct {
    uint64_t codeptr;
    size_t first, tasks; /* first: its first task's place on the path */
};

struct ompc_task_graph;

/* The critical path's constructs in the order the path meets them; NULL (count 0) when memory ran out or no path. */
struct ompc_path_construct *ompc_task_path_constructs(const struct ompc_model_process *process,
                                                      const struct ompc_task_graph *graph, size_t *count);

#endif /* OMPCOLLECT_TASKS_H */
