/* compare_writers.h - merge's and diff's writers: their own table, behind the one writer interface (write/writer.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_COMPARE_WRITERS_H
#define OMPCOLLECT_COMPARE_WRITERS_H 1

#include "writer.h"

/* merge's (text, json) and diff's (text, csv, json) writers, ending with one whose name is NULL. */
extern const struct ompc_writer ompc_compare_writers[];

#endif /* OMPCOLLECT_COMPARE_WRITERS_H */
