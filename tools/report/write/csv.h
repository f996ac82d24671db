/* csv.h - what the writers of ompcollect's CSV tables share: the tables' way to their sink, quoted text fields and the per-state header columns. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_CSV_H
#define OMPCOLLECT_CSV_H 1

#include <stdio.h>

#include "writer.h"

/*
 * The CSV report's tables on their way to a sink.  Into a stream (-f csv),
 * they follow each other, every row led by its table's name and every
 * header row by "section"; into a directory (--csv-dir), each is a file
 * TABLE.csv without that column.  One writer serves both: it begins each
 * table, writes its header row, and begins each row with ompc_csv_lead.
 */
struct ompc_csv_tables {
    struct ompc_sink *sink;
    FILE *out;        /* the table begun last */
    const char *lead; /* in a stream: that table's name; in a directory: NULL */
};

/* Begins table `name` (a C identifier): its stream, "section," written when the tables share one; NULL when memory ran out. */
FILE *ompc_csv_begin(struct ompc_csv_tables *tables, const char *name);

/* Begins a row of the table begun last: its name and a comma when the tables share a stream. */
void ompc_csv_lead(const struct ompc_csv_tables *tables);

/* Writes a CSV field, quoted when it holds a comma, quote or line break; NULL is the empty field. */
void ompc_csv_string(FILE *out, const char *text);

/* Writes a header row's state columns, one per state 1..11 named as ompc_state_name names it, each after a comma. */
void ompc_csv_state_names(FILE *out);

#endif /* OMPCOLLECT_CSV_H */
