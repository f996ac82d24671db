/* compare_cmd.c - the `ompcollect merge` and `ompcollect diff` commands: their options and help, and their outputs through compare's writer table (tools/compare/). */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "compare_cmd.h"
#include "compare_writers.h"
#include "diff.h"
#include "merge.h"
#ifdef HAVE_OTF2
#include "otf2_merge.h"
#endif
#include "writer.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a command's options chose. */
struct compare_options {
    int format;
    int format_given;
    const char *output; /* -o */
    const char *trace;  /* merge --trace: merge OTF2 archives into this directory */
    int done;           /* --help answered */
};

/* Writes `length` bytes of `text` to the file `output` (NULL: stdout); 0, or 1 after a message prefixed with COMMAND. */
static int write_output(const char *command, const char *output, const char *text, size_t length)
{
    FILE *out = output != NULL ? fopen(output, "w") : stdout;
    if (out == NULL) {
        ompc_reports_complain(command, "cannot write %s: %s", output, strerror(errno));
        return 1;
    }
    int failed = fwrite(text, 1, length, out) != length;
    if ((out != stdout ? fclose(out) : fflush(out)) != 0 || failed) {
        ompc_reports_complain(command, "writing the %s failed: %s",
                              strcmp(command, "merge") == 0 ? "summary" : strcmp(command, "diff") == 0 ? "comparison"
                                                                                                      : "analysis",
                              strerror(errno));
        return 1;
    }
    return 0;
}

int ompc_compare_write_view(const char *command, const char *name, const struct ompc_view *view, const char *output)
{
    char *text = NULL;
    size_t length = 0;
    int status = 0;
    FILE *memory = open_memstream(&text, &length);
    struct ompc_sink sink = {.kind = OMPC_SINK_STREAM, .out = memory};
    const struct ompc_writer *writer = ompc_writer_find(ompc_compare_writers, view->kind, name);
    if (memory == NULL || ompc_writer_write(writer, view, &sink) != 0) {
        ompc_reports_complain(command, "%s", memory == NULL ? "out of memory" : sink.error);
        status = 1;
    }
    if (memory != NULL && fclose(memory) != 0 && status == 0) {
        ompc_reports_complain(command, "out of memory");
        status = 1;
    }
    if (status == 0)
        status = write_output(command, output, text, length);
    free(text);
    return status;
}

static const char merge_help[] =
    "Usage: ompcollect merge [-f text|csv|json] [-o FILE] REPORT.json...\n"
    "       ompcollect merge --trace=DIR ARCHIVE...\n"
    "Sum JSON reports of several processes or MPI ranks (ompcollect -f json -o\n"
    "report.%%r.json) into one summary: each process's and the total state\n"
    "breakdown, the slowest process, the imbalance across them, and the parallel\n"
    "constructs and waits that took longest over all of them, matched by code\n"
    "location; for MPI ranks, POP's hybrid factors (multiplicative and additive)\n"
    "and the MPI calls that took longest by call and location.  Each report may be at most %zu MiB and take at most %zu MiB once\n"
    "parsed; each process's report is given once.\n"
    "With --trace, merge the OTF2 archives the processes wrote (ompcollect\n"
    "--trace=DIR.%%r) into one archive DIR/traces.otf2 with one location group\n"
    "per process.\n";

static const char diff_help[] =
    "Usage: ompcollect diff [-f text|csv|json] [-o FILE] A.json B.json\n"
    "Compare two JSON reports of one program (ompcollect -f json), A before a\n"
    "change and B after it: the wall time, and per thread state, parallel\n"
    "construct and wait location (matched by code location, as merge matches\n"
    "them) the change in time and in share of the run, largest first, with what\n"
    "most of the change in thread time is.  Each report may be at most %zu MiB\n"
    "and take at most %zu MiB once parsed.\n";

/* One option of COMMAND (merge takes --trace); 0, or -1 after a message. */
static int take_option(const char *command, int option, char **argv, struct compare_options *chosen)
{
    int merge = strcmp(command, "merge") == 0;
    switch (option) {
    case 'f':
        chosen->format = ompc_parse_format(optarg);
        chosen->format_given = 1;
        if (chosen->format == OMPC_FORMAT_TEXT || chosen->format == OMPC_FORMAT_JSON
            || chosen->format == OMPC_FORMAT_CSV)
            return 0;
        ompc_reports_complain(command, "--format must be text, csv or json, not '%s'", optarg);
        return -1;
    case 'o':
        chosen->output = optarg;
        return 0;
    case 't':
        if (merge && optarg[0] != '\0') {
            chosen->trace = optarg;
            return 0;
        }
        ompc_reports_complain(command, "--trace needs a directory to write the merged OTF2 archive into");
        return -1;
    case 'h':
        printf(merge ? merge_help : diff_help, OMPC_MERGE_MAX_INPUT >> 20, OMPC_MERGE_MAX_MEMORY >> 20);
        chosen->done = 1;
        return 0;
    case ':':
        ompc_reports_complain(command, "option '%s' needs a value", argv[optind - 1]);
        return -1;
    default:
        ompc_reports_complain(command, "unknown option '%s'", argv[optind - 1]);
        return -1;
    }
}

/* Reads COMMAND's options; 0, or -1 after a message. */
static int parse_options(const char *command, int argc, char **argv, struct compare_options *chosen)
{
    static const struct option merge_options[] = {
        {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {"trace", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    /* diff's are merge's but --trace, which it then calls unknown. */
    static const struct option diff_options[] = {
        {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    const struct option *options = strcmp(command, "merge") == 0 ? merge_options : diff_options;
    int option;
    opterr = 0;
    optind = 1;
    while (!chosen->done && (option = getopt_long(argc, argv, ":f:o:h", options, NULL)) != -1)
        if (take_option(command, option, argv, chosen) != 0)
            return -1;
    return 0;
}

/* merge --trace=DIR ARCHIVE...: exit 0, 1 on unusable input, 2 on usage errors. */
static int merge_traces(const struct compare_options *chosen, char **archives, int count)
{
    if (chosen->format_given || chosen->output != NULL) {
        ompc_reports_complain("merge", "--trace merges OTF2 archives, which have no --format or --output; merge the "
                                       "JSON reports in another call");
        return 2;
    }
    if (count < 1) {
        ompc_reports_complain("merge", "no OTF2 archives to merge (give the directories ompcollect --trace wrote)");
        return 2;
    }
#ifdef HAVE_OTF2
    return ompc_otf2_merge_main(chosen->trace, archives, count);
#else
    (void)archives;
    ompc_reports_complain("merge", "--trace %s: this ompcollect was built without OTF2 (configure found no libotf2; "
                                   "on Debian install libopen-trace-format2-dev and rebuild)", chosen->trace);
    return 1;
#endif
}

int ompc_merge_main(int argc, char **argv)
{
    struct compare_options chosen = {.format = OMPC_FORMAT_TEXT};
    if (parse_options("merge", argc, argv, &chosen) != 0)
        return 2;
    if (chosen.done)
        return 0;
    int count = argc - optind;
    if (chosen.trace != NULL)
        return merge_traces(&chosen, argv + optind, count);
    if (count < 1) {
        ompc_reports_complain("merge", "no reports to merge (give JSON reports written with --format=json)");
        return 2;
    }
    struct ompc_merge_input *inputs = calloc((size_t)count, sizeof *inputs);
    if (inputs == NULL) {
        ompc_reports_complain("merge", "out of memory");
        return 1;
    }
    int status = ompc_merge_load_all(argv + optind, count, inputs) == 0 ? 0 : 1;
    struct ompc_view view = {.kind = OMPC_VIEW_MERGE, .merge = {inputs, count}};
    if (status == 0)
        status = ompc_compare_write_view("merge", chosen.format == OMPC_FORMAT_JSON  ? "json"
                                                  : chosen.format == OMPC_FORMAT_CSV ? "csv"
                                                                                     : "text",
                                         &view, chosen.output);
    for (int i = 0; i < count; i++)
        ompc_merge_input_release(&inputs[i]);
    free(inputs);
    return status;
}

int ompc_diff_main(int argc, char **argv)
{
    struct compare_options chosen = {.format = OMPC_FORMAT_TEXT};
    if (parse_options("diff", argc, argv, &chosen) != 0)
        return 2;
    if (chosen.done)
        return 0;
    if (argc - optind != 2) {
        ompc_reports_complain("diff", "give two JSON reports written with --format=json: A (before) and B (after), "
                                      "not %d", argc - optind);
        return 2;
    }
    struct ompc_merge_input inputs[2];
    memset(inputs, 0, sizeof inputs);
    int status = 0;
    for (int i = 0; i < 2; i++)
        if (ompc_merge_load("diff", argv[optind + i], &inputs[i]) != 0)
            status = 1;
    struct ompc_view view = {.kind = OMPC_VIEW_DIFF, .diff = {&inputs[0], &inputs[1]}};
    if (status == 0)
        status = ompc_compare_write_view("diff", chosen.format == OMPC_FORMAT_JSON  ? "json"
                                    : chosen.format == OMPC_FORMAT_CSV ? "csv"
                                                                        : "text",
                            &view, chosen.output);
    ompc_merge_input_release(&inputs[0]);
    ompc_merge_input_release(&inputs[1]);
    return status;
}
