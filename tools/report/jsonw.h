/* jsonw.h - the one JSON string writer of the launcher: every report, trace and merge writes its strings through it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_JSONW_H
#define OMPCOLLECT_JSONW_H 1

#include <stddef.h>
#include <stdio.h>

/*
 * Writes `length` bytes of `text` (NULL when `length` is 0) as a JSON string
 * literal: '"' and '\' get a backslash, control characters (NUL included)
 * become \u00xx with lowercase hex, well-formed UTF-8 is copied as it is and
 * each ill-formed sequence becomes U+FFFD (see utf8.h), so the output is
 * always valid JSON in UTF-8.
 */
void ompc_json_text(FILE *out, const char *text, size_t length);

/* A NUL-terminated string as a JSON string literal; NULL is the empty string. */
void ompc_json_string(FILE *out, const char *text);

/* A NUL-terminated string as a JSON string literal; NULL is JSON's null. */
void ompc_json_string_or_null(FILE *out, const char *text);

#endif /* OMPCOLLECT_JSONW_H */
