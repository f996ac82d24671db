/* regular.h - opening a file the record names (a module's path): only a regular file, never a FIFO, device or socket that could block or act on open. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_REGULAR_H
#define OMPCOLLECT_REGULAR_H 1

/*
 * A read-only descriptor of `path` when it is a regular file of at least
 * `least` bytes, else -1 (errno says why; EINVAL for a file of another
 * kind or too small).  The record's paths are the observed program's to
 * write: a FIFO would block open() and read(), a device act on open.
 */
int ompc_open_regular(const char *path, long least);

#endif /* OMPCOLLECT_REGULAR_H */
