/* tasks.h - the task table of ompcollect's report: explicit tasks created, executed, stolen and suspended per thread, from the task events 23..35. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TASKS_H
#define OMPCOLLECT_TASKS_H 1

#include <jansson.h>
#include <stdio.h>

#include "granularity.h"
#include "model.h"
#include "locations.h"
#include "record.h"

/* Whether any task event arrived in the process: the table is shown only then. */
int ompc_tasks_ran(const struct ompc_model_process *process);

/* The "Tasks" and "Tasks by construct" text tables (nothing when no task ran). */
/* `grain` gives each thread's scheduling estimate (granularity.h). */
void ompc_tasks_text(const struct ompc_model_process *process, const struct ompc_locations *locations,
                     const struct ompc_task_granularity *grain, FILE *out);

struct ompc_csv_tables;

/* The "task" and "task_construct" CSV tables, header rows first (nothing when no task ran); -1 when memory ran out. */
int ompc_tasks_csv(const struct ompc_model_process *process, const struct ompc_locations *locations,
                   const struct ompc_task_granularity *grain, struct ompc_csv_tables *tables);

/*
 * The task overhead of the OpenMP threads (the task table's "all" row):
 * creating tasks, and scheduling them as `grain` estimates it; 0 when the
 * run gives no estimate (then *sched_ns is 0 too, and *create_ns the
 * creation time all the same).
 */
int ompc_tasks_overhead(const struct ompc_model_process *process, const struct ompc_task_granularity *grain,
                        uint64_t *create_ns, uint64_t *sched_ns);

/* Sets the member "tasks" of the JSON report `report`: an object (with "constructs"), or null when no task ran; 0, or -1 when memory runs out. */
int ompc_tasks_json(const struct ompc_model_process *process, const struct ompc_locations *locations,
                    const struct ompc_task_granularity *grain, json_t *report);

#endif /* OMPCOLLECT_TASKS_H */
