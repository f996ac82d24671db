/* json-oom.c - the JSON writers (report, Chrome trace, merge's summary) of a saved run with jansson's allocations failing one at a time: each write returns -1, never crashes, and leaves nothing allocated; for t/json-oom-t.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tap.h"
#include "load.h"
#include "merge.h"
#include "report.h"
#include "run.h"
#include "session.h"
#include "stacks.h"
#include "writer.h"

/* jansson's allocations: counted, the `fail_at`th failed (0: none), and those still live. */
static long allocations, live, fail_at;

static void *counting_malloc(size_t size)
{
    if (++allocations == fail_at)
        return NULL;
    void *block = malloc(size);
    live += block != NULL;
    return block;
}

static void counting_free(void *block)
{
    live -= block != NULL;
    free(block);
}

/* One writer under test, writing to `out`; 0, or -1. */
struct writer {
    const char *name;
    int (*write)(void *data, FILE *out);
    void *data;
};

/* At most this many failing points are tried per writer: every one up to it, then spread over the rest. */
#define TRIES 400

/*
 * Runs the writer once to count its allocations, then with each of (a
 * spread of) them failing: every such write must return -1 and leave no
 * block of jansson's allocated.
 */
static void fail_each(const struct writer *writer, FILE *sink)
{
    allocations = live = fail_at = 0;
    int clean = writer->write(writer->data, sink);
    long needed = allocations;
    if (!tap_ok(clean == 0 && live == 0 && needed > 0, "%s: written with no failure (%ld allocations)",
                writer->name, needed))
        return;
    long step = needed > TRIES ? needed / TRIES + 1 : 1, tried = 0, refused = 0, leaked = 0;
    for (fail_at = 1; fail_at <= needed; fail_at += fail_at < 100 ? 1 : step) {
        allocations = live = 0;
        tried++;
        refused += writer->write(writer->data, sink) == -1;
        if (live != 0 && leaked++ == 0)
            tap_diag("%s: failing allocation %ld left %ld blocks", writer->name, fail_at, live);
    }
    fail_at = 0;
    tap_ok(refused == tried && leaked == 0, "%s: each of %ld failing allocations: -1 every time (%ld), no leak (%ld)",
           writer->name, tried, refused, leaked);
}

/* A process view's writer from the table, by name, to `out`. */
static int write_process(const char *name, const struct ompc_report *report, FILE *out)
{
    struct ompc_view view = {.kind = OMPC_VIEW_PROCESS, .process = report};
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = out};
    return ompc_writer_write(ompc_writer_find(ompc_report_writers, OMPC_VIEW_PROCESS, name), &view, &sink);
}

static int write_report(void *data, FILE *out)
{
    return write_process("json", data, out);
}

static int write_trace(void *data, FILE *out)
{
    return write_process("trace-json", data, out);
}

/* merge's summary of two reports (the same run under two pids). */
static int write_merge(void *data, FILE *out)
{
    struct ompc_merge_input *inputs = data;
    char error[256];
    return ompc_merge_write(out, OMPC_FORMAT_JSON, inputs, 2, error, sizeof error);
}

/* The report of a saved run's first process, as the launcher would fill it for `ompcollect report`. */
static void fill_report(struct ompc_report *report, struct ompc_model_process *process)
{
    memset(report, 0, sizeof *report);
    report->process = process;
    report->sampling = 1;
    report->interval_ns = 1000000;
    report->wall_ns = process->end_ns;
    report->program = "prog\xff name";
    report->complete = 1;
    report->end_how = "exit";
    report->fate = "exit status 0";
    report->rank = -1;
    report->host = report->relation = report->runtime_path = report->runtime_file = "";
    report->runtime_version = report->runtime_why = report->shim = report->agent = "";
    report->event_log_bytes = 8 << 20;
    report->stacks = ompc_stacks_build(process);
    report->stacks_asked = 1;
}

/* Two merge inputs parsed from the report's own JSON, the second given another pid. */
static int merge_inputs(const struct ompc_report *report, struct ompc_merge_input *inputs)
{
    char *text = NULL, error[256];
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (out == NULL || write_process("json", report, out) != 0 || fclose(out) != 0)
        return -1;
    int status = 0;
    for (int i = 0; i < 2 && status == 0; i++) {
        memset(&inputs[i], 0, sizeof inputs[i]);
        inputs[i].file = i ? "second.json" : "first.json";
        status = ompc_merge_parse(text, length, OMPC_MERGE_MAX_MEMORY, &inputs[i], error, sizeof error);
        if (status != 0)
            tap_diag("merge refused the report: %s", error);
    }
    inputs[1].pid++;
    free(text);
    return status;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        tap_bail("usage: json-oom SAVED-RUN");
    struct run run;
    memset(&run, 0, sizeof run);
    run.session = ompc_session_new();
    char error[256];
    if (run.session == NULL || ompc_session_open(argv[1], &run, error, sizeof error) != 0)
        tap_bail("%s: %s", argv[1], run.session != NULL ? error : "out of memory");
    struct ompc_load_bounds bounds = {run.start_ns, run.end_ns, NULL};
    struct ompc_model_process *process = ompc_load_process(
        run.record_fd, &run.header, 0, OMPC_LOAD_TIMELINES | OMPC_LOAD_WHERE | OMPC_LOAD_EVENT_LOGS | OMPC_LOAD_STACKS,
        &bounds);
    FILE *sink = fopen("/dev/null", "w");
    if (process == NULL || sink == NULL)
        tap_bail("the saved run's first process did not load");
    process->symfs = "/nonexistent";
    json_set_alloc_funcs(counting_malloc, counting_free);
    struct ompc_report report;
    fill_report(&report, process);
    struct ompc_merge_input inputs[2];
    tap_plan(6);
    if (merge_inputs(&report, inputs) != 0)
        tap_bail("the report could not be read back for merge");
    struct writer writers[] = {
        {"the JSON report", write_report, &report},
        {"the Chrome trace", write_trace, &report},
        {"merge's JSON summary", write_merge, inputs},
    };
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
        fail_each(&writers[i], sink);
    ompc_merge_input_release(&inputs[0]);
    ompc_merge_input_release(&inputs[1]);
    ompc_stacks_free((struct ompc_stacks *)report.stacks);
    ompc_model_free(process);
    fclose(sink);
    close(run.record_fd);
    free(run.reaped);
    ompc_session_free(run.session);
    return tap_done();
}
