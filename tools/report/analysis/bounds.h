/* bounds.h - the bounds of the record a run reached, each with the exact count of what it cost, said the same way in every output and on stderr. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_BOUNDS_H
#define OMPCOLLECT_BOUNDS_H 1

#include <stdint.h>

#include "model.h"


/* One bound a run reached. */
struct ompc_limit {
    const char *what;   /* a stable key: "threads", "constructs", "event_log", ... */
    uint64_t count;     /* what it cost, in the unit `text` names */
    uint64_t bound;     /* the bound (0 where it is a buffer size the user chose) */
    char text[320];     /* one sentence for a person: what is missing and why */
};

/* One for each kind ompc_limits_reached lists (bounds.c): 18; all 18 at once fit. */
#define OMPC_LIMIT_KINDS 18

/*
 * Fills `out` with every bound the process's run reached, in a fixed order;
 * returns how many.  `event_log_bytes` is the --trace buffer size (0: no
 * trace was asked for).
 */
int ompc_limits_reached(const struct ompc_model_process *process, uint64_t event_log_bytes,
                        struct ompc_limit out[OMPC_LIMIT_KINDS]);

#endif /* OMPCOLLECT_BOUNDS_H */
