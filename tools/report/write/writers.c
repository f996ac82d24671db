/* writers.c - the table of a process's writers (each output is one entry), the adapters that give the timeline and the traces the writer interface, and the lookup and the kind check every table shares. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "names.h"
#include "report.h"
#include "terminal.h"
#include "writer.h"

#include <string.h>

static int svg_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_write_timeline(view->process, sink->out);
}

static int trace_json_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_write_trace_json(view->process, sink->out);
}

#ifdef HAVE_OTF2
/* libotf2 makes the archive's files itself: it gets a directory of the sink's to make them in. */
static int otf2_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    const char *directory = sink->directory(sink);
    if (directory == NULL)
        return -1;
    return ompc_write_otf2(view->process, directory, OMPC_OTF2_NAME, sink->error, sizeof sink->error);
}
#endif

/* The launcher and `ompcollect report` find a process's writers here by name (compare/ has merge's and diff's). */
const struct ompc_writer ompc_report_writers[] = {
    {"text", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, ompc_report_text_writer},
    {"csv", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, ompc_report_csv_writer},
    {"json", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, ompc_report_json_writer},
    {"folded", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, ompc_report_folded_writer},
    {"svg", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, svg_writer},
    {"trace-json", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, trace_json_writer},
    {"csv-dir", OMPC_VIEW_PROCESS, OMPC_SINK_DIRECTORY, NULL, ompc_report_csv_writer},
    {"task-graph-dot", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, ompc_task_graph_dot_writer},
    {"task-graph-json", OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, ompc_task_graph_json_writer},
    {"gprofng", OMPC_VIEW_PROCESS, OMPC_SINK_DIRECTORY, "log.xml", ompc_gprofng_writer},
#ifdef HAVE_OTF2
    {"otf2", OMPC_VIEW_PROCESS, OMPC_SINK_DIRECTORY, OMPC_OTF2_NAME ".otf2", otf2_writer},
#endif
    {NULL, OMPC_VIEW_PROCESS, OMPC_SINK_STREAM, NULL, NULL},
};

const struct ompc_writer *ompc_writer_find(const struct ompc_writer *table, enum ompc_view_kind view, const char *name)
{
    for (const struct ompc_writer *writer = table; writer->name != NULL; writer++)
        if (writer->view == view && strcmp(writer->name, name) == 0)
            return writer;
    return NULL;
}

int ompc_writer_write(const struct ompc_writer *writer, const struct ompc_view *view, struct ompc_sink *sink)
{
    sink->error[0] = '\0';
    int usable = sink->kind == OMPC_SINK_STREAM ? sink->out != NULL : sink->open != NULL && sink->directory != NULL;
    if (view->kind != writer->view || sink->kind != writer->sink || !usable) {
        snprintf(sink->error, sizeof sink->error, "the %s writer takes another kind of view or sink", writer->name);
        return -1;
    }
    return writer->write(view, sink);
}

/* ompc_writer_terminal_safe's job, for ompc_terminal_safe_text. */
struct text_job {
    const struct ompc_view *view;
    struct ompc_sink *sink;
    int (*write)(const struct ompc_view *view, struct ompc_sink *sink);
};

static int text_to_memory(FILE *memory, void *arg)
{
    struct text_job *job = arg;
    struct ompc_sink inner = *job->sink;
    inner.out = memory;
    int status = job->write(job->view, &inner);
    /* The writer's message, if any, is the caller's to print. */
    memcpy(job->sink->error, inner.error, sizeof inner.error);
    return status;
}

int ompc_writer_terminal_safe(const struct ompc_view *view, struct ompc_sink *sink,
                              int (*write)(const struct ompc_view *view, struct ompc_sink *sink))
{
    struct text_job job = {view, sink, write};
    return ompc_terminal_safe_text(sink->out, text_to_memory, &job);
}
