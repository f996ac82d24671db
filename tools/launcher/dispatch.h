/* dispatch.h - every output of every reported process, each through its writer from the table (tools/report/write/writer.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_DISPATCH_H
#define OMPCOLLECT_DISPATCH_H 1

#include <stddef.h>

#include "reports.h"
#include "run.h"

/* Writes every output asked for of every reported process, and names the report files when there are several. */
void write_outputs(const struct run *run, const struct process_report *entries, size_t reports);

#endif /* OMPCOLLECT_DISPATCH_H */
