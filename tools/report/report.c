/* report.c - writes one process's report in the format asked for, from the summary of its model. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "stacks.h"
#include "summary.h"

/* The folded stacks alone: --stacks=folded's report and --folded's file. */
int ompc_write_folded(const struct ompc_report *report, FILE *out)
{
    if (report->stacks != NULL && ompc_stacks_folded(report->stacks, out) != 0)
        return -1;
    return ferror(out) ? -1 : 0;
}

/* Writes the report in the configured format. */
int ompc_write_report(const struct ompc_report *report, FILE *out)
{
    if (report->format == OMPC_FORMAT_FOLDED)
        return ompc_write_folded(report, out);
    struct summary summary;
    if (ompc_summarise(report, &summary) != 0) {
        ompc_summary_release(&summary);
        return -1;
    }
    int status = 0;
    switch (report->format) {
    case OMPC_FORMAT_CSV:
    case OMPC_FORMAT_CSV_TABLES:
        ompc_report_csv(&summary, out);
        break;
    case OMPC_FORMAT_JSON:
        status = ompc_report_json(&summary, out);
        break;
    default:
        ompc_report_text(&summary, out);
        break;
    }
    ompc_summary_release(&summary);
    return status != 0 || ferror(out) ? -1 : 0;
}

