/* report_csv.c - the CSV report: one stream of tables, each row led by its table's name. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "csvdir.h"
#include "omp_collector_api.h"
#include "summary.h"
#include "tasks.h"

#include <inttypes.h>
#include <string.h>


/* A CSV row's state counts, then its invalid answers, ending the row. */
static void csv_states(FILE *out, const uint64_t *ticks)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, ",%" PRIu64, ticks[state]);
    fprintf(out, ",%" PRIu64 "\n", ticks[0]);
}

/* The state columns of a CSV header row, then the invalid answers' column, ending the row. */
static void csv_state_names(FILE *out)
{
    ompc_csv_state_names(out);
    fputs(",invalid\n", out);
}

/* The run table (who, how long, how it ended) and, when the loader found any, the record's damage. */
static void csv_run(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    ompc_csv_table(out, "run", markers);
    fputs("section,program,pid,wall_ns,interval_ns,sampling,threads,samples,forks,joins,"
          "outermost_ns,rank,host,complete,end,exit_status,signal,runtime,runtime_version,"
          "sample_signal,sampling_status\n",
          out);
    fputs("run,", out);
    ompc_csv_string(out, report->program);
    fprintf(out, ",%ld,%" PRIu64 ",%lld,%d,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
            (long)process->pid, report->wall_ns, report->interval_ns, report->sampling,
            summary->openmp_threads, summary->total_ticks, summary->forks, summary->joins,
            summary->outermost_ns);
    if (report->rank >= 0)
        fprintf(out, "%d", report->rank);
    fputc(',', out);
    ompc_csv_string(out, report->host);
    fprintf(out, ",%d,%s,", report->complete, report->end_how);
    if (report->exit_status >= 0)
        fprintf(out, "%d", report->exit_status);
    fprintf(out, ",%d,", report->signal);
    ompc_csv_string(out, report->runtime_file);
    fputc(',', out);
    ompc_csv_string(out, report->runtime_version);
    fprintf(out, ",%d,%s\n", process->sample_signal,
            ompc_sampling_status_name(process->sampling));
    if (process->damage.count != 0) {
        ompc_csv_table(out, "record_damage", markers);
        fprintf(out, "section,findings,text\nrecord_damage,%lu,", process->damage.count);
        ompc_csv_string(out, process->damage.text);
        fputc('\n', out);
    }
}

/* The thread table with each thread's states, then the thread_kind table. */
static void csv_threads(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    const struct ompc_model_process *process = summary->process;
    ompc_csv_table(out, "thread", markers);
    fputs("section,index,tid,initial,lifetime_ns,signals,samples,expected", out);
    csv_state_names(out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        fprintf(out, "thread,%d,%ld,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, i,
                (long)thread->tid, thread->initial, thread_lifetime_ns(thread),
                thread->signals, thread_ticks(thread), thread_expected_ticks(summary->report, thread));
        csv_states(out, thread->state_ticks);
    }

    ompc_csv_table(out, "thread_kind", markers);
    fputs("section,index,openmp,blocked_ns,blocked_samples\n", out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        fprintf(out, "thread_kind,%d,%d,%" PRIu64 ",%" PRIu64 "\n", i, ompc_thread_is_openmp(thread),
                thread->blocked_ns, thread->blocked_ticks);
    }
}

/* The region table, by id, then the wait table, most samples first. */
static void csv_regions_and_waits(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    ompc_csv_table(out, "region", markers);
    fputs("section,id,parent,forks,joins,time_ns,threads,samples", out);
    csv_state_names(out);
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_model_region *region = summary->regions[i];
        fprintf(out, "region,%" PRIu64 ",%" PRIu64 ",%u,%u,%" PRIu64 ",%d,%" PRIu64,
                (uint64_t)region->id, (uint64_t)region->parent,
                (unsigned)region->forks, (unsigned)region->joins,
                (uint64_t)region->time_ns,
                popcount64(region->thread_mask), region_ticks(region));
        csv_states(out, region->ticks);
    }

    ompc_csv_table(out, "wait", markers);
    fputs("section,state,wait_id,samples,threads\n", out);
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out, "wait,%s,0x%016" PRIx64 ",%" PRIu64 ",%d\n", ompc_state_name(wait->state),
                wait->id, wait->ticks, wait->threads);
    }
}

/* The event table: each registered event, its count and, once per pair, the pair's time. */
static void csv_events(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    const struct ompc_model_process *process = summary->process;
    ompc_csv_table(out, "event", markers);
    fputs("section,event,status,count,pair_time_ns\n", out);
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS)
            continue;
        int pair = ompc_event_pair(event);
        fprintf(out, "event,%s,%s,%" PRIu64 ",", ompc_event_name(event),
                ompc_register_status_name(process->requests[i].ec), event_count(summary, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, "%" PRIu64, pair_time_ns(summary, pair));
        fputc('\n', out);
    }
}

/*
 * One stream, several tables: every row starts with its table's name, and
 * each table is preceded by a header row whose first field is "section".
 */
void ompc_report_csv(const struct summary *summary, FILE *out)
{
    int markers = summary->report->format == OMPC_FORMAT_CSV_TABLES;
    csv_run(summary, out);
    csv_threads(summary, out);
    csv_regions_and_waits(summary, out);
    ompc_locations_csv(&summary->locations, markers, out);
    ompc_tasks_csv(summary->process, markers, out);
    csv_events(summary, out);
}

