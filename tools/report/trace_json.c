/* trace_json.c - writes one recorded process's thread states over time as Chrome trace-event JSON, for ompcollect --trace-json (Perfetto, chrome://tracing). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "jsonw.h"
#include "locations.h"
#include "report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * The trace is written as it is made: the document's punctuation by hand,
 * each event dumped by jansson on its own, so memory holds one event
 * however long the trace (tens of MB for a busy run).  The complete event
 * of the spans, nearly all of the events, is made once and its values are
 * changed in place for each span.  A failure (memory, or the write) is
 * kept and ends the trace.
 */
struct trace_writer {
    FILE *out;
    long pid;
    long events; /* written so far: every one after the first is preceded by ",\n" */
    int failed;
    json_t *span; /* {"ph":"X","name","cat","pid","tid","ts","dur","args"}, or NULL without memory */
    json_t *name, *category, *tid, *ts, *dur; /* its values, changed in place */
};

/* Writes one event (NULL: memory ran out) with `flags`. */
static void write_event(struct trace_writer *writer, const json_t *event, size_t flags)
{
    if (event == NULL || writer->failed || (writer->events++ != 0 && fputs(",\n", writer->out) == EOF)
        || ompc_json_dump(event, writer->out, flags) != 0)
        writer->failed = 1;
}

/* Writes one event and releases it. */
static void emit(struct trace_writer *writer, json_t *event, size_t flags)
{
    write_event(writer, event, flags);
    json_decref(event);
}

/* A time in the trace's unit, microseconds: the nearest double to ns / 1000, as a reader of "%llu.%03u" gets. */
static double microseconds(uint64_t ns)
{
    /* Up to 2^53 the nanoseconds are exact in a double and one division rounds once. */
    if (ns <= UINT64_C(1) << 53)
        return (double)ns / 1000.0;
    char text[32];
    snprintf(text, sizeof text, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
    return strtod(text, NULL);
}

/*
 * The flags of an event whose times end at `end_ns`: 15 significant digits
 * write each time to the nanosecond, as "%.3f" did, up to 10^12 us (11.5
 * days; jansson's "%.15g" drops the trailing zeros).  Later times have
 * more digits than a double holds to the nanosecond: 17 then give the
 * reader the same double back.
 */
static size_t event_flags(uint64_t end_ns)
{
    int digits = end_ns < UINT64_C(1000000000000000) ? 15 : 17;
    return JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(digits);
}

/* Makes the complete event the spans reuse, its members in their order; a failure is kept in the writer. */
static void make_span_event(struct trace_writer *writer)
{
    json_t *event = json_object();
    writer->name = json_string("");
    writer->category = json_string("");
    writer->tid = json_integer(0);
    writer->ts = json_real(0);
    writer->dur = json_real(0);
    /* The event holds a reference to each value, the writer another to change it. */
    int failed = ompc_json_set(event, "ph", json_string("X"));
    failed |= ompc_json_set(event, "name", json_incref(writer->name));
    failed |= ompc_json_set(event, "cat", json_incref(writer->category));
    failed |= ompc_json_set(event, "pid", json_integer(writer->pid));
    failed |= ompc_json_set(event, "tid", json_incref(writer->tid));
    failed |= ompc_json_set(event, "ts", json_incref(writer->ts));
    failed |= ompc_json_set(event, "dur", json_incref(writer->dur));
    failed |= ompc_json_set(event, "args", json_object());
    writer->span = ompc_json_built(event, failed);
    writer->failed |= writer->span == NULL;
}

/* Releases the reused event and the writer's references to its values. */
static void free_span_event(struct trace_writer *writer)
{
    json_decref(writer->span);
    json_decref(writer->name);
    json_decref(writer->category);
    json_decref(writer->tid);
    json_decref(writer->ts);
    json_decref(writer->dur);
}

/* One complete ("X") event on a thread; `region` (NULL: none) and the span's exactness, region id and wait id are its arguments. */
static void complete_event(struct trace_writer *writer, long tid, const char *name, const char *category,
                           const struct ompc_span *span, const char *region)
{
    if (writer->failed)
        return;
    json_t *args = json_object();
    int failed = ompc_json_text_set(writer->name, name, strlen(name));
    failed |= json_string_set(writer->category, category);
    failed |= json_integer_set(writer->tid, tid);
    failed |= json_real_set(writer->ts, microseconds(span->begin_ns));
    failed |= json_real_set(writer->dur, microseconds(span->end_ns - span->begin_ns));
    if (region != NULL)
        failed |= ompc_json_set(args, "region", ompc_json_string(region));
    failed |= ompc_json_set(args, "from", json_string(span->exact ? "events" : "samples"));
    if (span->region != 0)
        failed |= ompc_json_set(args, "region_id", ompc_json_u64(span->region));
    if (span->wait_id != 0)
        failed |= ompc_json_set(args, "wait_id", ompc_json_hex(span->wait_id, 0));
    /* Setting a member that is there keeps its place. */
    failed |= ompc_json_set(writer->span, "args", args);
    if (failed)
        writer->failed = 1;
    else
        write_event(writer, writer->span, event_flags(span->end_ns));
}

/* One metadata ("M") event about a process or thread: `key` of its arguments is `value`. */
static void metadata_event(struct trace_writer *writer, const char *what, long tid, const char *key, json_t *value)
{
    json_t *event = json_object(), *args = json_object();
    int failed = ompc_json_set(event, "ph", json_string("M"));
    failed |= ompc_json_set(event, "name", json_string(what));
    failed |= ompc_json_set(event, "pid", json_integer(writer->pid));
    failed |= ompc_json_set(event, "tid", json_integer(tid));
    failed |= ompc_json_set(args, key, value);
    failed |= ompc_json_set(event, "args", args);
    emit(writer, ompc_json_built(event, failed), OMPC_JSON_COMPACT);
}

/* The trace's otherData: what ran, on which runtime, how complete the record is. */
static json_t *other_data(const struct ompc_report *report, int rows)
{
    const struct ompc_model_process *process = report->process;
    int truncated = 0;
    uint64_t events_recorded = 0, events_dropped = process->untracked.event_log_dropped;
    for (int i = 0; i < rows; i++) {
        truncated += process->threads[i].timeline_truncated != 0;
        events_recorded += process->threads[i].event_log_length;
        events_dropped += process->threads[i].event_log_dropped;
    }
    json_t *data = json_object();
    int failed = ompc_json_set(data, "collector", json_string("ompcollect " PACKAGE_VERSION));
    failed |= ompc_json_set(data, "program", ompc_json_string(report->program));
    failed |= ompc_json_set(data, "pid", json_integer(process->pid));
    failed |= ompc_json_set(data, "runtime", ompc_json_string(report->runtime_file));
    failed |= ompc_json_set(data, "runtime_version", ompc_json_string(report->runtime_version));
    failed |= ompc_json_set(data, "complete", json_boolean(report->complete));
    failed |= ompc_json_set(data, "wall_ns", ompc_json_u64(report->wall_ns));
    failed |= ompc_json_set(data, "timeline_cap_per_thread", json_integer(OMPC_TIMELINE_CAP));
    failed |= ompc_json_set(data, "threads_truncated", json_integer(truncated));
    failed |= ompc_json_set(data, "regions_from", json_string(report->event_log_bytes != 0
                                                                  ? "FORK and JOIN events"
                                                                  : "the initial thread's time out of SERIAL"));
    failed |= ompc_json_set(data, "event_log_bytes_per_thread", ompc_json_u64(report->event_log_bytes));
    failed |= ompc_json_set(data, "events_recorded", ompc_json_u64(events_recorded));
    failed |= ompc_json_set(data, "events_dropped", ompc_json_u64(events_dropped));
    return ompc_json_built(data, failed);
}

/* The document's head: its otherData, then the damage event, if any, said as an instant event every trace viewer lists. */
static void trace_head(struct trace_writer *writer, const struct ompc_report *report, int rows)
{
    const struct ompc_model_process *process = report->process;
    json_t *data = other_data(report, rows);
    if (fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":", writer->out) == EOF
        || ompc_json_dump(data, writer->out, OMPC_JSON_COMPACT) != 0
        || fputs(",\n\"traceEvents\":[\n", writer->out) == EOF)
        writer->failed = 1;
    json_decref(data);
    if (process->damage.count == 0)
        return;
    char name[64];
    snprintf(name, sizeof name, "record damaged (%lu finding%s)", process->damage.count,
             process->damage.count == 1 ? "" : "s");
    json_t *event = json_object(), *args = json_object();
    int failed = ompc_json_set(event, "name", json_string(name));
    failed |= ompc_json_set(event, "ph", json_string("i"));
    failed |= ompc_json_set(event, "s", json_string("g"));
    failed |= ompc_json_set(event, "ts", json_integer(0));
    failed |= ompc_json_set(event, "pid", json_integer(writer->pid));
    failed |= ompc_json_set(args, "text", ompc_json_string(process->damage.text));
    failed |= ompc_json_set(event, "args", args);
    emit(writer, ompc_json_built(event, failed), OMPC_JSON_COMPACT);
}

/* One thread's name, its place among the rows and its spans as complete events; -1 without memory. */
static int trace_thread(struct trace_writer *writer, const struct ompc_report *report, int thread,
                        const struct ompc_locations *locations, const uint64_t *regions, long region_count)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    long tid = (long)slot->tid;
    char name[160];
    snprintf(name, sizeof name, "thread %d%s%s", thread, slot->initial ? " (initial)" : "",
             slot->timeline_truncated ? " (stops early: record full)" : "");
    metadata_event(writer, "thread_name", tid, "name", ompc_json_string(name));
    metadata_event(writer, "thread_sort_index", tid, "sort_index", json_integer(thread));
    struct ompc_span *spans;
    long count = ompc_trace_spans(report, thread, &spans);
    if (count < 0)
        return -1;
    long next_region = 0;
    for (long k = 0; k < count && !writer->failed; k++) {
        const struct ompc_span *span = &spans[k];
        char label[300], region[48];
        ompc_span_name(span, locations->symbolizer, label, sizeof label);
        if (span->kind == OMPC_SPAN_REGION) {
            /* Without events the regions are numbered; with them, named by their construct. */
            if (!span->exact)
                snprintf(label, sizeof label, "parallel region %ld", ++next_region);
            complete_event(writer, tid, label, "region", span, NULL);
        } else if (span->kind == OMPC_SPAN_CONSTRUCT) {
            complete_event(writer, tid, label, "construct", span, NULL);
        } else {
            ompc_timeline_region_name(regions, region_count, span->begin_ns, region, sizeof region);
            complete_event(writer, tid, label, "state", span, report->event_log_bytes != 0 ? NULL : region);
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
    struct trace_writer writer = {out, (long)process->pid, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
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
    trace_head(&writer, report, rows);
    make_span_event(&writer);
    char name[160];
    snprintf(name, sizeof name, "%s (pid %ld%s)", report->program != NULL ? report->program : "?",
             writer.pid, report->complete ? "" : ", incomplete");
    metadata_event(&writer, "process_name", 0, "name", ompc_json_string(name));
    for (int i = 0; i < rows && !writer.failed; i++)
        if (trace_thread(&writer, report, i, &locations, regions, region_count) != 0)
            writer.failed = 1;
    if (!writer.failed && fputs("\n]}\n", out) == EOF)
        writer.failed = 1;
    free_span_event(&writer);
    ompc_locations_free(&locations);
    free(regions);
    return writer.failed || ferror(out) ? -1 : 0;
}
