/* sections.h - the report's sections, each written from the analyses' figures in one format: the text report's tables, the CSV tables and the JSON report's members. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SECTIONS_H
#define OMPCOLLECT_SECTIONS_H 1

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "bounds.h"
#include "csv.h"
#include "locations.h"
#include "stacks.h"
#include "summary.h"
#include "tasks.h"

/* The report's three formats, each from the summary; the JSON one returns 0, or -1 when memory runs out or the write fails. */
void ompc_report_text(const struct summary *summary, FILE *out);
int ompc_report_csv(const struct summary *summary, struct ompc_csv_tables *tables);
int ompc_report_json(const struct summary *summary, FILE *out);

/* Advice (advice_write.c): the one sentence on what typically fixes a finding, worded as a hypothesis. */
const char *ompc_finding_hint(const struct summary *summary, const struct ompc_finding *finding);

/* The text report's "Opportunities" section (at its top) and "Efficiency" section (before its totals). */
void ompc_advice_text_opportunities(const struct summary *summary, FILE *out);
void ompc_advice_text_efficiency(const struct summary *summary, FILE *out);

/* The CSV tables "efficiency", "construct_efficiency", "wait_gain" and "opportunity"; -1 when memory ran out. */
int ompc_advice_csv(const struct summary *summary, struct ompc_csv_tables *tables);

/* The JSON members "efficiency" and "opportunities" of the report `root`; 0, or -1 when memory runs out. */
int ompc_advice_json(const struct summary *summary, json_t *root);

/* Adds MPI's start and end, the team's MPI waiting and the calls by site to a report's "totals.mpi"; 0, or -1 when memory runs out. */
int ompc_mpi_json(const struct summary *summary, json_t *mpi);

/* Locations (locations_write.c): the "Parallel constructs" and "Waits by location" text tables; `total` is the samples shares are of. */
void ompc_locations_text(const struct ompc_locations *locations, uint64_t total, FILE *out);

/* The same as CSV tables ("construct", "wait_location"), each after its header row; -1 when memory ran out. */
int ompc_locations_csv(const struct ompc_locations *locations, struct ompc_csv_tables *tables);

/* The same as members of the JSON report `report` ("locations_known", "constructs", "wait_locations", "modules", "modules_dropped"); `stacks` (NULL: none) adds what named their frames' modules.  0, or -1 when memory runs out. */
int ompc_locations_json(const struct ompc_locations *locations, const struct ompc_model_process *process,
                        const struct ompc_stacks *stacks, json_t *report);

/* Symbols (symbols_write.c): the text section naming the modules that hold reported code but no symbol table (nothing when there are none). */
void ompc_symbols_text(const struct summary *summary, FILE *out);

/* The process's modules as a JSON array of {path, bias, symbols, debug_file}: "symbols" says what named a module's reported code (null: none lay in it). */
json_t *ompc_modules_json(const struct ompc_model_process *process, const struct ompc_locations *locations,
                          const struct ompc_stacks *stacks);

/* function,file,line,module,module_offset of a location as CSV fields (no leading comma). */
void ompc_location_csv(FILE *out, const struct ompc_location *where);

/* {"address", "kind", "function", "function_offset", "file", "line", "module", "module_offset"} of a location. */
json_t *ompc_location_json(uint64_t address, const struct ompc_location *where);

/* Serial code (serial_write.c): the text table "Serial code by location" (nothing when the record did not keep it); `total` is the samples shares are of. */
void ompc_serial_text(const struct ompc_serial_places *serial, uint64_t total, FILE *out);
/* The CSV table "serial_location" (none when the record did not keep it); -1 when memory ran out. */
int ompc_serial_csv(const struct ompc_serial_places *serial, struct ompc_csv_tables *tables);
/* Sets the member "serial_code" of the JSON report `report` (null when the record did not keep it); 0, or -1 when memory runs out. */
int ompc_serial_json(const struct ompc_serial_places *serial, json_t *report);
/* A serial row's name: "function file:line", "function (module)" without lines, else module+offset. */
const char *ompc_serial_label(const struct ompc_serial_row *row, char *buffer, size_t size);
/* Tasks (tasks_write.c): the "Tasks" and "Tasks by construct" text tables (nothing when no task ran). */
/* `grain` gives each thread's scheduling estimate (granularity.h). */
void ompc_tasks_text(const struct ompc_model_process *process, const struct ompc_locations *locations,
                     const struct ompc_task_granularity *grain, FILE *out);

/* The "task" and "task_construct" CSV tables, header rows first (nothing when no task ran); -1 when memory ran out. */
int ompc_tasks_csv(const struct ompc_model_process *process, const struct ompc_locations *locations,
                   const struct ompc_task_granularity *grain, struct ompc_csv_tables *tables);

/* Sets the member "tasks" of the JSON report `report`: an object (with "constructs"), or null when no task ran; 0, or -1 when memory runs out. */
int ompc_tasks_json(const struct ompc_model_process *process, const struct ompc_locations *locations,
                    const struct ompc_task_granularity *grain, json_t *report);

/* The task graph's second figures (tasks_write.c), the same in the JSON report and the JSON graph: the longest measured path with its outliers, and the task classes; -1 when memory ran out. */
struct ompc_task_graph;
int ompc_task_graph_json_measured(const struct ompc_task_graph *graph, json_t *object);

/* Stacks (stacks_write.c): the folded stacks, "main;solve;work;IBAR 12", one line per stack and state; returns 0 or -1 on a write error. */
int ompc_stacks_folded(const struct ompc_stacks *stacks, FILE *out);

/* The text report's section: a top-down call tree per state, shares of `total` samples. */
void ompc_stacks_text(const struct ompc_stacks *stacks, uint64_t total, FILE *out);

/* Sets the member "stacks" of the JSON report `report` (null when `stacks` is NULL); 0, or -1 when memory runs out. */
int ompc_stacks_json(const struct ompc_stacks *stacks, json_t *report);

/* Limits (bounds_write.c): as a JSON array of {what, count, bound, text}, the same in the report and the trace; NULL when out of memory. */
json_t *ompc_limits_json(const struct ompc_limit *limits, int count);

#endif /* OMPCOLLECT_SECTIONS_H */
