/* merge.h - ompcollect merge: the summary of several reports, and the code locations, waits and limits as merge and diff name them. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_MERGE_H
#define OMPCOLLECT_MERGE_H 1

#include "merge_input.h"

#include <jansson.h>
#include <stdio.h>

/*
 * The summary of `count` inputs (sorted in place) as text, CSV or JSON
 * (OMPC_FORMAT_TEXT, OMPC_FORMAT_CSV or OMPC_FORMAT_JSON); 0, or -1 with a one-line reason in
 * `error` when two inputs are the same process or a sum would overflow.
 */
int ompc_merge_write(FILE *out, int format, struct ompc_merge_input *inputs, int count, char *error,
                     size_t error_size);

/*
 * What `ompcollect diff` (diff.c) shares with merge, so that both read,
 * match and name a report's rows alike.
 */

/* Orders two texts (a null first) by their bytes. */
int ompc_merge_compare_texts(const struct ompc_merge_text *x, const struct ompc_merge_text *y);

/* Whether a location names a source line (file and line). */
int ompc_merge_has_line(const struct ompc_merge_location *where);

/* Orders code locations by what is the same wherever the construct ran: file and line; else module and offset; else the address. */
int ompc_merge_compare_places(const struct ompc_merge_location *x, const struct ompc_merge_location *y);

/* Orders waits by state, code location and object (a heap object matches any other heap object). */
int ompc_merge_compare_waits(const struct ompc_merge_wait *x, const struct ompc_merge_wait *y);

/* A code location as the reports' tables name it ("solve solver.c:17"), on one line, in `buffer`. */
const char *ompc_merge_place_name(const struct ompc_merge_location *where, char *buffer, size_t size);

/* Orders two constructs' kinds ("parallel" when a report gives none); waits' locations have none and are all alike. */
int ompc_merge_compare_kinds(const struct ompc_merge_location *x, const struct ompc_merge_location *y);

/* A report's text on one line: control characters become spaces. */
void ompc_merge_one_line(FILE *out, const struct ompc_merge_text *text);

/* "function,file,line,module,module_offset" of a location as CSV fields (empty where unknown). */
void ompc_merge_csv_place(FILE *out, const struct ompc_merge_location *where);

/* A code location as JSON without its address (which differs by process); NULL when memory runs out. */
json_t *ompc_merge_json_place(const struct ompc_merge_location *where);

/* A report's "limits" as it gave them, its record damage among them; NULL when memory runs out. */
json_t *ompc_merge_json_limits(const struct ompc_merge_input *input);

/* One report's limits[] and record damage as text, a line each, "  NAME: limit reached: ..." (merge and diff). */
void ompc_merge_text_limits(FILE *out, const char *name, const struct ompc_merge_input *input);

#endif /* OMPCOLLECT_MERGE_H */
