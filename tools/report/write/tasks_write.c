/* tasks_write.c - the task tables in every format: per thread, by construct and the task graph's figures, as text, CSV and JSON, from the figures tasks.c and taskgraph.c derived. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "checked.h"
#include "jsonw.h"
#include "omp_collector_api.h"
#include "sort.h"
#include "taskgraph.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mean execution time of one run of a construct's tasks, 0 when none was timed. */
static uint64_t mean_run_ns(const struct ompc_model_task_construct *row)
{
    return row->timed_runs ? row->exec_ns / row->timed_runs : 0;
}

/* How many rows the text table of task constructs shows. */
#define SITE_TEXT_ROWS 15

/* A count for a text table, "-" where the sampled tier did not follow it. */
static const char *count_or_dash(int followed, uint64_t value, char *buffer, size_t size)
{
    if (!followed)
        return "-";
    snprintf(buffer, size, "%" PRIu64, value);
    return buffer;
}

/* A time in `scale` units for a text table, "-" where the sampled tier did not follow it. */
static const char *time_or_dash(int followed, double value, const char *format, char *buffer, size_t size)
{
    if (!followed)
        return "-";
    snprintf(buffer, size, format, value);
    return buffer;
}

/*
 * The sampled tier's note: how many samples the construct times rest on
 * and the margin they carry (about 2 sqrt(n) samples either way, the
 * spread of a count of independent hits).
 */
static void sampled_note(const struct ompc_locations *locations, int64_t interval_ns, FILE *out)
{
    uint64_t sampled = 0;
    for (int i = 0; i < locations->task_construct_count; i++)
        sampled += locations->task_constructs[i].sum.exec_ns;
    double samples = interval_ns > 0 ? (double)sampled / (double)interval_ns : 0;
    fprintf(out,
            "  (sampled: tasks counted as they were created; exec is sampled time, %.0f samples in all, each\n"
            "  row within about 2 x sqrt(its samples) samples of %.3f ms; mean: exec / created; executed,\n"
            "  runs, stolen, max and suspend need --tasks=full, which follows every run)\n",
            samples, interval_ns / 1e6);
}

/* "Tasks by construct": one row per task construct, most execution time first. */
static void sites_text(const struct ompc_model_process *process, const struct ompc_locations *locations,
                       int64_t interval_ns, FILE *out)
{
    char label[512], executed[24], runs[24], stolen[24], max[24], suspend[24];
    int full = process->task_tier != OMPC_TASK_TIER_SAMPLED;
    fputs("\nTasks by construct (one row per task construct; exec = runs less time suspended; most exec first):\n",
          out);
    if (!process->has_task_info) {
        fputs("  the runtime does not answer OMPCOLLECTOR_REQ_TASK_INFO: task constructs are unknown\n", out);
        return;
    }
    if (locations->task_construct_count == 0) {
        fputs("  none\n", out);
        return;
    }
    fprintf(out, "  %-32s %9s %10s %9s %8s %7s %10s %9s %9s %10s %7s\n", "construct", "created", "undeferred",
            "executed", "runs", "stolen", full ? "exec ms" : "~exec ms", "mean us", "max us", "suspend ms", "threads");
    for (int i = 0; i < locations->task_construct_count && i < SITE_TEXT_ROWS; i++) {
        const struct ompc_task_construct_row *site = &locations->task_constructs[i];
        const struct ompc_model_task_construct *row = &site->sum;
        fprintf(out, "  %-32s %9" PRIu64 " %10" PRIu64 " %9s %8s %7s %10.3f %9.1f %9s %10s %7d\n",
                ompc_location_label(&site->where, row->codeptr, label, sizeof label), row->created, row->undeferred,
                count_or_dash(full, row->completed, executed, sizeof executed),
                count_or_dash(full, row->runs, runs, sizeof runs), count_or_dash(full, row->stolen, stolen, sizeof stolen),
                row->exec_ns / 1e6, mean_run_ns(row) / 1e3, time_or_dash(full, row->max_ns / 1e3, "%.1f", max, sizeof max),
                time_or_dash(full, row->suspend_ns / 1e6, "%.3f", suspend, sizeof suspend),
                popcount64(row->thread_mask));
    }
    if (locations->task_construct_count > SITE_TEXT_ROWS)
        fprintf(out, "  ... %d more task constructs\n", locations->task_construct_count - SITE_TEXT_ROWS);
    fputs("  (executed: tasks that completed, once each; runs: their runs on a thread, one per part of an\n"
          "  untied task; mean and max: of one run; threads: that ran a task of the construct)\n",
          out);
    if (!full)
        sampled_note(locations, interval_ns, out);
}

/* The "task_construct" CSV table. */
static int sites_csv(const struct ompc_model_process *process, const struct ompc_locations *locations,
                     struct ompc_csv_tables *tables)
{
    if (!process->has_task_info)
        return 0;
    FILE *out = ompc_csv_begin(tables, "task_construct");
    if (out == NULL)
        return -1;
    fputs("codeptr,function,file,line,module,module_offset,created,undeferred,deferred,executed,runs,stolen,"
          "create_ns,exec_ns,mean_ns,max_ns,suspend_ns,suspensions,threads,thread_mask\n",
          out);
    for (int i = 0; i < locations->task_construct_count; i++) {
        const struct ompc_task_construct_row *site = &locations->task_constructs[i];
        const struct ompc_model_task_construct *row = &site->sum;
        ompc_csv_lead(tables);
        fprintf(out, "0x%" PRIx64 ",", row->codeptr);
        ompc_location_csv(out, &site->where);
        fprintf(out,
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,0x%" PRIx64 "\n",
                row->created, row->undeferred, row->created - row->undeferred, row->completed, row->runs,
                row->stolen, row->create_ns, row->exec_ns, mean_run_ns(row), row->max_ns, row->suspend_ns,
                row->suspensions, popcount64(row->thread_mask), row->thread_mask);
    }
    return 0;
}

/* One task construct as a JSON object. */
static json_t *site_json(const struct ompc_task_construct_row *site)
{
    const struct ompc_model_task_construct *row = &site->sum;
    json_t *object = json_object();
    int failed = ompc_json_set(object, "location", ompc_location_json(row->codeptr, &site->where));
    failed |= ompc_json_set(object, "copies", json_integer(site->copies));
    failed |= ompc_json_set(object, "created", ompc_json_u64(row->created));
    failed |= ompc_json_set(object, "undeferred", ompc_json_u64(row->undeferred));
    failed |= ompc_json_set(object, "deferred", ompc_json_u64(row->created - row->undeferred));
    failed |= ompc_json_set(object, "executed", ompc_json_u64(row->completed));
    failed |= ompc_json_set(object, "runs", ompc_json_u64(row->runs));
    failed |= ompc_json_set(object, "stolen", ompc_json_u64(row->stolen));
    failed |= ompc_json_set(object, "create_ns", ompc_json_u64(row->create_ns));
    failed |= ompc_json_set(object, "exec_ns", ompc_json_u64(row->exec_ns));
    failed |= ompc_json_set(object, "mean_ns", ompc_json_u64(mean_run_ns(row)));
    failed |= ompc_json_set(object, "max_ns", ompc_json_u64(row->max_ns));
    failed |= ompc_json_set(object, "suspend_ns", ompc_json_u64(row->suspend_ns));
    failed |= ompc_json_set(object, "suspensions", ompc_json_u64(row->suspensions));
    failed |= ompc_json_set(object, "sampled_ns", ompc_json_u64(row->sampled_ns));
    failed |= ompc_json_set(object, "threads", json_integer(popcount64(row->thread_mask)));
    failed |= ompc_json_set(object, "thread_mask", ompc_json_hex(row->thread_mask, 0));
    return ompc_json_built(object, failed);
}

/* "constructs": every task construct, most execution time first. */
static json_t *sites_json(const struct ompc_locations *locations)
{
    json_t *sites = json_array();
    int failed = 0;
    for (int i = 0; i < locations->task_construct_count && !failed; i++)
        failed = ompc_json_append(sites, site_json(&locations->task_constructs[i]));
    return ompc_json_built(sites, failed);
}

/* "more than about N threads cannot help this run", for a parallelism. */
static void parallelism_sentence(double parallelism, char *buffer, size_t size)
{
    long threads = parallelism < 1.5 ? 1 : (long)ompc_i64_of(parallelism + 0.5);
    snprintf(buffer, size, "parallelism %.1f: more than about %ld thread%s cannot help this run", parallelism,
             threads, threads == 1 ? "" : "s");
}

/* What share of the run's tasks the graph holds, for the text report's heading. */
static void coverage_text(const struct ompc_task_graph *graph, char *buffer, size_t size)
{
    if (!ompc_task_graph_partial(graph))
        snprintf(buffer, size, "%zu logged tasks: every task the run created", graph->count);
    else
        snprintf(buffer, size, "%zu logged tasks of %s%" PRIu64 " created (%.1f%%): the event log ran full",
                 graph->count, graph->created_exact ? "" : "at least ", graph->created,
                 graph->created != 0 ? 100.0 * (double)graph->count / (double)graph->created : 100.0);
}

/* "longest measured path X ms (parallelism P): outliers ...": the path one delayed task can set, and the tasks on it past their typical time. */
static void measured_text(const struct ompc_task_graph *graph, char *buffer, size_t size)
{
    int used = snprintf(buffer, size, "longest measured path %.3f ms (parallelism %.1f): ", graph->measured_span_ns / 1e6,
                        ompc_task_graph_measured_parallelism(graph));
    if (used < 0 || (size_t)used >= size)
        return;
    if (graph->measured_outliers == 0)
        snprintf(buffer + used, size - (size_t)used, "no outliers on its %zu task%s", graph->measured_path_length,
                 graph->measured_path_length == 1 ? "" : "s");
    else
        snprintf(buffer + used, size - (size_t)used,
                 "outliers %zu of its %zu tasks, over %dx their class's typical time, %.3f ms past it",
                 graph->measured_outliers, graph->measured_path_length, OMPC_TASK_OUTLIER_FACTOR,
                 graph->measured_excess_ns / 1e6);
}

/* The task graph's figures in the text report (nothing when no task was logged). */
static void graph_text(const struct ompc_model_process *process, const struct ompc_locations *locations,
                       const struct ompc_task_graph *graph, FILE *out)
{
    if (graph->count == 0)
        return;
    char sentence[160], label[512], coverage[160], measured[200];
    parallelism_sentence(ompc_task_graph_parallelism(graph), sentence, sizeof sentence);
    coverage_text(graph, coverage, sizeof coverage);
    measured_text(graph, measured, sizeof measured);
    /* The runtime reports a dependence only while its source is unfinished (README.ompcollect.md, "Task graph"). */
    fprintf(out,
            "\nTask graph (%s; %zu created by implicit tasks, %zu dependences%s, %u parallel region%s; "
            "ompcollect(1), TASK GRAPH):\n  work %.3f ms, span %.3f ms, %s\n  %s\n",
            coverage, graph->roots, graph->dependence_count,
            graph->dependence_count > 0 ? " as the runtime reported them (none on a task complete when its sink "
                                          "was created)" : "",
            graph->regions, graph->regions == 1 ? "" : "s",
            graph->work_ns / 1e6, graph->span_ns / 1e6, sentence, measured);
    if (ompc_task_graph_partial(graph))
        fputs("  (of the logged tasks only: a larger --trace-buffer holds the whole run)\n", out);
    size_t count = 0;
    struct ompc_path_construct *rows = ompc_task_path_constructs(process, graph, &count);
    fprintf(out, "  critical path: %zu task%s", graph->path_length, graph->path_length == 1 ? "" : "s");
    for (size_t i = 0; i < count; i++) {
        struct ompc_location where;
        ompc_symbolize(locations->symbolizer, rows[i].codeptr, OMPC_ADDRESS_CODEPTR, &where);
        fprintf(out, "%s%s (%zu)", i == 0 ? ": " : ", ", ompc_location_label(&where, rows[i].codeptr, label, sizeof label),
                rows[i].tasks);
    }
    fprintf(out,
            "\n  (work: the tasks' own time, their runs less the task runs nested in them and their task waits;\n"
            "  span: the longest path through creations and joins, each task at its class's typical own time --\n"
            "  %zu classes by construct, depth and children, %zu of them of %d tasks or more, %zu tasks of the others\n"
            "  at their construct's over depths, the rest at their own; parallelism: work / span)\n",
            graph->classes, graph->typical_classes, OMPC_TASK_CLASS_MIN, graph->depth_free_tasks);
    free(rows);
}

/* The "task_graph" and "task_critical_path" CSV tables (nothing when no task was logged). */
static int graph_csv(const struct ompc_model_process *process, const struct ompc_locations *locations,
                     const struct ompc_task_graph *graph, struct ompc_csv_tables *tables)
{
    if (graph->count == 0)
        return 0;
    FILE *out = ompc_csv_begin(tables, "task_graph");
    if (out == NULL)
        return -1;
    fputs("tasks,roots,joins,dependences,regions,max_depth,work_ns,span_ns,parallelism,critical_path_tasks,"
          "created_tasks,created_exact,classes,typical_classes,measured_span_ns,measured_parallelism,measured_path_tasks,"
          "measured_outliers,measured_excess_ns\n",
          out);
    ompc_csv_lead(tables);
    fprintf(out, "%zu,%zu,%zu,%zu,%u,%u,%" PRIu64 ",%" PRIu64 ",%.2f,%zu,%" PRIu64 ",%d,", graph->count, graph->roots,
            graph->joins, graph->dependence_count, graph->regions, graph->max_depth, graph->work_ns, graph->span_ns,
            ompc_task_graph_parallelism(graph), graph->path_length, graph->created, graph->created_exact);
    fprintf(out, "%zu,%zu,%" PRIu64 ",%.2f,%zu,%zu,%" PRIu64 "\n", graph->classes, graph->typical_classes,
            graph->measured_span_ns, ompc_task_graph_measured_parallelism(graph), graph->measured_path_length,
            graph->measured_outliers, graph->measured_excess_ns);
    out = ompc_csv_begin(tables, "task_critical_path");
    if (out == NULL)
        return -1;
    fputs("codeptr,function,file,line,module,module_offset,tasks\n", out);
    size_t count = 0;
    struct ompc_path_construct *rows = ompc_task_path_constructs(process, graph, &count);
    for (size_t i = 0; i < count; i++) {
        struct ompc_location where;
        ompc_symbolize(locations->symbolizer, rows[i].codeptr, OMPC_ADDRESS_CODEPTR, &where);
        ompc_csv_lead(tables);
        fprintf(out, "0x%" PRIx64 ",", rows[i].codeptr);
        ompc_location_csv(out, &where);
        fprintf(out, ",%zu\n", rows[i].tasks);
    }
    free(rows);
    return graph->path_length > 0 && rows == NULL ? -1 : 0;
}

int ompc_task_graph_json_measured(const struct ompc_task_graph *graph, json_t *object)
{
    int failed = ompc_json_set(object, "classes", ompc_json_u64(graph->classes));
    failed |= ompc_json_set(object, "typical_classes", ompc_json_u64(graph->typical_classes));
    failed |= ompc_json_set(object, "class_min", json_integer(OMPC_TASK_CLASS_MIN));
    failed |= ompc_json_set(object, "depth_free_tasks", ompc_json_u64(graph->depth_free_tasks));
    failed |= ompc_json_set(object, "measured_span_ns", ompc_json_u64(graph->measured_span_ns));
    failed |= ompc_json_set(object, "measured_parallelism",
                            ompc_json_fixed(ompc_task_graph_measured_parallelism(graph), 2));
    failed |= ompc_json_set(object, "measured_path_tasks", ompc_json_u64(graph->measured_path_length));
    failed |= ompc_json_set(object, "measured_outliers", ompc_json_u64(graph->measured_outliers));
    failed |= ompc_json_set(object, "measured_excess_ns", ompc_json_u64(graph->measured_excess_ns));
    return failed ? -1 : 0;
}

/* "graph": the task graph's figures, null when no task was logged. */
static json_t *graph_json(const struct ompc_model_process *process, const struct ompc_locations *locations,
                          const struct ompc_task_graph *graph)
{
    if (graph->count == 0)
        return json_null();
    char sentence[160];
    parallelism_sentence(ompc_task_graph_parallelism(graph), sentence, sizeof sentence);
    json_t *object = json_object(), *path = json_array();
    int failed = path == NULL;
    size_t count = 0;
    struct ompc_path_construct *rows = ompc_task_path_constructs(process, graph, &count);
    for (size_t i = 0; i < count && !failed; i++) {
        struct ompc_location where;
        ompc_symbolize(locations->symbolizer, rows[i].codeptr, OMPC_ADDRESS_CODEPTR, &where);
        json_t *row = json_object();
        int bad = ompc_json_set(row, "location", ompc_location_json(rows[i].codeptr, &where));
        bad |= ompc_json_set(row, "tasks", ompc_json_u64(rows[i].tasks));
        failed = ompc_json_append(path, ompc_json_built(row, bad));
    }
    free(rows);
    failed |= ompc_json_set(object, "tasks", ompc_json_u64(graph->count));
    failed |= ompc_json_set(object, "created_tasks", ompc_json_u64(graph->created));
    failed |= ompc_json_set(object, "created_exact", json_boolean(graph->created_exact));
    failed |= ompc_json_set(object, "complete", json_boolean(!ompc_task_graph_partial(graph)));
    failed |= ompc_json_set(object, "roots", ompc_json_u64(graph->roots));
    failed |= ompc_json_set(object, "joins", ompc_json_u64(graph->joins));
    failed |= ompc_json_set(object, "dependences", ompc_json_u64(graph->dependence_count));
    failed |= ompc_json_set(object, "regions", json_integer(graph->regions));
    failed |= ompc_json_set(object, "max_depth", json_integer(graph->max_depth));
    failed |= ompc_json_set(object, "work_ns", ompc_json_u64(graph->work_ns));
    failed |= ompc_json_set(object, "span_ns", ompc_json_u64(graph->span_ns));
    failed |= ompc_json_set(object, "parallelism", ompc_json_fixed(ompc_task_graph_parallelism(graph), 2));
    failed |= ompc_json_set(object, "sentence", json_string(sentence));
    failed |= ompc_json_set(object, "critical_path_tasks", ompc_json_u64(graph->path_length));
    failed |= ompc_json_set(object, "critical_path", path);
    failed |= ompc_task_graph_json_measured(graph, object);
    return ompc_json_built(object, failed);
}

/* The shim's payload event a legacy task event's answer says stood for it (lower case, as JSON names it), or NULL. */
static const char *payload_event_name(int ec)
{
    switch (ec) {
    case OMPC_EC_VIA_TASK_EVENT:
        return "ompcollector_event_task";
    case OMPC_EC_VIA_TASK_CREATE:
        return "ompcollector_event_task_create";
    case OMPC_EC_VIA_TASK_LOG:
        return "ompcollector_event_task_log";
    default:
        return NULL;
    }
}

/* One text row of figures after its label; `full`: the run followed every task's runs (else "-" for their counts). */
static void text_row(FILE *out, const char *label, const char *tid, const struct ompc_task_row *row, int full)
{
    char sched[32] = "-", executed[24], stolen[24], suspensions[24], suspend[24];
    if (row->sched_known)
        snprintf(sched, sizeof sched, "%.3f", row->sched_ns / 1e6);
    fprintf(out, "  %-7s %7s %9" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8s %7s %9s %10.3f %9s %10.3f %10s", label, tid,
            row->created, row->undeferred, row->deferred, count_or_dash(full, row->executed, executed, sizeof executed),
            count_or_dash(full, row->stolen, stolen, sizeof stolen),
            count_or_dash(full, row->suspensions, suspensions, sizeof suspensions), row->create_ns / 1e6, sched,
            row->exec_ns / 1e6, time_or_dash(full, row->suspend_ns / 1e6, "%.3f", suspend, sizeof suspend));
    if (row->lifetime_ns > 0)
        fprintf(out, " %6.1f\n", 100.0 * (double)row->exec_ns / (double)row->lifetime_ns);
    else
        fprintf(out, " %6s\n", "-");
}

void ompc_tasks_text(const struct ompc_model_process *process, const struct ompc_locations *locations,
                     const struct ompc_task_granularity *grain, FILE *out)
{
    if (!ompc_tasks_ran(process))
        return;
    fputs("\nTasks (explicit tasks, from the task events; per thread):\n", out);
    fprintf(out, "  %-7s %7s %9s %10s %8s %8s %7s %9s %10s %9s %10s %10s %6s\n", "thread", "tid", "created",
            "undeferred", "deferred", "executed", "stolen", "suspended", "create ms", "sched ms", "exec ms",
            "suspend ms", "exec %");
    int count = ompc_tasks_thread_count(process);
    for (int i = 0; i < count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (!ompc_thread_had_tasks(thread))
            continue;
        struct ompc_task_row row = ompc_task_thread_row(thread, process->has_task_info != 0, grain);
        char label[16], tid[16];
        snprintf(label, sizeof label, "%d%s", i, thread->initial ? "*" : "");
        snprintf(tid, sizeof tid, "%ld", (long)thread->tid);
        text_row(out, label, tid, &row, process->task_tier != OMPC_TASK_TIER_SAMPLED);
    }
    struct ompc_task_row sum = ompc_task_total_row(process, grain);
    text_row(out, "all", "", &sum, process->task_tier != OMPC_TASK_TIER_SAMPLED);
    fputs("  (created: undeferred ran at once on their creator (if(0), final, a team of one), deferred\n"
          "  were queued; stolen: executed here, created on another thread; exec: BEGIN_EXEC to\n"
          "  BEGIN_FINISH, a task run on top of a suspended one counted once; suspended: an explicit\n"
          "  task waiting while another ran in its place on the thread; exec %: of the thread's life)\n",
          out);
    if (grain->known)
        fprintf(out, "  (sched: task overhead inside barriers and taskwaits, at most the thread's IBAR and EBAR\n"
                     "  time: its task runs taken from a queue times %.2f us, the least waiting per such run of\n"
                     "  any thread, thread %d's; create + sched is the task overhead, see TASK GRANULARITY)\n",
                grain->sched_ns / 1e3, grain->sched_thread);
    fputs(process->has_task_info ? "  (executed and stolen count each task once, an untied task's parts together)\n"
                                 : "  (executed and stolen count runs: each part of an untied task counts)\n",
          out);
    int refused = 0;
    for (int i = 0; i < process->task_request_count && i < OMPC_TASK_EVENTS; i++) {
        int ec = process->task_requests[i].ec;
        if (ec == OMP_ERRCODE_OK || payload_event_name(ec) != NULL)
            continue;
        fprintf(out, "%s%s (%s)", refused++ ? ", " : "  task events the runtime did not grant: ",
                ompc_task_event_name(process->task_requests[i].event), ompc_register_status_name(ec));
    }
    if (refused)
        fputc('\n', out);
    const char *via = payload_event_name(process->task_request_count > 0 ? process->task_requests[0].ec : 0);
    if (via != NULL) {
        fputs("  (task events: the shim's OMPCOLLECTOR_EVENT_", out);
        for (const char *c = via + strlen("ompcollector_event_"); *c != '\0'; c++)
            fputc(toupper((unsigned char)*c), out);
        fputs(" registered ok and stands for them; the 13 legacy task\n  events were not registered)\n", out);
    }
    sites_text(process, locations, grain->interval_ns, out);
    struct ompc_task_graph graph;
    if (ompc_task_graph_build(process, &graph) == 0)
        graph_text(process, locations, &graph, out);
    ompc_task_graph_free(&graph);
}

/* One CSV row of figures after its first fields. */
static void csv_row(FILE *out, const struct ompc_task_row *row)
{
    fprintf(out,
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",",
            row->created, row->undeferred, row->deferred, row->executed, row->stolen, row->suspensions,
            row->create_ns, row->exec_ns, row->suspend_ns, row->lifetime_ns);
    if (row->sched_known)
        fprintf(out, "%" PRIu64, row->sched_ns);
    fputc('\n', out);
}

int ompc_tasks_csv(const struct ompc_model_process *process, const struct ompc_locations *locations,
                   const struct ompc_task_granularity *grain, struct ompc_csv_tables *tables)
{
    if (!ompc_tasks_ran(process))
        return 0;
    FILE *out = ompc_csv_begin(tables, "task");
    if (out == NULL)
        return -1;
    fputs("thread,tid,created,undeferred,deferred,executed,stolen,suspensions,create_ns,exec_ns,"
          "suspend_ns,lifetime_ns,sched_ns\n",
          out);
    int count = ompc_tasks_thread_count(process);
    for (int i = 0; i < count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (!ompc_thread_had_tasks(thread))
            continue;
        struct ompc_task_row row = ompc_task_thread_row(thread, process->has_task_info != 0, grain);
        ompc_csv_lead(tables);
        fprintf(out, "%d,%ld", i, (long)thread->tid);
        csv_row(out, &row);
    }
    struct ompc_task_row sum = ompc_task_total_row(process, grain);
    ompc_csv_lead(tables);
    fputs("all,", out);
    csv_row(out, &sum);
    if (sites_csv(process, locations, tables) != 0)
        return -1;
    struct ompc_task_graph graph;
    int status = ompc_task_graph_build(process, &graph);
    if (status == 0)
        status = graph_csv(process, locations, &graph, tables);
    ompc_task_graph_free(&graph);
    return status;
}

/* The figures of a row as members of `object`; 0, or -1 when memory runs out. */
static int json_row(json_t *object, const struct ompc_task_row *row)
{
    int failed = ompc_json_set(object, "created", ompc_json_u64(row->created));
    failed |= ompc_json_set(object, "undeferred", ompc_json_u64(row->undeferred));
    failed |= ompc_json_set(object, "deferred", ompc_json_u64(row->deferred));
    failed |= ompc_json_set(object, "executed", ompc_json_u64(row->executed));
    failed |= ompc_json_set(object, "stolen", ompc_json_u64(row->stolen));
    failed |= ompc_json_set(object, "suspensions", ompc_json_u64(row->suspensions));
    failed |= ompc_json_set(object, "create_ns", ompc_json_u64(row->create_ns));
    failed |= ompc_json_set(object, "exec_ns", ompc_json_u64(row->exec_ns));
    failed |= ompc_json_set(object, "suspend_ns", ompc_json_u64(row->suspend_ns));
    failed |= ompc_json_set(object, "sched_ns", row->sched_known ? ompc_json_u64(row->sched_ns) : json_null());
    return failed;
}

/*
 * "registered": how the runtime answered each task event's registration;
 * a legacy event the shim's payload event stood for says so, and that
 * event's own answer is listed under its name.
 */
static json_t *json_registered(const struct ompc_model_process *process)
{
    json_t *registered = json_object();
    int failed = 0;
    const char *via = NULL;
    for (int i = 0; i < process->task_request_count && i < OMPC_TASK_EVENTS && !failed; i++) {
        int ec = process->task_requests[i].ec;
        char answer[64];
        if (payload_event_name(ec) != NULL) {
            via = payload_event_name(ec);
            snprintf(answer, sizeof answer, "via-%s", via);
        } else {
            snprintf(answer, sizeof answer, "%s", ompc_register_status_name(ec));
        }
        failed = ompc_json_set(registered, ompc_task_event_name(process->task_requests[i].event), json_string(answer));
    }
    if (via != NULL && !failed)
        failed = ompc_json_set(registered, via, json_string("ok"));
    return ompc_json_built(registered, failed);
}

/* "events": each task event's count over every thread and the untracked ones. */
static json_t *json_task_events(const struct ompc_model_process *process)
{
    json_t *events = json_object();
    int failed = 0, count = ompc_tasks_thread_count(process);
    for (int i = 0; i < OMPC_TASK_EVENTS && !failed; i++) {
        uint64_t total = process->untracked.task_events[i];
        for (int t = 0; t < count; t++)
            total += process->threads[t].task_events[i];
        failed = ompc_json_set(events, ompc_task_event_name(OMPC_TASK_EVENT_FIRST + i), ompc_json_u64(total));
    }
    return ompc_json_built(events, failed);
}

/* "threads": the figures of each thread that had a task. */
static json_t *json_task_threads(const struct ompc_model_process *process, const struct ompc_task_granularity *grain)
{
    json_t *threads = json_array();
    int failed = 0, count = ompc_tasks_thread_count(process);
    for (int i = 0; i < count && !failed; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        if (!ompc_thread_had_tasks(thread))
            continue;
        struct ompc_task_row row = ompc_task_thread_row(thread, process->has_task_info != 0, grain);
        json_t *object = json_object();
        failed = ompc_json_set(object, "index", json_integer(i));
        failed |= ompc_json_set(object, "tid", json_integer(thread->tid));
        failed |= json_row(object, &row);
        failed |= ompc_json_set(object, "lifetime_ns", ompc_json_u64(row.lifetime_ns));
        failed |= ompc_json_append(threads, object);
    }
    return ompc_json_built(threads, failed);
}

int ompc_tasks_json(const struct ompc_model_process *process, const struct ompc_locations *locations,
                    const struct ompc_task_granularity *grain, json_t *report)
{
    if (!ompc_tasks_ran(process))
        return ompc_json_set(report, "tasks", json_null());
    struct ompc_task_row sum = ompc_task_total_row(process, grain);
    json_t *tasks = json_object();
    int failed = tasks == NULL || json_row(tasks, &sum);
    failed |= ompc_json_set(tasks, "registered", json_registered(process));
    failed |= ompc_json_set(tasks, "events", json_task_events(process));
    failed |= ompc_json_set(tasks, "threads", json_task_threads(process, grain));
    failed |= ompc_json_set(tasks, "counted_once", json_boolean(process->has_task_info));
    /* sampled: counted at creation, construct times from samples, runs not followed (README.ompcollect.md). */
    failed |= ompc_json_set(tasks, "tier", json_string(process->task_tier == OMPC_TASK_TIER_SAMPLED ? "sampled" : "full"));
    failed |= ompc_json_set(tasks, "sched_per_run_ns", grain->known ? ompc_json_fixed(grain->sched_ns, 1) : json_null());
    failed |= ompc_json_set(tasks, "sched_thread", grain->known ? json_integer(grain->sched_thread) : json_null());
    /* The creation no task event times: the runtime's work sampled in its code, per task (granularity.h). */
    failed |= ompc_json_set(tasks, "runtime_per_task_ns",
                            grain->known ? ompc_json_fixed(grain->runtime_per_task_ns, 1) : json_null());
    failed |= ompc_json_set(tasks, "constructs", process->has_task_info ? sites_json(locations) : json_null());
    struct ompc_task_graph graph;
    failed |= ompc_task_graph_build(process, &graph) != 0;
    failed |= ompc_json_set(tasks, "graph", failed ? NULL : graph_json(process, locations, &graph));
    ompc_task_graph_free(&graph);
    failed |= ompc_json_set(report, "tasks", tasks);
    return failed ? -1 : 0;
}
