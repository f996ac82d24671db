/* report_writers.c - the report's writers (text, CSV, JSON, folded stacks): each writes one process's view to its sink, the first three from the summary of its model. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "csv.h"
#include "stacks.h"
#include "summary.h"
#include "writer.h"

#include <stdio.h>
#include <stdlib.h>

/* Gathers the summary of the view's process; -1, with nothing left to release, when memory runs out. */
static int summarise(const struct ompc_view *view, struct summary *summary)
{
    if (ompc_summarise(view->process, summary) == 0)
        return 0;
    ompc_summary_release(summary);
    return -1;
}

/* A report written to the sink's stream from the summary. */
static int summary_to_stream(const struct ompc_view *view, struct ompc_sink *sink,
                             void (*write)(const struct summary *summary, FILE *out))
{
    struct summary summary;
    if (summarise(view, &summary) != 0)
        return -1;
    write(&summary, sink->out);
    ompc_summary_release(&summary);
    return ferror(sink->out) ? -1 : 0;
}

/* The text report to the sink's stream as it is. */
static int report_text(const struct ompc_view *view, struct ompc_sink *sink)
{
    return summary_to_stream(view, sink, ompc_report_text);
}

/* The text report, written whole in memory first so that it reaches `out` terminal-safe (terminal.h). */
int ompc_report_text_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_writer_terminal_safe(view, sink, report_text);
}

int ompc_report_json_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    struct summary summary;
    if (summarise(view, &summary) != 0)
        return -1;
    int status = ompc_report_json(&summary, sink->out);
    ompc_summary_release(&summary);
    return status != 0 || ferror(sink->out) ? -1 : 0;
}

/* The CSV tables: one writer for both sinks, so -f csv and --csv-dir cannot differ but in the section column. */
int ompc_report_csv_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    struct summary summary;
    if (summarise(view, &summary) != 0)
        return -1;
    struct ompc_csv_tables tables = {sink, NULL, NULL};
    int status = ompc_report_csv(&summary, &tables);
    ompc_summary_release(&summary);
    /* A directory sink checks each table's stream as it places it. */
    if (sink->kind == OMPC_SINK_STREAM && ferror(sink->out))
        status = -1;
    return status;
}

/* The folded stacks alone: --stacks=folded's report and --stacks-file's file (empty without stacks). */
int ompc_report_folded_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    const struct ompc_report *report = view->process;
    if (report->stacks != NULL && ompc_stacks_folded(report->stacks, sink->out) != 0)
        return -1;
    return ferror(sink->out) ? -1 : 0;
}
