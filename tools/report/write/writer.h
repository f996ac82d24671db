/* writer.h - the one interface every ompcollect output goes through: a writer turns a view (one process's report, or the reports merge sums) into a sink (a stream, or a directory whose files the sink makes and places). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_WRITER_H
#define OMPCOLLECT_WRITER_H 1

#include <stddef.h>
#include <stdio.h>

struct ompc_report;
struct ompc_merge_input;
struct ompc_scaling;

/* What a view shows. */
enum ompc_view_kind {
    OMPC_VIEW_PROCESS, /* one recorded process: its model and what the launcher knows of it */
    OMPC_VIEW_MERGE,   /* the JSON reports of several processes, as `ompcollect merge` read them */
    OMPC_VIEW_DIFF,    /* two JSON reports of one program, before and after a change, as `ompcollect diff` read them */
    OMPC_VIEW_SCALING, /* JSON reports of one program at several thread counts, as `ompcollect scaling` analysed them */
};

/*
 * What a writer writes, tagged by its kind: a writer takes one kind, and
 * ompc_writer_write refuses a view of another, so merge's writers never
 * see a process model and the report's never see a merged set.
 */
struct ompc_view {
    enum ompc_view_kind kind;
    union {
        const struct ompc_report *process; /* PROCESS */
        struct {
            struct ompc_merge_input *inputs; /* sorted in place by the writer */
            int count;
        } merge;                             /* MERGE */
        struct {
            const struct ompc_merge_input *a, *b; /* before, after */
        } diff;                              /* DIFF */
        const struct ompc_scaling *scaling;  /* SCALING */
    };
};

/* Where a writer's output goes. */
enum ompc_sink_kind {
    OMPC_SINK_STREAM,    /* one stream: a file placed whole, standard error, a device */
    OMPC_SINK_DIRECTORY, /* a directory of files, which the sink makes and places */
};

/*
 * A sink, made by whoever asked for the output (the launcher, merge, a
 * test).  A writer writes, and the sink decides where the bytes land and
 * how the files are put in place, so no writer knows about names, ranks,
 * temporary files or standard error.
 */
struct ompc_sink {
    enum ompc_sink_kind kind;
    /* STREAM: the stream. */
    FILE *out;
    /*
     * DIRECTORY, for writers that write their files themselves: a stream
     * for the file `name` (a base name) of the output; the sink puts the
     * files in place once the writer returned 0.  NULL when memory ran out.
     */
    FILE *(*open)(struct ompc_sink *sink, const char *name);
    /*
     * DIRECTORY, for writers whose library makes the files (OTF2): a new,
     * empty directory to fill, put in place whole once the writer returned
     * 0.  NULL when it cannot be made (the sink said why).  A directory
     * sink gives both; a writer uses one of them.
     */
    const char *(*directory)(struct ompc_sink *sink);
    void *context; /* the sink's own */
    /* Why the writer failed, when it can say more than "a write error" (merge names two files). */
    char error[1024];
};

/* One output format: text, CSV, JSON, folded stacks, SVG, Chrome JSON, OTF2, the CSV directory, merge's two, diff's two. */
struct ompc_writer {
    const char *name;            /* unique among the writers of its view */
    enum ompc_view_kind view;    /* the views it takes */
    enum ompc_sink_kind sink;    /* the sink it writes to */
    const char *entry;           /* DIRECTORY: the file a reader opens, for messages (NULL: none) */
    /* Writes the view to the sink; 0, or -1 (a write error, memory, or the reason in sink->error). */
    int (*write)(const struct ompc_view *view, struct ompc_sink *sink);
};

/* A process's writers in this build, ending with one whose name is NULL (merge's and diff's: compare/compare_writers.h). */
extern const struct ompc_writer ompc_report_writers[];

/* The writer in `table` of `view` views called `name`, or NULL (OTF2 in a build without libotf2). */
const struct ompc_writer *ompc_writer_find(const struct ompc_writer *table, enum ompc_view_kind view,
                                           const char *name);

/* Writes `view` to `sink` with `writer`; -1, without writing, when either is not the kind the writer takes. */
int ompc_writer_write(const struct ompc_writer *writer, const struct ompc_view *view, struct ompc_sink *sink);

/*
 * Runs a stream writer on a stream in memory and copies its text to the
 * sink's stream terminal-safe (terminal.h), its error message too: for the
 * text writers of every command, whose names come from records, binaries
 * and JSON reports the observed programs had their say in.
 */
int ompc_writer_terminal_safe(const struct ompc_view *view, struct ompc_sink *sink,
                              int (*write)(const struct ompc_view *view, struct ompc_sink *sink));

/* The report's writers (report_writers.c), for the table. */
int ompc_report_text_writer(const struct ompc_view *view, struct ompc_sink *sink);
int ompc_report_csv_writer(const struct ompc_view *view, struct ompc_sink *sink);
int ompc_report_json_writer(const struct ompc_view *view, struct ompc_sink *sink);
int ompc_report_folded_writer(const struct ompc_view *view, struct ompc_sink *sink);

/* --task-graph's writers (taskgraph_write.c): Graphviz DOT, and JSON. */
int ompc_task_graph_dot_writer(const struct ompc_view *view, struct ompc_sink *sink);
int ompc_task_graph_json_writer(const struct ompc_view *view, struct ompc_sink *sink);

/* --gprofng's writer (gprofng_write.c): a GNU gprofng experiment directory. */
int ompc_gprofng_writer(const struct ompc_view *view, struct ompc_sink *sink);

/* The report's other outputs, each a writer of the table through writers.c: the Chrome trace (trace_json.c), the OTF2 archive (trace_otf2.c) and the SVG timeline (timeline.c). */

/* Writes the Chrome trace-event JSON of the recorded state spans to `out`; returns 0, or -1 on a write error. */
int ompc_write_trace_json(const struct ompc_report *report, FILE *out);

/* The name OTF2 archives get inside their --trace directory. */
#define OMPC_OTF2_NAME "traces"

/*
 * Writes the OTF2 archive `directory`/`name`.otf2 (with its directory
 * `name`/) of one process; returns 0, or -1 with a reason in `error`.
 */
int ompc_write_otf2(const struct ompc_report *report, const char *directory, const char *name,
                    char *error, size_t error_size);

/* Writes the SVG timeline to `out`; returns 0, or -1 on a write error. */
int ompc_write_timeline(const struct ompc_report *report, FILE *out);

#endif /* OMPCOLLECT_WRITER_H */
