/* paths.h - a path's file name without its directories, as the reports' tables show modules and source files. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_PATHS_H
#define OMPCOLLECT_PATHS_H 1

#include <string.h>

/* The part of `path` after its last '/'; `none` when there is no path. */
static inline const char *ompc_base_name(const char *path, const char *none)
{
    if (path == NULL)
        return none;
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

#endif /* OMPCOLLECT_PATHS_H */
