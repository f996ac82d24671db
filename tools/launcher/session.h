/* session.h - a run kept in a file (--save) and reported again later (ompcollect report): the record's pages and what only the launcher saw. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SESSION_H
#define OMPCOLLECT_SESSION_H 1

#include <stddef.h>

#include "run.h"

/* The file's first bytes; the version changes with the record's. */
#define OMPC_SESSION_MAGIC "OMPCSES1"
/*
 * What a saved file may claim, so a hostile one cannot make the reader
 * reserve more: the facts (a few hundred bytes plus ~30 per process the
 * launcher collected); the record's size, a sparse reservation of at most
 * OMPC_MAX_THREADS threads' --trace-buffer of 1 GiB beside the tables
 * (about 4.1 TiB, which costs nothing until written); and the record's
 * data, what the run wrote.  A run past any is not saved, and --save
 * says so.
 */
#define OMPC_SESSION_FACTS_MAX ((size_t)16 << 20)
#define OMPC_SESSION_RECORD_MAX ((uint64_t)8 << 40)
#define OMPC_SESSION_DATA_MAX ((uint64_t)128 << 30)

/* A session's own memory: the paths the launcher resolved, and the facts a saved run brought. */
struct ompc_session *ompc_session_new(void);
void ompc_session_free(struct ompc_session *session);

/*
 * realpath(3) of `path` as the run saw it: resolved now and remembered in
 * a live run, looked up in the saved facts when reporting a saved one
 * (NULL when unknown).  The string belongs to the session.
 */
const char *ompc_session_realpath(struct ompc_session *session, const char *path);

/* Writes the run's record and facts to `path`; 0, or -1 with a reason in `error`. */
int ompc_session_save(const struct run *run, const char *path, char *error, size_t error_size);

/*
 * Reads a saved run from `path` into `run`: the facts, and the record
 * rebuilt in an anonymous memory file (run->record_fd, run->header).
 * 0, or -1 with a reason in `error`; nothing in the file is trusted.
 */
int ompc_session_open(const char *path, struct run *run, char *error, size_t error_size);

#endif /* OMPCOLLECT_SESSION_H */
