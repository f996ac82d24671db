/* fuzz-writers.h - what the record and saved-run fuzzers ask of every writer of a process's view: each runs whatever the record held, and the JSON ones write one valid JSON document. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_FUZZ_WRITERS_H
#define OMPCOLLECT_FUZZ_WRITERS_H 1

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "writer.h"

/*
 * A JSON writer whatever the record holds: it succeeds (jansson took every
 * string and number it was given: nothing was NULL; memory the fuzzer does
 * not take away) and what it wrote is one valid JSON document.  `who`
 * names the fuzzer in the message before the abort.
 */
static void fuzz_check_json(const char *who, const struct ompc_writer *writer, const struct ompc_view *view)
{
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (out == NULL)
        abort();
    struct ompc_sink json = {.kind = OMPC_SINK_STREAM, .out = out};
    int status = ompc_writer_write(writer, view, &json);
    if (fclose(out) != 0 || status != 0) {
        fprintf(stderr, "%s: the JSON writer %s failed (%d)\n", who, writer->name, status);
        abort();
    }
    json_error_t error;
    json_t *value = json_loadb(text, length, 0, &error);
    if (value == NULL) {
        fprintf(stderr, "%s: %s wrote JSON that does not parse: %s at byte %d\n", who, writer->name, error.text,
                error.position);
        abort();
    }
    json_decref(value);
    free(text);
}

/* Every writer of a process's view that writes a stream (the directory ones write the same through files) into `sink`; the JSON ones into memory, read back. */
static void fuzz_write_process(const char *who, struct ompc_report *report, FILE *sink)
{
    struct ompc_view view = {.kind = OMPC_VIEW_PROCESS, .process = report};
    struct ompc_sink out = {.kind = OMPC_SINK_STREAM, .out = sink};
    for (const struct ompc_writer *writer = ompc_report_writers; writer->name != NULL; writer++) {
        if (writer->view != OMPC_VIEW_PROCESS || writer->sink != OMPC_SINK_STREAM)
            continue;
        if (strstr(writer->name, "json") != NULL)
            fuzz_check_json(who, writer, &view);
        else
            ompc_writer_write(writer, &view, &out);
    }
}

#endif /* OMPCOLLECT_FUZZ_WRITERS_H */
