/* jsonw.h - the one place that turns the launcher's values into jansson's json_t and writes them: every JSON report, trace and merge summary goes through it. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_JSONW_H
#define OMPCOLLECT_JSONW_H 1

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The layouts.  A report and merge's summary are read by people: indented
 * by two, members in the order they were set (jansson >= 2.14 always keeps
 * that order; JSON_PRESERVE_ORDER keeps it on older ones).  A trace's
 * events are compact, one to a line.  Reals get 15 significant digits, as
 * many as a double always gives back as written (DBL_DIG), so 1.094 and
 * 958920.555 print as they are; the trace asks for more when a time needs
 * them (trace_json.c).
 */
#define OMPC_JSON_READABLE (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))
#define OMPC_JSON_COMPACT (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

/*
 * Every constructor returns a new reference, or NULL only when memory runs
 * out; ompc_json_set and ompc_json_append then fail, so a NULL never goes
 * unnoticed.  Strings: jansson takes only well-formed UTF-8, so each
 * ill-formed sequence becomes U+FFFD first (utf8.h); NULs and control
 * characters are kept and jansson escapes them.
 */

/* `length` bytes of `text` (NULL when `length` is 0) as a JSON string. */
json_t *ompc_json_text(const char *text, size_t length);

/* A NUL-terminated string; NULL is the empty string. */
json_t *ompc_json_string(const char *text);

/* Sets the JSON string `string` to `length` bytes of `text`, made valid as ompc_json_text does, for a value reused from one write to the next; 0, or -1 when memory runs out. */
int ompc_json_text_set(json_t *string, const char *text, size_t length);

/*
 * `length` bytes of `text` as the text of a JSON string, quotes included,
 * made valid as ompc_json_text does and escaped by jansson: for a writer
 * that writes a name it repeats (trace_json.c) as text once made.
 * malloc'd, its size in `*size`; NULL without memory.
 */
char *ompc_json_quoted(const char *text, size_t length, size_t *size);

/* A NUL-terminated string; NULL is JSON's null. */
json_t *ompc_json_string_or_null(const char *text);

/*
 * A count or a time.  jansson's integers are signed 64-bit, and merge
 * refuses anything larger, so a value above 2^63-1 (only a damaged record
 * holds one) is written as null rather than wrapped or cut.
 */
json_t *ompc_json_u64(uint64_t value);

/* An address or an id as the string "0x1a2b" (`width` > 0: zero-padded to that many digits). */
json_t *ompc_json_hex(uint64_t value, int width);

/*
 * A real rounded to `decimals` places, as printf's "%.*f" rounds it, so the
 * value is the one the text and CSV outputs show.  NaN and infinity, which
 * JSON cannot hold (json_real refuses them), are written as null: they mean
 * "no such figure", as a null imbalance always has.
 */
json_t *ompc_json_fixed(double value, int decimals);

/* {"OVHD": n, "WORK": n, ...}: the counters of the 11 states (OMPC_NSTATES, from 1). */
json_t *ompc_json_states(const uint64_t *ticks);

/* `value` when nothing `failed` in making it, else NULL, `value` released: the end of a builder. */
json_t *ompc_json_built(json_t *value, int failed);

/* Sets `key` of `object` to `value`, taking the reference; 0, or -1 (and `value` released) when either is NULL or memory runs out. */
int ompc_json_set(json_t *object, const char *key, json_t *value);

/* Appends `value` to `array`, taking the reference; 0, or -1 as ompc_json_set. */
int ompc_json_append(json_t *array, json_t *value);

/* Writes `value` to `out` with `flags` (OMPC_JSON_*); 0, or -1 when `value` is NULL, memory runs out or the write fails. */
int ompc_json_dump(const json_t *value, FILE *out, size_t flags);

#endif /* OMPCOLLECT_JSONW_H */
