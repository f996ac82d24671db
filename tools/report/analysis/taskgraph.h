/* taskgraph.h - the task graph of one process, from the model's logged tasks: creation and join edges, each task's own time, and work, span and parallelism over it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TASKGRAPH_H
#define OMPCOLLECT_TASKGRAPH_H 1

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/*
 * Past this many tasks the graph files draw one node per task construct
 * and creation depth instead of one per task (said on stderr and in the
 * outputs, as a limit: bounds.c).  Work, span and parallelism always count
 * every logged task (all the run's unless the event log ran full: created).
 */
#define OMPC_TASK_GRAPH_NODES 5000

/*
 * A task class (same construct, creation depth and number of children)
 * needs this many members before the span counts its typical own time for
 * each of them: with fewer there is no majority to call one of them
 * atypical, and each keeps its own time (doc/ompcollect.1, "Task graph").
 */
#define OMPC_TASK_CLASS_MIN 3

/* A class's typical time leaves out the tasks over this many times its median own time (taskgraph.c, typical_of). */
#ifndef OMPC_TASK_TRIM
#define OMPC_TASK_TRIM 10
#endif

/* A task whose own time is over this many times its typical time is an outlier of the longest measured path. */
#define OMPC_TASK_OUTLIER_FACTOR 2

/*
 * One task of the graph, parallel to the model's task table.  Times are
 * the task's own: its runs less the task runs nested in them on the same
 * thread.  The path values are in ns of typical work (typical_ns, spread
 * over its run as its own time is) along the longest path from the start
 * of its parallel region (see doc/ompcollect.1, "Task graph").
 */
struct ompc_graph_task {
    uint64_t own_ns;        /* its runs, less the runs of other tasks inside them */
    uint64_t typical_ns;    /* what the span counts for it: its class's typical own time, or its own (taskgraph.c, typical_times) */
    uint32_t class_size;    /* tasks of its class: construct, depth and children alike */
    uint64_t start_path;    /* longest path to its start */
    uint64_t end_path;      /* longest path to its completion */
    int64_t parent;         /* index of its creating task in the table, -1: created by an implicit task (a root) */
    int64_t root;           /* index of the root of its tree */
    uint32_t depth;         /* creation depth: 0 for a root */
    uint32_t children;      /* tasks it created */
    int joined;             /* it completed while its parent still ran: a join edge into the parent */
    int on_path;            /* on the critical path */
    int64_t start_via;      /* the path's step before its start: see taskgraph.c */
    int64_t start_dep;      /* the dependence source whose completion its start waited for on the path, -1 none */
    int64_t end_via;        /* ... before its completion */
};

/* A dependence from depend clauses: `sink` started after `source` completed (indices in the table). */
struct ompc_graph_dependence {
    size_t source, sink;
};

/* The graph of one process. */
struct ompc_task_graph {
    size_t count;                 /* tasks: the model's task_count */
    struct ompc_graph_task *tasks;
    uint64_t work_ns;             /* the sum of every task's own time */
    uint64_t span_ns;             /* the sum over parallel regions of their longest path, in typical times */
    size_t *path;                 /* the critical path's tasks, in path order (indices) */
    size_t path_length;
    size_t classes;               /* task classes; of them, with OMPC_TASK_CLASS_MIN members or more: */
    size_t typical_classes;
    size_t depth_free_tasks;      /* tasks of smaller classes at their construct's typical time over depths (taskgraph.c) */
    /*
     * The same longest path over measured own times, which one delayed
     * task sets: its length, its tasks, and those of them over
     * OMPC_TASK_OUTLIER_FACTOR times their typical time with their
     * measured time past it.
     */
    uint64_t measured_span_ns;
    size_t measured_path_length, measured_outliers;
    uint64_t measured_excess_ns;
    size_t roots, joins;          /* tasks created by implicit tasks; join edges */
    uint32_t regions;             /* parallel regions whose tasks the span adds up */
    struct ompc_graph_dependence *dependences; /* distinct, sorted by source then sink */
    size_t dependence_count;
    uint32_t max_depth;
    /*
     * The tasks the agent counted created (every construct row's, whether
     * or not the event log held them): the share of the run the graph
     * covers is count / created.  created_exact is 0 when the construct
     * table was full, and then created is a lower bound.
     */
    uint64_t created;
    int created_exact;
};

/* Whether the graph holds fewer tasks than the run created (its event log ran full): figures of a part of the run. */
int ompc_task_graph_partial(const struct ompc_task_graph *graph);

/* Builds the graph of `process`'s logged tasks (none: count 0); 0, or -1 when memory ran out. */
int ompc_task_graph_build(const struct ompc_model_process *process, struct ompc_task_graph *graph);

/* Frees what build allocated; safe on a zeroed graph. */
void ompc_task_graph_free(struct ompc_task_graph *graph);

/* work / span, 0 when the span is 0. */
double ompc_task_graph_parallelism(const struct ompc_task_graph *graph);

/* work / the longest measured path, 0 when that is 0. */
double ompc_task_graph_measured_parallelism(const struct ompc_task_graph *graph);

#endif /* OMPCOLLECT_TASKGRAPH_H */
