/* trace_json.c - writes one recorded process's thread states over time as Chrome trace-event JSON, for ompcollect --trace-json (Perfetto, chrome://tracing). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "jsonw.h"
#include "locations.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string literal of `text`; control characters become \u escapes. */
static void json_text(FILE *out, const char *text)
{
    ompc_json_string(out, text);
}

/* A time in the trace's unit, microseconds, keeping the record's nanoseconds. */
static void json_us(FILE *out, const char *key, uint64_t ns)
{
    fprintf(out, ",\"%s\":%llu.%03u", key, (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* One complete ("X") event on a thread; `span` adds its exactness, region id and wait id to the arguments. */
static void complete_event(FILE *out, long pid, long tid, const char *name, const char *category,
                           uint64_t begin_ns, uint64_t end_ns, const char *region,
                           const struct ompc_span *span)
{
    fputs(",\n{\"ph\":\"X\",\"name\":", out);
    json_text(out, name);
    fprintf(out, ",\"cat\":\"%s\",\"pid\":%ld,\"tid\":%ld", category, pid, tid);
    json_us(out, "ts", begin_ns);
    json_us(out, "dur", end_ns - begin_ns);
    if (region != NULL || span != NULL) {
        fputs(",\"args\":{", out);
        if (region != NULL) {
            fputs("\"region\":", out);
            json_text(out, region);
        }
        if (span != NULL) {
            fprintf(out, "%s\"from\":\"%s\"", region != NULL ? "," : "", span->exact ? "events" : "samples");
            if (span->region != 0)
                fprintf(out, ",\"region_id\":%" PRIu64, span->region);
            if (span->wait_id != 0)
                fprintf(out, ",\"wait_id\":\"0x%" PRIx64 "\"", span->wait_id);
        }
        fputc('}', out);
    }
    fputc('}', out);
}

/* One metadata ("M") event naming a process or thread. */
static void name_event(FILE *out, const char *what, long pid, long tid, const char *name)
{
    fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":", what,
            pid, tid);
    json_text(out, name);
    fputs("}}", out);
}

/* The trace's otherData: what ran, on which runtime, how complete the record is; and the damage event, if any. */
static void trace_other_data(const struct ompc_report *report, int rows, FILE *out)
{
    const struct ompc_model_process *process = report->process;
    long pid = (long)process->pid;
    int truncated = 0;
    uint64_t events_recorded = 0, events_dropped = process->untracked.event_log_dropped;
    for (int i = 0; i < rows; i++) {
        truncated += process->threads[i].timeline_truncated != 0;
        events_recorded += process->threads[i].event_log_length;
        events_dropped += process->threads[i].event_log_dropped;
    }
    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"collector\":\"ompcollect " PACKAGE_VERSION
          "\",\"program\":",
          out);
    json_text(out, report->program);
    fprintf(out, ",\"pid\":%ld,\"runtime\":", pid);
    json_text(out, report->runtime_file);
    fputs(",\"runtime_version\":", out);
    json_text(out, report->runtime_version);
    fprintf(out,
            ",\"complete\":%s,\"wall_ns\":%llu,\"timeline_cap_per_thread\":%u,"
            "\"threads_truncated\":%d,\"regions_from\":\"%s\",\"event_log_bytes_per_thread\":%llu,"
            "\"events_recorded\":%llu,\"events_dropped\":%llu},\n"
            "\"traceEvents\":[\n",
            report->complete ? "true" : "false", (unsigned long long)report->wall_ns,
            OMPC_TIMELINE_CAP, truncated,
            report->event_log_bytes != 0 ? "FORK and JOIN events" : "the initial thread's time out of SERIAL",
            (unsigned long long)report->event_log_bytes, (unsigned long long)events_recorded,
            (unsigned long long)events_dropped);
    if (process->damage.count != 0) {
        /* Said as a metadata event, which every trace viewer lists. */
        fprintf(out, "{\"name\":\"record damaged (%lu finding%s)\",\"ph\":\"i\",\"s\":\"g\",\"ts\":0,\"pid\":%ld,"
                     "\"args\":{\"text\":", process->damage.count, process->damage.count == 1 ? "" : "s", pid);
        json_text(out, process->damage.text);
        fputs("}},\n", out);
    }
}

/* One thread's name, its place among the rows and its spans as complete events; -1 without memory. */
static int trace_thread(FILE *out, const struct ompc_report *report, int thread,
                        const struct ompc_locations *locations, const uint64_t *regions, long region_count)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    long pid = (long)report->process->pid;
    long tid = (long)slot->tid;
    char name[160];
    snprintf(name, sizeof name, "thread %d%s%s", thread, slot->initial ? " (initial)" : "",
             slot->timeline_truncated ? " (stops early: record full)" : "");
    name_event(out, "thread_name", pid, tid, name);
    fprintf(out,
            ",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%ld,\"tid\":%ld,"
            "\"args\":{\"sort_index\":%d}}",
            pid, tid, thread);
    struct ompc_span *spans;
    long count = ompc_trace_spans(report, thread, &spans);
    if (count < 0)
        return -1;
    long next_region = 0;
    for (long k = 0; k < count; k++) {
        const struct ompc_span *span = &spans[k];
        char label[300], region[48];
        ompc_span_name(span, locations->symbolizer, label, sizeof label);
        if (span->kind == OMPC_SPAN_REGION) {
            /* Without events the regions are numbered; with them, named by their construct. */
            if (!span->exact)
                snprintf(label, sizeof label, "parallel region %ld", ++next_region);
            complete_event(out, pid, tid, label, "region", span->begin_ns, span->end_ns, NULL, span);
        } else if (span->kind == OMPC_SPAN_CONSTRUCT) {
            complete_event(out, pid, tid, label, "construct", span->begin_ns, span->end_ns, NULL, span);
        } else {
            ompc_timeline_region_name(regions, region_count, span->begin_ns, region, sizeof region);
            complete_event(out, pid, tid, label, "state", span->begin_ns, span->end_ns,
                           report->event_log_bytes != 0 ? NULL : region, span);
        }
    }
    free(spans);
    return 0;
}

/*
 * The trace: per thread, one complete event per span (trace_spans.c): the
 * parallel regions from FORK to JOIN on their master, the constructs and
 * waits between their BEGIN and END events, and the states -- exact inside
 * a wait's events, sampled elsewhere; without an event log, the sampled
 * states and the initial thread's time out of SERIAL as its regions.  An
 * enclosing span comes before those it encloses, so every thread's events
 * come in time order.
 */
int ompc_write_trace_json(const struct ompc_report *report, FILE *out)
{
    const struct ompc_model_process *process = report->process;
    long pid = (long)process->pid;
    int rows = process->thread_count;
    if (rows > OMPC_MAX_THREADS)
        rows = OMPC_MAX_THREADS;
    uint64_t *regions;
    long region_count = ompc_timeline_regions(report, &regions);
    if (region_count < 0)
        return -1;
    struct ompc_locations locations;
    memset(&locations, 0, sizeof locations);
    if (ompc_locations_build(process, &locations) != 0) {
        ompc_locations_free(&locations);
        free(regions);
        return -1;
    }
    trace_other_data(report, rows, out);

    char name[160];
    snprintf(name, sizeof name, "%s (pid %ld%s)", report->program != NULL ? report->program : "?",
             pid, report->complete ? "" : ", incomplete");
    /* The first event carries no leading comma; every later one does. */
    fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"tid\":0,\"args\":{\"name\":",
            pid);
    json_text(out, name);
    fputs("}}", out);
    int failed = 0;
    for (int i = 0; i < rows && !failed; i++)
        failed = trace_thread(out, report, i, &locations, regions, region_count) != 0;
    if (!failed)
        fputs("\n]}\n", out);
    ompc_locations_free(&locations);
    free(regions);
    return failed || ferror(out) ? -1 : 0;
}
