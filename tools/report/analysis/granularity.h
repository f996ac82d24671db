/* granularity.h - task granularity: the per-task overhead a run shows (creation measured per task construct, scheduling estimated from the waiting of the threads that ran tasks) and the task constructs whose tasks are too fine for it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_GRANULARITY_H
#define OMPCOLLECT_GRANULARITY_H 1

#include <stdint.h>

#include "locations.h"
#include "model.h"

/* A task construct whose mean task time is under this many times its per-task overhead is too fine (ompcollect(1), TASK GRANULARITY). */
#define OMPC_TOO_FINE_FACTOR 10

/* The fewest samples a thread must have for its waiting per task run to be an estimate of the scheduling cost. */
#define OMPC_SCHED_MIN_SAMPLES 10

/* One task construct's granularity (same index as the locations' task_constructs). */
struct ompc_task_grain {
    double mean_ns;     /* a run's mean time less the waiting in it: the table's mean times the work share */
    double create_ns;   /* creation per task: the construct's create time over its tasks, and the runtime's work per task */
    double sched_ns;    /* scheduling per task as the check counts it: the run's estimate, at most create_ns */
    double overhead_ns; /* create_ns + sched_ns */
    double cost_ns;     /* what its tasks' overhead may cost in all: creation, and the estimate for each dispatched run */
    double cost_per_task_ns; /* cost_ns over its tasks: the one overhead per task its gain is made of */
    uint64_t created;   /* its tasks */
    int too_fine;       /* mean_ns < OMPC_TOO_FINE_FACTOR * overhead_ns */
};

/* The process's task granularity; `known` 0 when no sampled thread ran a task of a known construct. */
struct ompc_task_granularity {
    int known;
    /*
     * Scheduling per dispatched task run: the least barrier and taskwait
     * waiting (IBAR, EBAR samples) per run it dispatched of any thread
     * that ran tasks -- an upper bound, as that waiting also holds real
     * waiting (for a ready task, for a descheduled thread).
     */
    double sched_ns;
    int sched_thread;   /* the thread slot it comes from, -1 none */
    double work_share;  /* WORK samples over the explicit-task execution time of the threads that ran tasks, at most 1 */
    int64_t interval_ns; /* the sampling interval it was derived with */
    /*
     * Sampled tier (no run followed): the run's deferred tasks per ns of
     * sampled task time, by which a thread's dispatched runs are estimated
     * from its sampled task time; 0 in the full tier (counted runs).
     */
    double deferred_per_exec_ns;
    /*
     * The runtime's own work per task created: the threads' WORK samples
     * in the runtime's code over the tasks of every construct.  Creating,
     * queueing and finishing a task costs there, where no task event
     * brackets it (the create phase times the tool's callback only).
     */
    double runtime_per_task_ns;
    struct ompc_task_grain *constructs;
    int count;
};

/* Task runs a thread dispatched from a queue: its runs less the tasks it ran undeferred. */
uint64_t ompc_task_dispatched(const struct ompc_model_thread *thread);

/* A thread's WORK samples in the runtime's code, in ns: its part of the tasks' creation (0 when nothing is known). */
uint64_t ompc_task_runtime_ns(const struct ompc_task_granularity *granularity, const struct ompc_model_thread *thread);

/* A thread's scheduling overhead: its task runs taken from a queue times the estimate, at most its own IBAR and EBAR time. */
uint64_t ompc_task_sched_ns(const struct ompc_task_granularity *granularity, const struct ompc_model_thread *thread);

/* Derives the granularity; 0, or -1 when memory runs out.  interval_ns 0: no sampling, nothing known. */
int ompc_task_granularity_build(const struct ompc_model_process *process, const struct ompc_locations *locations,
                                int64_t interval_ns, struct ompc_task_granularity *out);

/* Frees what build allocated; safe on a zeroed one. */
void ompc_task_granularity_free(struct ompc_task_granularity *granularity);

#endif /* OMPCOLLECT_GRANULARITY_H */
