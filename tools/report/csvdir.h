/* csvdir.h - ompcollect --csv-dir: the report's CSV stream split into one file per table, each with its own header row, for spreadsheets and pandas. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_CSVDIR_H
#define OMPCOLLECT_CSVDIR_H 1

#include <stddef.h>
#include <stdio.h>

/*
 * Called before a table's header row: with `markers` (the stream is
 * OMPC_FORMAT_CSV_TABLES, for --csv-dir), a line "#table NAME", so that a
 * table with no rows can be named too.  The CSV stream of -f csv never has
 * them.
 */
void ompc_csv_table(FILE *out, const char *name, int markers);

/* One table of a split stream: its name, and its header and rows without the leading section column. */
struct ompc_csv_table {
    char *name;
    char *text;
    size_t length;
};

/*
 * Splits a CSV stream written with markers into its tables; a table whose
 * writer set no marker is named by its rows' first field ("table-N" when it
 * has none).  Returns the count (*tables malloc'd, free with
 * ompc_csv_tables_free), or -1 without memory.
 */
long ompc_csv_split(const char *stream, size_t size, struct ompc_csv_table **tables);

/* Frees what ompc_csv_split returned. */
void ompc_csv_tables_free(struct ompc_csv_table *tables, long count);

#endif /* OMPCOLLECT_CSVDIR_H */
