/* csv.h - what the writers of ompcollect's CSV tables share: quoted text fields and the per-state header columns. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_CSV_H
#define OMPCOLLECT_CSV_H 1

#include <stdio.h>

/* Writes a CSV field, quoted when it holds a comma, quote or line break; NULL is the empty field. */
void ompc_csv_string(FILE *out, const char *text);

/* Writes a header row's state columns, one per state 1..11 named as ompc_state_name names it, each after a comma. */
void ompc_csv_state_names(FILE *out);

#endif /* OMPCOLLECT_CSV_H */
