/* terminal.h - text outputs that cannot act on the terminal they reach: what a record, a binary or a JSON report names is shown, never obeyed. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_TERMINAL_H
#define OMPCOLLECT_TERMINAL_H 1

#include <stdio.h>

/*
 * Copies `size` bytes of text to `out` with every character that would
 * act on a terminal written as its code (\x1b, \u009b): C0 controls but
 * newline and tab, DEL, C1 controls, and the bidi embeddings and isolates.
 * Bytes of no UTF-8 character (a Latin-1 file name) stay, but those an
 * 8-bit terminal takes for C1 controls (0x80..0x9f) are written as \x9b.
 */
void ompc_write_terminal_safe(FILE *out, const char *text, size_t size);

/*
 * Runs `write` on a stream in memory, then copies what it wrote to `out`
 * terminal-safe; returns `write`'s status, or -1 when memory or `out`
 * failed.  For the text writers of every command, whose names come from
 * where the observed program had its say.
 */
int ompc_terminal_safe_text(FILE *out, int (*write)(FILE *memory, void *arg), void *arg);

#endif /* OMPCOLLECT_TERMINAL_H */
