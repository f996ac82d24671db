/* compare_writers.c - the table of merge's, diff's and scaling's writers, and the adapters that give merge's summary, diff's comparison and scaling's analysis the writer interface. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "compare_writers.h"
#include "diff.h"
#include "merge.h"
#include "scaling.h"

/* merge's summary in `format`. */
static int merge_writer(const struct ompc_view *view, struct ompc_sink *sink, int format)
{
    return ompc_merge_write(sink->out, format, view->merge.inputs, view->merge.count, sink->error,
                            sizeof sink->error);
}

static int merge_text(const struct ompc_view *view, struct ompc_sink *sink)
{
    return merge_writer(view, sink, OMPC_FORMAT_TEXT);
}

static int merge_text_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_writer_terminal_safe(view, sink, merge_text);
}

static int merge_csv_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return merge_writer(view, sink, OMPC_FORMAT_CSV);
}

static int merge_json_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return merge_writer(view, sink, OMPC_FORMAT_JSON);
}

/* diff's comparison in `format`. */
static int diff_writer(const struct ompc_view *view, struct ompc_sink *sink, int format)
{
    return ompc_diff_write(sink->out, format, view->diff.a, view->diff.b, sink->error, sizeof sink->error);
}

static int diff_text(const struct ompc_view *view, struct ompc_sink *sink)
{
    return diff_writer(view, sink, OMPC_FORMAT_TEXT);
}

static int diff_text_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_writer_terminal_safe(view, sink, diff_text);
}

static int diff_csv_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return diff_writer(view, sink, OMPC_FORMAT_CSV);
}

static int diff_json_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return diff_writer(view, sink, OMPC_FORMAT_JSON);
}

static int scaling_text(const struct ompc_view *view, struct ompc_sink *sink)
{
    ompc_scaling_write_text(sink->out, view->scaling);
    return ferror(sink->out) ? -1 : 0;
}

static int scaling_text_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_writer_terminal_safe(view, sink, scaling_text);
}

static int scaling_csv_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_scaling_write_csv(sink, view->scaling);
}

static int scaling_json_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_scaling_write_json(sink->out, view->scaling);
}

static int scaling_svg_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    return ompc_scaling_write_svg(sink->out, view->scaling);
}

/* `ompcollect merge` and `ompcollect diff` find their writers here by view and name. */
const struct ompc_writer ompc_compare_writers[] = {
    {"text", OMPC_VIEW_MERGE, OMPC_SINK_STREAM, NULL, merge_text_writer},
    {"csv", OMPC_VIEW_MERGE, OMPC_SINK_STREAM, NULL, merge_csv_writer},
    {"json", OMPC_VIEW_MERGE, OMPC_SINK_STREAM, NULL, merge_json_writer},
    {"text", OMPC_VIEW_DIFF, OMPC_SINK_STREAM, NULL, diff_text_writer},
    {"csv", OMPC_VIEW_DIFF, OMPC_SINK_STREAM, NULL, diff_csv_writer},
    {"json", OMPC_VIEW_DIFF, OMPC_SINK_STREAM, NULL, diff_json_writer},
    {"text", OMPC_VIEW_SCALING, OMPC_SINK_STREAM, NULL, scaling_text_writer},
    {"csv", OMPC_VIEW_SCALING, OMPC_SINK_STREAM, NULL, scaling_csv_writer},
    {"json", OMPC_VIEW_SCALING, OMPC_SINK_STREAM, NULL, scaling_json_writer},
    {"svg", OMPC_VIEW_SCALING, OMPC_SINK_STREAM, NULL, scaling_svg_writer},
    {NULL, OMPC_VIEW_MERGE, OMPC_SINK_STREAM, NULL, NULL},
};
