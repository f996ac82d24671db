/* utf8.h - the one UTF-8 checker of the launcher's writers: well-formed characters pass, anything else becomes U+FFFD. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_UTF8_H
#define OMPCOLLECT_UTF8_H 1

#include <stddef.h>

/* U+FFFD REPLACEMENT CHARACTER in UTF-8. */
#define OMPC_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/*
 * The character at the start of `text` (`left` > 0 bytes): its length, 1 to
 * 4, when it is well-formed UTF-8 (no overlong forms, no surrogates, nothing
 * above U+10FFFF), else minus the number of bytes one U+FFFD replaces (the
 * "maximal subpart" of Unicode 3.9, as browsers and Python decode).
 */
int ompc_utf8_char(const char *text, size_t left);

/* Copies `length` bytes of `text` to `out` with every ill-formed sequence replaced by U+FFFD; returns the bytes written.  With `out` NULL it only counts them; at most 3 * `length`. */
size_t ompc_utf8_sanitize(const char *text, size_t length, char *out);

/* Whether all `length` bytes of `text` are well-formed UTF-8. */
int ompc_utf8_valid(const char *text, size_t length);

#endif /* OMPCOLLECT_UTF8_H */
