/* csv.c - the fields ompcollect's CSV tables share (report, code locations, tasks): quoted text and the per-state header columns. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "csv.h"
#include "names.h"

#include <string.h>

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
