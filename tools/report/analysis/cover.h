/* cover.h - how much of each thread's life its samples cover, and what the rest of it went to, for every format of the report. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_COVER_H
#define OMPCOLLECT_COVER_H 1

#include <stdint.h>

#include "model.h"
#include "report.h"

/* Why part of a thread's life has no samples, in the order the time is put down to them. */
enum ompc_gap {
    OMPC_GAP_STARTUP,     /* the agent's start-up: START (which initializes the OpenMP runtime) and REGISTER */
    OMPC_GAP_UNARMED,     /* otherwise before its sampling timer was armed (or it never was) */
    OMPC_GAP_STOPPED,     /* after sampling stopped (handler replaced, default action) */
    OMPC_GAP_BLOCKED,     /* the thread had the sampling signal blocked */
    OMPC_GAP_TAIL,        /* after its last sample: expirations still pending when it ended */
    OMPC_GAP_UNEXPLAINED, /* none of the above: samples lost where the record cannot tell why */
    OMPC_NGAPS
};

/* One thread's coverage. */
struct ompc_cover {
    int known;            /* 0: nothing to judge (sampling off, no life) */
    uint64_t lifetime_ns; /* thread_lifetime_ns: from its birth (the origin for the initial thread) */
    uint64_t sampled_ns;  /* samples x interval */
    uint64_t gap_ns[OMPC_NGAPS];
    double share;         /* sampled / lifetime */
};

/* The coverage of `thread` of `report`'s process. */
void ompc_thread_cover(const struct ompc_report *report, const struct ompc_model_thread *thread,
                       struct ompc_cover *cover);

/* Whether the cover's gaps are worth a word: more than two intervals and 2% of the thread's life. */
int ompc_cover_has_gap(const struct ompc_report *report, const struct ompc_cover *cover);

/* A gap's short name ("unarmed", ...) for CSV and JSON, and its words for the text report. */
const char *ompc_gap_name(int gap);
const char *ompc_gap_words(int gap);

#endif /* OMPCOLLECT_COVER_H */
