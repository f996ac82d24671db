/* otf2_merge.h - ompcollect merge --trace: one OTF2 archive of a job from the archives its ranks (or processes) wrote. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_OTF2_MERGE_H
#define OMPCOLLECT_OTF2_MERGE_H 1

#include <stddef.h>

/* The most locations, and the most bytes of definitions kept while merging, over all archives. */
#define OMPC_OTF2_MERGE_MAX_LOCATIONS ((size_t)1 << 20)
#define OMPC_OTF2_MERGE_MAX_DEFINITION_BYTES ((size_t)256 << 20)
/* The address space ompcollect merge --trace allows itself (see cap_memory). */
#define OMPC_OTF2_MERGE_MAX_ADDRESS_SPACE ((size_t)4 << 30)

/*
 * Merges the `count` OTF2 archives at `anchors` (their anchor files,
 * NAME.otf2) into one archive `name` made in `directory` (an empty one):
 * one clock, each string, region, attribute, metric and system tree node
 * defined once, every archive's location groups and locations kept as its
 * own, and every event copied to its location.  0, or -1 with a one-line
 * reason in `error` naming the archive it concerns.
 */
int ompc_otf2_merge(const char *const *anchors, int count, const char *directory, const char *name, char *error,
                    size_t error_size);

/*
 * ompcollect merge --trace=DIRECTORY ARCHIVE...: each ARCHIVE a directory
 * holding traces.otf2 (what --trace wrote) or an anchor file; the merged
 * archive is made in a private directory and put at DIRECTORY (which must
 * not exist, or be empty) only when whole.  The exit status: 0, or 1 after
 * a message on standard error.
 */
int ompc_otf2_merge_main(const char *directory, char *const *archives, int count);

#endif /* OMPCOLLECT_OTF2_MERGE_H */
