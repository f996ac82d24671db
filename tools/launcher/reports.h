/* reports.h - the processes of a run that get reports, each a model with what the launcher adds to it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_REPORTS_H
#define OMPCOLLECT_REPORTS_H 1

#include "model.h"
#include "record.h"
#include "report.h"
#include "run.h"

/* One recorded process, read from the record, with what the launcher adds. */
struct process_report {
    struct ompc_model_process *process;
    struct ompc_report report;
    char fate[256];
    char relation[OMPC_TEXT_SIZE + 64];
    char *runtime_file;
    char *runtime_version;
    int initial;
    struct ompc_stacks *stacks;  /* --stacks */
};

/*
 * Reads every slot through the loader and writes every output asked for
 * of each process that ran OpenMP.  Returns the number of reports, or -1
 * when the launched process was refused.
 */
int write_reports(struct run *run);

#endif /* OMPCOLLECT_REPORTS_H */
