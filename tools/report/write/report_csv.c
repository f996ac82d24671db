/* report_csv.c - the CSV report's tables: one stream with each row led by its table's name (-f csv), or one file per table (--csv-dir). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "cover.h"
#include "csv.h"
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

/* The run table: who, how long, how it ended. */
static int csv_run(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    FILE *out = ompc_csv_begin(tables, "run");
    if (out == NULL)
        return -1;
    fputs("program,pid,wall_ns,interval_ns,sampling,threads,samples,forks,joins,"
          "outermost_ns,rank,host,complete,end,exit_status,signal,runtime,runtime_version,"
          "sample_signal,sampling_status,mpi_measured,mpi_samples,mpi_ns,mpi_calls\n",
          out);
    ompc_csv_lead(tables);
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
    fprintf(out, ",%d,%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", process->sample_signal,
            ompc_sampling_status_name(process->sampling), process->mpi_active, summary->mpi_ticks, summary->mpi_ns,
            summary->mpi_calls);
    return 0;
}

/* The record's damage, when the loader found any (a table only then). */
static int csv_damage(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_model_process *process = summary->process;
    if (process->damage.count == 0)
        return 0;
    FILE *out = ompc_csv_begin(tables, "record_damage");
    if (out == NULL)
        return -1;
    fputs("findings,text\n", out);
    ompc_csv_lead(tables);
    fprintf(out, "%lu,", process->damage.count);
    ompc_csv_string(out, process->damage.text);
    fputc('\n', out);
    return 0;
}

/* The record's bounds the run reached, when it reached any (a table only then). */
static int csv_limits(const struct summary *summary, struct ompc_csv_tables *tables)
{
    if (summary->limit_count == 0)
        return 0;
    FILE *out = ompc_csv_begin(tables, "limits");
    if (out == NULL)
        return -1;
    fputs("what,count,bound,text\n", out);
    for (int i = 0; i < summary->limit_count; i++) {
        const struct ompc_limit *limit = &summary->limits[i];
        ompc_csv_lead(tables);
        fprintf(out, "%s,%" PRIu64 ",%" PRIu64 ",", limit->what, limit->count, limit->bound);
        ompc_csv_string(out, limit->text);
        fputc('\n', out);
    }
    return 0;
}

/* The thread table with each thread's states. */
static int csv_threads(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_model_process *process = summary->process;
    FILE *out = ompc_csv_begin(tables, "thread");
    if (out == NULL)
        return -1;
    fputs("index,tid,initial,lifetime_ns,signals,samples,expected", out);
    ompc_csv_state_names(out);
    fputs(",invalid,mpi,mpi_ns,mpi_calls\n", out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        ompc_csv_lead(tables);
        fprintf(out, "%d,%ld,%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, i,
                (long)thread->tid, thread->initial, thread_lifetime_ns(thread),
                thread->signals, thread_ticks(thread), thread_expected_ticks(summary->report, thread));
        for (int state = 1; state < OMPC_NSTATES; state++)
            fprintf(out, ",%" PRIu64, thread->state_ticks[state]);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", thread->state_ticks[0], thread->mpi_ticks,
                thread->mpi_ns, thread->mpi_calls);
    }
    return 0;
}

/* The thread_kind table: which threads OpenMP reported, and how long each was blocked. */
static int csv_thread_kinds(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_model_process *process = summary->process;
    FILE *out = ompc_csv_begin(tables, "thread_kind");
    if (out == NULL)
        return -1;
    fputs("index,openmp,blocked_ns,blocked_samples\n", out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        ompc_csv_lead(tables);
        fprintf(out, "%d,%d,%" PRIu64 ",%" PRIu64 "\n", i, ompc_thread_is_openmp(thread),
                thread->blocked_ns, thread->blocked_ticks);
    }
    return 0;
}

/* The thread_cover table: how much of each thread's life its samples cover, and what the rest went to (empty when sampling was off). */
static int csv_thread_cover(const struct summary *summary, struct ompc_csv_tables *tables)
{
    FILE *out = ompc_csv_begin(tables, "thread_cover");
    if (out == NULL)
        return -1;
    fputs("index,lifetime_ns,sampled_ns,cover", out);
    for (int gap = 0; gap < OMPC_NGAPS; gap++)
        fprintf(out, ",%s_ns", ompc_gap_name(gap));
    fputc('\n', out);
    for (int i = 0; i < summary->thread_count; i++) {
        struct ompc_cover cover;
        ompc_thread_cover(summary->report, &summary->process->threads[i], &cover);
        if (!cover.known)
            continue;
        ompc_csv_lead(tables);
        fprintf(out, "%d,%" PRIu64 ",%" PRIu64 ",%.4f", i, cover.lifetime_ns, cover.sampled_ns, cover.share);
        for (int gap = 0; gap < OMPC_NGAPS; gap++)
            fprintf(out, ",%" PRIu64, cover.gap_ns[gap]);
        fputc('\n', out);
    }
    return 0;
}

/* The region table, by id. */
static int csv_regions(const struct summary *summary, struct ompc_csv_tables *tables)
{
    FILE *out = ompc_csv_begin(tables, "region");
    if (out == NULL)
        return -1;
    fputs("id,parent,forks,joins,time_ns,threads,samples", out);
    csv_state_names(out);
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_model_region *region = summary->regions[i];
        ompc_csv_lead(tables);
        fprintf(out, "%" PRIu64 ",%" PRIu64 ",%u,%u,%" PRIu64 ",%d,%" PRIu64,
                (uint64_t)region->id, (uint64_t)region->parent,
                (unsigned)region->forks, (unsigned)region->joins,
                (uint64_t)region->time_ns,
                popcount64(region->thread_mask), region_ticks(region));
        csv_states(out, region->ticks);
    }
    return 0;
}

/* The wait table, most samples first. */
static int csv_waits(const struct summary *summary, struct ompc_csv_tables *tables)
{
    FILE *out = ompc_csv_begin(tables, "wait");
    if (out == NULL)
        return -1;
    fputs("state,wait_id,samples,threads\n", out);
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        ompc_csv_lead(tables);
        fprintf(out, "%s,0x%016" PRIx64 ",%" PRIu64 ",%d\n", ompc_state_name(wait->state),
                wait->id, wait->ticks, wait->threads);
    }
    return 0;
}

/* The event table: each registered event, its count and, once per pair, the pair's time. */
static int csv_events(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_model_process *process = summary->process;
    FILE *out = ompc_csv_begin(tables, "event");
    if (out == NULL)
        return -1;
    fputs("event,status,count,pair_time_ns\n", out);
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS)
            continue;
        int pair = ompc_event_pair(event);
        ompc_csv_lead(tables);
        fprintf(out, "%s,%s,%" PRIu64 ",", ompc_event_name(event),
                ompc_register_status_name(process->requests[i].ec), event_count(summary, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, "%" PRIu64, pair_time_ns(summary, pair));
        fputc('\n', out);
    }
    return 0;
}

/* The "mpi" table (MPI's start and end, the team's MPI waiting) and the "mpi_site" table (the calls by call site, longest first), as the text's MPI lines; tables only when the run measured MPI or kept call sites. */
static int csv_mpi(const struct summary *summary, struct ompc_csv_tables *tables)
{
    const struct ompc_model_process *process = summary->process;
    const struct ompc_mpi_sites *sites = &summary->locations.mpi;
    if (!process->mpi_active && sites->count == 0)
        return 0;
    FILE *out = ompc_csv_begin(tables, "mpi");
    if (out == NULL)
        return -1;
    fputs("measured,samples,ns,calls,setup_ns,setup_calls,idle_samples,sites,sites_dropped\n", out);
    ompc_csv_lead(tables);
    fprintf(out, "%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 "\n",
            process->mpi_active, summary->mpi_ticks, summary->mpi_ns, summary->mpi_calls, process->mpi_setup_ns,
            process->mpi_setup_calls, summary->mpi_idle_ticks, sites->count, sites->dropped);
    if ((out = ompc_csv_begin(tables, "mpi_site")) == NULL)
        return -1;
    fputs("call,codeptr,function,file,line,module,module_offset,setup,calls,ns,samples\n", out);
    for (int i = 0; i < sites->count; i++) {
        const struct ompc_mpi_site_row *row = &sites->rows[i];
        ompc_csv_lead(tables);
        fprintf(out, "%s,0x%" PRIx64 ",", ompc_mpi_call_name(row->sum.call), row->sum.site);
        ompc_location_csv(out, &row->where);
        fprintf(out, ",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", row->setup, row->sum.calls, row->sum.ns,
                row->sum.ticks);
    }
    return 0;
}

/*
 * The tables in their order: into one stream, every row starts with its
 * table's name and each table is preceded by a header row whose first
 * field is "section"; into a directory, one file per table.
 */
int ompc_report_csv(const struct summary *summary, struct ompc_csv_tables *tables)
{
    if (csv_run(summary, tables) != 0 || csv_damage(summary, tables) != 0 || csv_limits(summary, tables) != 0
        || csv_threads(summary, tables) != 0
        || csv_thread_kinds(summary, tables) != 0 || csv_thread_cover(summary, tables) != 0
        || csv_regions(summary, tables) != 0
        || csv_waits(summary, tables) != 0 || ompc_locations_csv(&summary->locations, tables) != 0
        || csv_mpi(summary, tables) != 0
        || ompc_serial_csv(&summary->locations.serial, tables) != 0
        || ompc_tasks_csv(summary->process, &summary->locations, &summary->advice.tasks, tables) != 0 || csv_events(summary, tables) != 0
        || ompc_advice_csv(summary, tables) != 0)
        return -1;
    return 0;
}
