/* output.h - where ompcollect's reports go: name patterns (%p %r %h %%), the MPI or batch rank, and files placed whole without clobbering another process's. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_OUTPUT_H
#define OMPCOLLECT_OUTPUT_H 1

#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* The rank of this process in an MPI or batch job, from the launchers' environment variables. */
struct ompc_rank {
    int rank;          /* -1: none detected */
    int size;          /* -1: not known */
    const char *from;  /* the variable it came from */
};

/* Looks for OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK and SLURM_PROCID, in that order. */
void ompc_detect_rank(struct ompc_rank *rank);

/* NULL when `pattern` uses only %p %r %h %%; else a message naming the bad sequence, in `message`. */
const char *ompc_check_pattern(const char *pattern, char *message, size_t size);

/* Whether `pattern` contains the conversion `letter` (p, r or h). */
int ompc_pattern_has(const char *pattern, char letter);

/* `pattern` with %p, %r, %h and %% replaced (a missing rank is "norank"); malloc'ed. */
char *ompc_expand_pattern(const char *pattern, long pid, int rank, const char *host);

/* `name` with ".TAG" put before the extension of its last component ("r.txt" -> "r.TAG.txt"); malloc'ed. */
char *ompc_insert_tag(const char *name, const char *tag);

/* Opens a new, private temporary file next to `final`; its name goes to *temp (malloc'ed). */
FILE *ompc_open_temp(const char *final, char **temp);

/*
 * Puts the finished temporary file `temp` at `final`.  A file already
 * there is replaced (atomically) when it is older than `run_start`; one
 * written since -- by another process of this run -- is never touched,
 * and the report goes to `fallback` instead (which must not exist).
 * Returns the name the file now has (`final` or `fallback`, not copied),
 * or NULL with errno set.
 */
const char *ompc_place_file(const char *temp, const char *final, const char *fallback,
                            const struct timespec *run_start);

/* Whether `path` is a directory with nothing in it. */
int ompc_directory_empty(const char *path);

/* Removes a directory the launcher made (a half-written trace), with everything in it. */
void ompc_remove_tree(const char *path);

#endif /* OMPCOLLECT_OUTPUT_H */
