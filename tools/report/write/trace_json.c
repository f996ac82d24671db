/* trace_json.c - writes one recorded process's thread states over time as Chrome trace-event JSON, for ompcollect --trace-json (Perfetto, chrome://tracing). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "bounds.h"
#include "jsonw.h"
#include "locations.h"
#include "report.h"
#include "sections.h"
#include "spans.h"
#include "symbolize.h"
#include "writer.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * The trace is written as it is made, each event into a buffer of fixed
 * size that goes out when it fills, so memory holds a few events however
 * long the trace.  A trace holds hundreds of thousands of events but few
 * names: each code address is named (symbolized and escaped, by jansson
 * through jsonw.c) once, and kept as JSON text; the numbers are written
 * by hand.  The head, the metadata and the rare events go through jansson
 * whole.  A failure (memory, or the write) is kept and ends the trace.
 */
#define TRACE_BUFFER 65536

/*
 * The track of the initial thread's parallel regions, apart from its
 * states so that a state across a FORK or JOIN is one event: a thread id
 * no thread has (Linux's are below 2^22).
 */
#define REGION_TRACK(pid) ((1L << 30) + (pid))

/* A code address's location as JSON string text, quotes included. */
struct quoted_label {
    uint64_t address; /* 0: a free entry */
    char *text;
    size_t size;
};

struct trace_writer {
    FILE *out;
    long pid;
    long events; /* written so far: every one after the first is preceded by ",\n" */
    int failed;
    struct ompc_symbolizer *symbolizer; /* NULL: addresses stay raw */
    const struct ompc_regions *regions;
    struct quoted_label *labels; /* open addressing, `label_capacity` a power of two */
    size_t label_count, label_capacity;
    size_t used;
    char buffer[TRACE_BUFFER];
};

/* Writes out what the buffer holds. */
static void flush_buffer(struct trace_writer *writer)
{
    if (writer->used != 0 && !writer->failed && fwrite(writer->buffer, 1, writer->used, writer->out) != writer->used)
        writer->failed = 1;
    writer->used = 0;
}

/* Appends `size` bytes to the buffer (an event is far smaller than it). */
static void put(struct trace_writer *writer, const char *text, size_t size)
{
    if (size > sizeof writer->buffer - writer->used)
        flush_buffer(writer);
    if (size > sizeof writer->buffer) {
        writer->failed |= !writer->failed && fwrite(text, 1, size, writer->out) != size;
        return;
    }
    memcpy(writer->buffer + writer->used, text, size);
    writer->used += size;
}

static void put_text(struct trace_writer *writer, const char *text)
{
    put(writer, text, strlen(text));
}

/* A count in decimal. */
static void put_u64(struct trace_writer *writer, uint64_t value)
{
    char digits[24];
    int at = sizeof digits;
    do
        digits[--at] = (char)('0' + value % 10);
    while ((value /= 10) != 0);
    put(writer, digits + at, sizeof digits - (size_t)at);
}

/*
 * An id from the record (a region's, a task's): null past 2^63-1, as the
 * JSON report writes such numbers, since readers that keep integers in 64
 * signed bits (jansson) refuse it, and only a damaged record has one.
 */
static void put_id(struct trace_writer *writer, uint64_t value)
{
    if (value > (uint64_t)INT64_MAX)
        put_text(writer, "null");
    else
        put_u64(writer, value);
}

/*
 * A time in the trace's unit, microseconds, from nanoseconds: exact as
 * decimal text (the reader's nearest double), without trailing zeros.
 */
static void put_time(struct trace_writer *writer, uint64_t ns)
{
    put_u64(writer, ns / 1000);
    unsigned fraction = (unsigned)(ns % 1000);
    if (fraction == 0)
        return;
    char text[4] = {'.', (char)('0' + fraction / 100), (char)('0' + fraction / 10 % 10), (char)('0' + fraction % 10)};
    size_t size = 4;
    while (text[size - 1] == '0')
        size--;
    put(writer, text, size);
}

/* Begins an event: the separator before all but the first. */
static void begin_event(struct trace_writer *writer)
{
    if (writer->events++ != 0)
        put(writer, ",\n", 2);
}

/* Writes one event made by jansson (NULL: memory ran out) and releases it. */
static void emit(struct trace_writer *writer, json_t *event)
{
    if (event == NULL)
        writer->failed = 1;
    begin_event(writer);
    flush_buffer(writer);
    if (!writer->failed && ompc_json_dump(event, writer->out, OMPC_JSON_COMPACT) != 0)
        writer->failed = 1;
    json_decref(event);
}

/* The slot of `address` in the label table: its entry or the free one where it goes. */
static struct quoted_label *label_slot(const struct trace_writer *writer, uint64_t address)
{
    size_t mask = writer->label_capacity - 1;
    size_t at = (size_t)((address * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;
    while (writer->labels[at].address != 0 && writer->labels[at].address != address)
        at = (at + 1) & mask;
    return &writer->labels[at];
}

/* Doubles the label table; -1 without memory. */
static int labels_grow(struct trace_writer *writer)
{
    struct quoted_label *old = writer->labels;
    size_t old_capacity = writer->label_capacity;
    writer->label_capacity = old_capacity ? 2 * old_capacity : 64;
    writer->labels = calloc(writer->label_capacity, sizeof *writer->labels);
    if (writer->labels == NULL) {
        writer->labels = old;
        writer->label_capacity = old_capacity;
        return -1;
    }
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].address != 0)
            *label_slot(writer, old[i].address) = old[i];
    free(old);
    return 0;
}

/* Where code address `address` (not 0) is, as JSON string text ("\"solve solver.c:34\""); NULL without memory. */
static const struct quoted_label *location(struct trace_writer *writer, uint64_t address)
{
    if (writer->label_count * 2 >= writer->label_capacity && labels_grow(writer) != 0)
        return NULL;
    struct quoted_label *slot = label_slot(writer, address);
    if (slot->address != 0)
        return slot;
    struct ompc_location where;
    char label[256];
    ompc_symbolize(writer->symbolizer, address, OMPC_ADDRESS_CODEPTR, &where);
    const char *text = ompc_location_label(&where, address, label, sizeof label);
    slot->text = ompc_json_quoted(text, strlen(text), &slot->size);
    if (slot->text == NULL)
        return NULL;
    slot->address = address;
    writer->label_count++;
    return slot;
}

/* Frees the label table. */
static void labels_free(struct trace_writer *writer)
{
    for (size_t i = 0; i < writer->label_capacity; i++)
        free(writer->labels[i].text);
    free(writer->labels);
}

/* `"what at LOCATION"`, or `"what"` when the address is 0 (`what` needs no escaping). */
static void put_name(struct trace_writer *writer, const char *what, uint64_t address)
{
    const struct quoted_label *label = address != 0 ? location(writer, address) : NULL;
    if (address != 0 && label == NULL)
        writer->failed = 1;
    put(writer, "\"", 1);
    put_text(writer, what);
    if (label == NULL) {
        put(writer, "\"", 1);
        return;
    }
    put(writer, " at ", 4);
    put(writer, label->text + 1, label->size - 1);
}

/* The head of a complete event up to its arguments: phase, category, name, thread and times. */
static void put_complete(struct trace_writer *writer, const char *category, const char *what, uint64_t address,
                         long tid, const struct ompc_span *span)
{
    begin_event(writer);
    put_text(writer, "{\"ph\":\"X\",\"cat\":\"");
    put_text(writer, category);
    put_text(writer, "\",\"name\":");
    put_name(writer, what, address);
    put_text(writer, ",\"pid\":");
    put_u64(writer, (uint64_t)writer->pid);
    put_text(writer, ",\"tid\":");
    put_u64(writer, (uint64_t)tid);
    put_text(writer, ",\"ts\":");
    put_time(writer, span->begin_ns);
    put_text(writer, ",\"dur\":");
    put_time(writer, span->end_ns - span->begin_ns);
}

/* One argument: `key` (no escaping needed), a comma before all but the first. */
static void put_key(struct trace_writer *writer, int *count, const char *key)
{
    put_text(writer, (*count)++ == 0 ? ",\"args\":{\"" : ",\"");
    put_text(writer, key);
    put_text(writer, "\":");
}

/* Ends an event, closing its arguments when it had any. */
static void end_event(struct trace_writer *writer, int count)
{
    put_text(writer, count != 0 ? "}}" : "}");
}

/* The arguments of an event-bracketed span: its region id, wait id and, when asked, where it waited. */
static void put_event_args(struct trace_writer *writer, const struct ompc_span *span, int at, int *count)
{
    if (span->region != 0) {
        put_key(writer, count, "region");
        put_id(writer, span->region);
    }
    if (span->wait_id != 0) {
        char hex[24];
        put_key(writer, count, "wait");
        put(writer, hex, (size_t)snprintf(hex, sizeof hex, "\"0x%" PRIx64 "\"", span->wait_id));
    }
    const struct quoted_label *label = at && span->codeptr != 0 ? location(writer, span->codeptr) : NULL;
    if (at && span->codeptr != 0 && label == NULL)
        writer->failed = 1;
    if (label != NULL) {
        put_key(writer, count, "at");
        put(writer, label->text, label->size);
    }
}

/* A parallel region or a league: named by its construct's kind (or, without events, numbered), with its id and instance. */
static void region_event(struct trace_writer *writer, long tid, const struct ompc_span *span)
{
    const struct ompc_regions *regions = writer->regions;
    long index = ompc_region_at(regions, span->begin_ns);
    const struct ompc_region_instance *instance =
        index >= 0 && regions->items[index].begin_ns == span->begin_ns ? &regions->items[index] : NULL;
    char numbered[48];
    const char *what = ompc_span_region_kind(span);
    if (!span->exact && instance != NULL) {
        snprintf(numbered, sizeof numbered, "parallel region %ld", instance->instance);
        what = numbered;
    }
    put_complete(writer, "region", what, span->exact ? span->codeptr : 0, tid, span);
    int count = 0;
    if (span->region != 0) {
        put_key(writer, &count, "id");
        put_id(writer, span->region);
    }
    if (instance != NULL) {
        put_key(writer, &count, "instance");
        put_u64(writer, (uint64_t)instance->instance);
        put_key(writer, &count, "of");
        put_u64(writer, (uint64_t)instance->of);
    }
    end_event(writer, count);
}

/* A construct's span (master, single, a wait whose state is not alone inside it). */
static void construct_event(struct trace_writer *writer, long tid, const struct ompc_span *span)
{
    char what[64];
    ompc_span_name(&(struct ompc_span){.kind = span->kind, .pair = span->pair}, NULL, what, sizeof what);
    put_complete(writer, "construct", what, span->codeptr, tid, span);
    int count = 0;
    put_event_args(writer, span, 0, &count);
    end_event(writer, count);
}

/*
 * One run of a task: named by the task construct that made it, with the
 * task's id, its parent's, and whether the run is only a part of the task
 * (an untied task's, or one whose end the log did not keep).
 */
static void task_event(struct trace_writer *writer, const struct ompc_model_process *process, long tid,
                       const struct ompc_span *span)
{
    put_complete(writer, "task", "task", span->codeptr, tid, span);
    int count = 0;
    put_key(writer, &count, "task");
    put_id(writer, span->task);
    const struct ompc_model_task *task = ompc_model_task(process, span->task);
    if (task != NULL && task->parent != 0) {
        put_key(writer, &count, "parent");
        put_id(writer, task->parent);
    }
    if (task != NULL && task->undeferred) {
        put_key(writer, &count, "undeferred");
        put_text(writer, "true");
    }
    if (!span->complete) {
        put_key(writer, &count, "part");
        put_text(writer, "true");
    }
    end_event(writer, count);
}

/*
 * A state span: `wait` (NULL: none) is the wait construct whose events
 * bracket exactly this span, said in its arguments; a sampled state of a
 * run without events says the region instance it fell in.
 */
static void state_event(struct trace_writer *writer, long tid, const struct ompc_span *span,
                        const struct ompc_span *wait, int numbered)
{
    put_complete(writer, "state", ompc_state_name(span->state), 0, tid, span);
    int count = 0;
    if (wait != NULL) {
        put_event_args(writer, wait, 1, &count);
    } else if (span->exact) {
        put_event_args(writer, span, 0, &count);
    } else if (numbered) {
        long index = ompc_region_at(writer->regions, span->begin_ns);
        if (index >= 0) {
            put_key(writer, &count, "instance");
            put_u64(writer, (uint64_t)writer->regions->items[index].instance);
        }
    }
    end_event(writer, count);
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
    emit(writer, ompc_json_built(event, failed));
}

/* An instant event: on thread `tid` (0: the whole process) at `ns`, `text` in its arguments. */
static void instant_event(struct trace_writer *writer, long tid, uint64_t ns, const char *name, const char *text)
{
    json_t *event = json_object(), *args = json_object();
    int failed = ompc_json_set(event, "ph", json_string("i"));
    failed |= ompc_json_set(event, "s", json_string(tid != 0 ? "t" : "g"));
    failed |= ompc_json_set(event, "name", ompc_json_string(name));
    failed |= ompc_json_set(event, "pid", json_integer(writer->pid));
    if (tid != 0)
        failed |= ompc_json_set(event, "tid", json_integer(tid));
    failed |= ompc_json_set(event, "ts", json_real((double)(ns / 1000) + (double)(ns % 1000) / 1000.0));
    failed |= ompc_json_set(args, "text", ompc_json_string(text));
    failed |= ompc_json_set(event, "args", args);
    emit(writer, ompc_json_built(event, failed));
}

/* The trace's otherData: what ran, on which runtime, how complete the record is, what the arguments mean. */
static json_t *other_data(const struct ompc_report *report, int rows, const struct ompc_limit *limits,
                          int limit_count)
{
    const struct ompc_model_process *process = report->process;
    int truncated = 0, logs_full = 0;
    uint64_t events_recorded = 0, events_dropped = process->untracked.event_log_dropped;
    for (int i = 0; i < rows; i++) {
        truncated += process->threads[i].timeline_truncated != 0;
        logs_full += process->threads[i].event_log_dropped != 0;
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
    failed |= ompc_json_set(data, "threads_event_log_full", json_integer(logs_full));
    failed |= ompc_json_set(data, "limits", ompc_limits_json(limits, limit_count));
    failed |= ompc_json_set(data, "args",
                            json_string("a state with a region, wait or at argument was bracketed by its wait's "
                                        "BEGIN and END events (at: where it waited); one without was sampled. "
                                        "Regions: id from FORK, instance of its construct's of; the initial "
                                        "thread's are on a track of their own (tid 2^30 + pid), so a sampled "
                                        "state across a FORK or JOIN is one event. Tasks: one event per run of "
                                        "a task on a thread (cat task), named by the task construct, with the "
                                        "task's id, its parent's, and part: true when the run did not complete "
                                        "the task (an untied task's part); states inside a task are sampled. An "
                                        "instant event marks where a thread's record was cut."));
    return ompc_json_built(data, failed);
}

/*
 * The document's head: its otherData, then each bound the run reached and
 * the damage, if any, said as instant events every trace viewer lists.
 */
static void trace_head(struct trace_writer *writer, const struct ompc_report *report, int rows)
{
    const struct ompc_model_process *process = report->process;
    struct ompc_limit limits[OMPC_LIMIT_KINDS];
    int limit_count = ompc_limits_reached(process, report->event_log_bytes, limits);
    json_t *data = other_data(report, rows, limits, limit_count);
    if (fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":", writer->out) == EOF
        || ompc_json_dump(data, writer->out, OMPC_JSON_COMPACT) != 0
        || fputs(",\n\"traceEvents\":[\n", writer->out) == EOF)
        writer->failed = 1;
    json_decref(data);
    for (int i = 0; i < limit_count; i++) {
        char name[64];
        snprintf(name, sizeof name, "limit reached: %s", limits[i].what);
        instant_event(writer, 0, 0, name, limits[i].text);
    }
    if (process->damage.count == 0)
        return;
    char name[64];
    snprintf(name, sizeof name, "record damaged (%lu finding%s)", process->damage.count,
             process->damage.count == 1 ? "" : "s");
    instant_event(writer, 0, 0, name, process->damage.text);
}

/* Where a thread's record was cut (its sampled states, its event log), in time order. */
struct cuts {
    struct cut {
        uint64_t at;
        char name[64];
        char text[320];
    } cut[2];
    int count, next;
};

/* The cuts of one thread's record. */
static void thread_cuts(const struct ompc_report *report, int thread, struct cuts *cuts)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    uint64_t timeline = ompc_timeline_cut_ns(report, thread);
    cuts->count = cuts->next = 0;
    if (timeline != 0) {
        struct cut *cut = &cuts->cut[cuts->count++];
        cut->at = timeline;
        snprintf(cut->name, sizeof cut->name, "sampled states cut");
        snprintf(cut->text, sizeof cut->text,
                 "more than %u state changes (or no room in the record): later states were not kept",
                 OMPC_TIMELINE_CAP);
    }
    if (slot->event_log_dropped != 0) {
        struct cut *cut = &cuts->cut[cuts->count++];
        cut->at = slot->event_log_dropped_ns;
        snprintf(cut->name, sizeof cut->name, "event log full: %" PRIu64 " events dropped", slot->event_log_dropped);
        snprintf(cut->text, sizeof cut->text,
                 "the %" PRIu64 "-byte event log (--trace-buffer) ran full: %" PRIu64 " later events of this "
                 "thread were dropped; its waits after this are sampled only",
                 report->event_log_bytes, slot->event_log_dropped);
    }
    if (cuts->count == 2 && cuts->cut[1].at < cuts->cut[0].at) {
        struct cut first = cuts->cut[1];
        cuts->cut[1] = cuts->cut[0];
        cuts->cut[0] = first;
    }
}

/* The cut marks due before a span that begins at `ns` (UINT64_MAX: all that are left). */
static void cut_events(struct trace_writer *writer, long tid, struct cuts *cuts, uint64_t ns)
{
    for (; cuts->next < cuts->count && cuts->cut[cuts->next].at <= ns; cuts->next++) {
        const struct cut *cut = &cuts->cut[cuts->next];
        flush_buffer(writer);
        instant_event(writer, tid, cut->at, cut->name, cut->text);
    }
}

/*
 * A thread's state spans on their way out: neighbours of one sampled state
 * that only a region's FORK or JOIN split (the regions have a track of
 * their own) become one event, as long as no span of the thread's track
 * begins or ends between them.  `open` holds the ends of the track's
 * spans that enclose the next one.
 */
#define RUN_OPEN 4096 /* spans followed open at once (tasks run inside tasks' waits); deeper, no state is joined */
struct state_run {
    int have, depth;
    struct ompc_span span;
    long instance;
    uint64_t open[RUN_OPEN];
    int open_count;
};

/* Writes the held state span, if any. */
static void run_flush(struct trace_writer *writer, long tid, struct state_run *run, int numbered)
{
    if (run->have)
        state_event(writer, tid, &run->span, NULL, numbered);
    run->have = 0;
}

/* Takes a sampled state span: joined to the held one when they are one state, else held in its place. */
static void run_state(struct trace_writer *writer, long tid, struct state_run *run, const struct ompc_span *span,
                      int numbered)
{
    long instance = numbered ? ompc_region_at(writer->regions, span->begin_ns) : 0;
    if (instance >= 0 && numbered)
        instance = writer->regions->items[instance].instance;
    if (run->have && run->span.state == span->state && run->span.end_ns == span->begin_ns
        && run->depth == run->open_count && run->open_count < RUN_OPEN && run->instance == instance) {
        run->span.end_ns = span->end_ns;
        return;
    }
    run_flush(writer, tid, run, numbered);
    run->have = 1;
    run->span = *span;
    run->depth = run->open_count;
    run->instance = instance;
}

/* The track's spans that end by `ns` no longer enclose what follows. */
static void run_close(struct state_run *run, uint64_t ns)
{
    while (run->open_count > 0 && run->open[run->open_count - 1] <= ns)
        run->open_count--;
}

/* Whether a span goes to the process's region track: the initial thread's outermost regions. */
static int on_region_track(const struct ompc_report *report, int thread, const struct ompc_span *span)
{
    return span->kind == OMPC_SPAN_REGION && span->depth == 0 && report->process->threads[thread].initial;
}

/*
 * The events of one thread's spans.  A wait's construct and the state its
 * events bracket span the same time: they are one event, the state's, that
 * names the construct.  The initial thread's regions go to the region track.
 */
static void span_events(struct trace_writer *writer, const struct ompc_report *report, int thread,
                        const struct ompc_span *spans, long count, struct cuts *cuts)
{
    long tid = (long)report->process->threads[thread].tid;
    int numbered = report->event_log_bytes == 0;
    struct state_run *held = calloc(1, sizeof *held); /* 32 KiB: off the stack */
    if (held == NULL) {
        writer->failed = 1;
        return;
    }
    for (long k = 0; k < count && !writer->failed; k++) {
        const struct ompc_span *span = &spans[k];
        if (on_region_track(report, thread, span)) {
            region_event(writer, REGION_TRACK(writer->pid), span);
            continue;
        }
        run_close(held, span->begin_ns);
        if (span->kind == OMPC_SPAN_STATE && !span->exact) {
            run_state(writer, tid, held, span, numbered);
            continue;
        }
        run_flush(writer, tid, held, numbered);
        cut_events(writer, tid, cuts, span->begin_ns);
        const struct ompc_span *next = k + 1 < count ? &spans[k + 1] : NULL;
        if (span->kind == OMPC_SPAN_CONSTRUCT && span->state != 0 && next != NULL && next->kind == OMPC_SPAN_STATE
            && next->exact && next->state == span->state && next->begin_ns == span->begin_ns
            && next->end_ns == span->end_ns) {
            state_event(writer, tid, next, span, numbered);
            k++;
            continue;
        }
        if (span->kind == OMPC_SPAN_REGION)
            region_event(writer, tid, span);
        else if (span->kind == OMPC_SPAN_TASK)
            task_event(writer, report->process, tid, span);
        else if (span->kind == OMPC_SPAN_CONSTRUCT)
            construct_event(writer, tid, span);
        else
            state_event(writer, tid, span, NULL, numbered);
        if (span->kind != OMPC_SPAN_STATE && held->open_count < RUN_OPEN)
            held->open[held->open_count++] = span->end_ns;
    }
    run_flush(writer, tid, held, numbered);
    cut_events(writer, tid, cuts, UINT64_MAX);
    free(held);
}

/* One thread's name, its place among the rows, its spans and where its record was cut; -1 without memory. */
static int trace_thread(struct trace_writer *writer, const struct ompc_report *report, int thread)
{
    const struct ompc_model_thread *slot = &report->process->threads[thread];
    long tid = (long)slot->tid;
    char name[160];
    snprintf(name, sizeof name, "thread %d%s%s%s", thread, slot->initial ? " (initial)" : "",
             slot->timeline_truncated ? " (sampled states cut: record full)" : "",
             slot->event_log_dropped ? " (event log full)" : "");
    flush_buffer(writer);
    metadata_event(writer, "thread_name", tid, "name", ompc_json_string(name));
    metadata_event(writer, "thread_sort_index", tid, "sort_index", json_integer(thread));
    struct ompc_span *spans;
    long count = ompc_trace_spans(report, thread, &spans);
    if (count < 0)
        return -1;
    struct cuts cuts;
    thread_cuts(report, thread, &cuts);
    span_events(writer, report, thread, spans, count, &cuts);
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
    struct trace_writer *writer = calloc(1, sizeof *writer);
    struct ompc_regions regions;
    struct ompc_locations locations;
    memset(&locations, 0, sizeof locations);
    if (writer == NULL || ompc_regions_find(report, &regions) != 0) {
        free(writer);
        return -1;
    }
    if (ompc_locations_build(process, &locations) != 0) {
        ompc_locations_free(&locations);
        free(regions.items);
        free(writer);
        return -1;
    }
    writer->out = out;
    writer->pid = (long)process->pid;
    writer->symbolizer = locations.symbolizer;
    writer->regions = &regions;
    int rows = process->thread_count < OMPC_MAX_THREADS ? process->thread_count : OMPC_MAX_THREADS;
    trace_head(writer, report, rows);
    char name[160];
    snprintf(name, sizeof name, "%s (pid %ld%s)", report->program != NULL ? report->program : "?", writer->pid,
             report->complete ? "" : ", incomplete");
    metadata_event(writer, "process_name", 0, "name", ompc_json_string(name));
    if (regions.count > 0) {
        metadata_event(writer, "thread_name", REGION_TRACK(writer->pid), "name",
                       json_string("parallel regions (the initial thread's)"));
        metadata_event(writer, "thread_sort_index", REGION_TRACK(writer->pid), "sort_index", json_integer(-1));
    }
    for (int i = 0; i < rows && !writer->failed; i++)
        if (trace_thread(writer, report, i) != 0)
            writer->failed = 1;
    put_text(writer, "\n]}\n");
    flush_buffer(writer);
    int failed = writer->failed || ferror(out);
    labels_free(writer);
    ompc_locations_free(&locations);
    free(regions.items);
    free(writer);
    return failed ? -1 : 0;
}
