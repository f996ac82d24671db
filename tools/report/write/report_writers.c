/* report_writers.c - the report's writers (text, CSV, JSON, folded stacks): each writes one process's view to its sink, the first three from the summary of its model. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "sections.h"
#include "csv.h"
#include "stacks.h"
#include "summary.h"
#include "utf8.h"
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

/*
 * Whether the character of `length` bytes at `text` (well-formed UTF-8)
 * would act on a terminal rather than show: C0 controls but newline and
 * tab, DEL, C1 controls (U+0080..U+009F, CSI among them), and the bidi
 * embeddings and isolates that reorder what follows (U+202A..U+202E,
 * U+2066..U+2069).
 */
static int acts_on_terminal(const unsigned char *text, int length)
{
    if (length == 1)
        return (text[0] < 0x20 && text[0] != '\n' && text[0] != '\t') || text[0] == 0x7f;
    if (length == 2)
        return text[0] == 0xc2 && text[1] < 0xa0;
    int embedding = text[1] == 0x80 && text[2] >= 0xaa && text[2] <= 0xae;
    int isolate = text[1] == 0x81 && text[2] >= 0xa6 && text[2] <= 0xa9;
    return length == 3 && text[0] == 0xe2 && (embedding || isolate);
}

/*
 * Copies a text report to `out` with what the record or a binary named
 * (programs, paths, symbols) unable to act on a terminal: a character
 * that would is written as its code (\x1b, \u009b).  Bytes of no UTF-8
 * character (a Latin-1 file name) stay the name's own, but those an 8-bit
 * terminal takes for C1 controls (0x80..0x9f) are written as \x9b.
 */
static void write_terminal_safe(FILE *out, const char *text, size_t size)
{
    for (size_t at = 0; at < size;) {
        int length = ompc_utf8_char(text + at, size - at);
        for (int k = 0; k < -length; k++) { /* bytes of no UTF-8 character: kept, but 8-bit C1 controls */
            unsigned char byte = (unsigned char)text[at++];
            if (byte >= 0x80 && byte < 0xa0)
                fprintf(out, "\\x%02x", byte);
            else
                fputc(byte, out);
        }
        if (length < 0)
            continue;
        const unsigned char *bytes = (const unsigned char *)text + at;
        if (!acts_on_terminal(bytes, length))
            fwrite(bytes, 1, (size_t)length, out);
        else if (length == 1)
            fprintf(out, "\\x%02x", bytes[0]);
        else if (length == 2)
            fprintf(out, "\\u%04x", (unsigned)(bytes[0] & 0x1f) << 6 | (bytes[1] & 0x3f));
        else
            fprintf(out, "\\u%04x",
                    (unsigned)(bytes[0] & 0x0f) << 12 | (unsigned)(bytes[1] & 0x3f) << 6 | (bytes[2] & 0x3f));
        at += (size_t)length;
    }
}

/* The text report, written whole in memory first so that it reaches `out` terminal-safe (write_terminal_safe). */
int ompc_report_text_writer(const struct ompc_view *view, struct ompc_sink *sink)
{
    char *text = NULL;
    size_t size = 0;
    FILE *memory = open_memstream(&text, &size);
    if (memory == NULL)
        return -1;
    struct ompc_sink inner = *sink;
    inner.out = memory;
    int status = summary_to_stream(view, &inner, ompc_report_text);
    status = fclose(memory) != 0 || status != 0 ? -1 : 0;
    if (status == 0)
        write_terminal_safe(sink->out, text, size);
    free(text);
    return status != 0 || ferror(sink->out) ? -1 : 0;
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
