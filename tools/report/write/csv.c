/* csv.c - what ompcollect's CSV tables share (report, code locations, tasks): their way to a stream or a directory, quoted text and the per-state header columns. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "names.h"

#include <string.h>

FILE *ompc_csv_begin(struct ompc_csv_tables *tables, const char *name)
{
    struct ompc_sink *sink = tables->sink;
    if (sink->kind == OMPC_SINK_STREAM) {
        tables->out = sink->out;
        tables->lead = name;
        fputs("section,", tables->out);
        return tables->out;
    }
    char file[64];
    snprintf(file, sizeof file, "%s.csv", name);
    tables->lead = NULL;
    tables->out = sink->open(sink, file);
    return tables->out;
}

void ompc_csv_lead(const struct ompc_csv_tables *tables)
{
    if (tables->lead != NULL)
        fprintf(tables->out, "%s,", tables->lead);
}

void ompc_csv_string(FILE *out, const char *text)
{
    if (text == NULL)
        text = "";
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

void ompc_csv_state_names(FILE *out)
{
    for (int state = 1; state < OMPC_NSTATES; state++)
        fprintf(out, ",%s", ompc_state_name(state));
}
