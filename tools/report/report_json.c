/* report_json.c - the JSON report: one object, counts as raw samples so consumers can weigh them. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "jsonw.h"
#include "omp_collector_api.h"
#include "stacks.h"
#include "summary.h"
#include "tasks.h"

#include <inttypes.h>
#include <string.h>


/* A JSON string literal; NULL is the empty string. */
static void json_string(FILE *out, const char *text)
{
    ompc_json_string(out, text);
}

/* {"OVHD": n, ...} for a thread's or a region's counters. */
static void json_states(FILE *out, const uint64_t *ticks)
{
    fputc('{', out);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %" PRIu64, state > 1 ? ", " : "", ompc_state_name(state),
                ticks[state]);
    fputc('}', out);
}

/* Who ran, where, on which runtime, and how it ended. */
static void json_header(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    const struct ompc_model_process *process = summary->process;
    fputs("{\n  \"tool\": \"ompcollect\",\n  \"schema_version\": 2,\n  \"version\": ", out);
    json_string(out, PACKAGE_VERSION);
    fputs(",\n  \"program\": ", out);
    json_string(out, report->program);
    fprintf(out, ",\n  \"pid\": %ld,\n  \"rank\": ", (long)process->pid);
    if (report->rank >= 0)
        fprintf(out, "%d", report->rank);
    else
        fputs("null", out);
    fputs(",\n  \"host\": ", out);
    json_string(out, report->host);
    fputs(",\n  \"relation\": ", out);
    json_string(out, report->relation);
    fprintf(out, ",\n  \"parent_pid\": %ld", (long)process->ppid);
    fprintf(out, ",\n  \"complete\": %s,\n  \"end\": {\"how\": ", report->complete ? "true" : "false");
    json_string(out, report->end_how);
    fputs(", \"exit_status\": ", out);
    if (report->exit_status >= 0)
        fprintf(out, "%d", report->exit_status);
    else
        fputs("null", out);
    fprintf(out, ", \"signal\": %d, \"fate\": ", report->signal);
    json_string(out, report->fate);
    fputs("},\n  \"runtime\": {\"path\": ", out);
    json_string(out, report->runtime_path);
    fputs(", \"file\": ", out);
    json_string(out, report->runtime_file);
    fputs(", \"version\": ", out);
    json_string(out, report->runtime_version);
    fputs(", \"why\": ", out);
    json_string(out, report->runtime_why);
    fputs("},\n  \"collector\": {\"shim\": ", out);
    json_string(out, report->shim);
    fputs(", \"agent\": ", out);
    json_string(out, report->agent);
    char name[32];
    fprintf(out, "},\n  \"wall_ns\": %" PRIu64 ",\n  \"sampling\": %s,\n  \"interval_ns\": %lld,\n"
                 "  \"sample_signal\": %d,\n  \"sample_signal_name\": ",
            report->wall_ns, report->sampling ? "true" : "false", report->interval_ns,
            process->sample_signal);
    json_string(out, process->sample_signal ? ompc_signal_name(process->sample_signal, name, sizeof name) : "");
    fprintf(out, ",\n  \"sampling_status\": \"%s\",\n  \"sampling_stopped_ns\": %" PRIu64
                 ",\n  \"program_handler_ns\": %" PRIu64 ",\n  \"signals_passed\": %" PRIu64
                 ",\n  \"processes_dropped\": %u,\n  \"timelines_dropped\": %" PRIu64,
            ompc_sampling_status_name(process->sampling),
            process->sampling_stopped_ns, process->program_handler_ns,
            process->signals_passed, process->processes_dropped, process->arena_refused);
    if (process->damage.count != 0) {
        fprintf(out, ",\n  \"record_damage\": {\"findings\": %lu, \"text\": ", process->damage.count);
        json_string(out, process->damage.text);
        fputc('}', out);
    }
}

/* The state names, then every thread with its states and the events it had. */
static void json_threads(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    fputs(",\n  \"states\": [", out);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\"", state > 1 ? ", " : "", ompc_state_name(state));
    fputs("],\n  \"threads\": [", out);
    for (int i = 0; i < summary->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        fprintf(out,
                "%s\n    {\"index\": %d, \"tid\": %ld, \"initial\": %s, \"openmp\": %s, "
                "\"exited\": %s, \"lifetime_ns\": %" PRIu64 ", \"signals\": %" PRIu64
                ", \"samples\": %" PRIu64 ", \"expected\": %" PRIu64 ", \"invalid\": %" PRIu64
                ", \"blocked_ns\": %" PRIu64 ", \"blocked_samples\": %" PRIu64 ",\n     \"states\": ",
                i ? "," : "", i, (long)thread->tid, thread->initial ? "true" : "false",
                ompc_thread_is_openmp(thread) ? "true" : "false",
                thread->status == OMPC_SLOT_EXITED ? "true" : "false",
                thread_lifetime_ns(thread), thread->signals, thread_ticks(thread),
                thread_expected_ticks(summary->report, thread), thread->state_ticks[0],
                thread->blocked_ns, thread->blocked_ticks);
        json_states(out, thread->state_ticks);
        fputs(",\n     \"events\": {", out);
        int first = 1;
        for (int event = 1; event < OMPC_NEVENTS; event++) {
            uint64_t count = thread->events[event];
            if (count == 0)
                continue;
            fprintf(out, "%s\"%s\": %" PRIu64, first ? "" : ", ", ompc_event_name(event), count);
            first = 0;
        }
        fputs("}}", out);
    }
}

/* The regions by id, then the wait ids, most samples first. */
static void json_regions_and_waits(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    fprintf(out, "\n  ],\n  \"threads_not_followed\": %" PRIu64 ",\n  \"regions\": [",
            process->threads_not_followed);
    for (int i = 0; i < summary->region_count; i++) {
        const struct ompc_model_region *region = summary->regions[i];
        fprintf(out,
                "%s\n    {\"id\": %" PRIu64 ", \"parent\": %" PRIu64 ", \"forks\": %u, "
                "\"joins\": %u, \"time_ns\": %" PRIu64 ", \"threads\": %d, \"samples\": %" PRIu64
                ", \"states\": ",
                i ? "," : "", (uint64_t)region->id,
                (uint64_t)region->parent, (unsigned)region->forks,
                (unsigned)region->joins, (uint64_t)region->time_ns,
                popcount64(region->thread_mask), region_ticks(region));
        json_states(out, region->ticks);
        fprintf(out, ", \"codeptr\": \"0x%" PRIx64 "\"}", (uint64_t)region->codeptr);
    }
    fprintf(out, "\n  ],\n  \"regions_overflow_forks\": %" PRIu64 ",\n  \"waits\": [",
            process->regions_overflow_forks);
    for (int i = 0; i < summary->wait_count; i++) {
        const struct merged_wait *wait = &summary->waits[i];
        fprintf(out,
                "%s\n    {\"state\": \"%s\", \"wait_id\": \"0x%016" PRIx64 "\", \"samples\": %" PRIu64
                ", \"threads\": %d}",
                i ? "," : "", ompc_state_name(wait->state), wait->id, wait->ticks, wait->threads);
    }
    fputs("\n  ]", out);
}

/* The registered events, each with its count and, once per pair, the pair's time. */
static void json_events(const struct summary *summary, FILE *out)
{
    const struct ompc_model_process *process = summary->process;
    fputs(",\n  \"events\": [", out);
    int listed = 0;
    for (int i = 0; i < process->request_count && i < OMPC_NEVENTS; i++) {
        int event = process->requests[i].event;
        if (event <= 0 || event >= OMPC_NEVENTS)
            continue;
        int pair = ompc_event_pair(event);
        fprintf(out, "%s\n    {\"name\": \"%s\", \"status\": \"%s\", \"count\": %" PRIu64,
                listed++ ? "," : "", ompc_event_name(event), ompc_register_status_name(process->requests[i].ec),
                event_count(summary, event));
        if (pair >= 0 && event % 2 == 0)
            fprintf(out, ", \"pair_time_ns\": %" PRIu64, pair_time_ns(summary, pair));
        fputc('}', out);
    }
}

/* The threads the runtime never reported, the event logs' fill, and the totals over the OpenMP threads. */
static void json_totals(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    fprintf(out, "\n  ],\n  \"other_threads\": {\"threads\": %d, \"samples\": %" PRIu64 "},",
            summary->thread_count - summary->openmp_threads, summary->other_ticks);
    if (report->event_log_bytes != 0) {
        uint64_t recorded, dropped;
        int threads = ompc_event_log_totals(summary->process, &recorded, &dropped);
        fprintf(out, "\n  \"event_log\": {\"bytes_per_thread\": %" PRIu64 ", \"recorded\": %" PRIu64
                     ", \"dropped\": %" PRIu64 ", \"threads_dropping\": %d},",
                report->event_log_bytes, recorded, dropped, threads);
    }
    fprintf(out, "\n  \"totals\": {\"threads\": %d, \"samples\": %" PRIu64
                 ", \"invalid\": %" PRIu64 ", \"forks\": %" PRIu64 ", \"joins\": %" PRIu64
                 ", \"regions\": %d, \"outermost_ns\": %" PRIu64 ", \"states\": {",
            summary->openmp_threads, summary->total_ticks, summary->state_ticks[0], summary->forks,
            summary->joins, summary->region_count, summary->outermost_ns);
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, "%s\"%s\": %" PRIu64, state > 1 ? ", " : "", ompc_state_name(state),
                summary->state_ticks[state]);
    fputs("}}\n}\n", out);
}

/* The report as one JSON object; counts are raw samples so consumers can weigh them. */
void ompc_report_json(const struct summary *summary, FILE *out)
{
    const struct ompc_report *report = summary->report;
    json_header(summary, out);
    json_threads(summary, out);
    json_regions_and_waits(summary, out);
    ompc_locations_json(&summary->locations, summary->process, out);
    if (report->stacks_asked)
        ompc_stacks_json(report->stacks, out);
    ompc_tasks_json(summary->process, out);
    json_events(summary, out);
    json_totals(summary, out);
}

