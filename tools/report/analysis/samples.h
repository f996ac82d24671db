/* samples.h - a process's samples one by one, as a sample-by-sample format (gprofng's experiments, --gprofng) needs them: each with its thread, state, call stack and a time inside one of the thread's sampled spans of that state, and when each thread entered and left the parallel constructs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SAMPLES_H
#define OMPCOLLECT_SAMPLES_H 1

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* One distinct stack of one thread in one state (a stack-table entry, or the samples the table did not keep). */
struct ompc_sample_frame {
    int thread;                /* slot */
    int state;
    const uint64_t *pcs;       /* the sample's own frames, leaf first (the model's); NULL: not recorded */
    int frames;
    size_t user_at;            /* the user-model frames, leaf first, at user_words[user_at]... */
    int user_frames;           /* ...runtime frames left out, continued into the forking threads' stacks */
    int user_cut;              /* the user-model frames were cut: too deep, or the forking thread's stack not found */
};

/* One sample: a thread's tick at a time (ns since the record's origin) in one frame's stack and state. */
struct ompc_sample {
    uint64_t ns;
    uint32_t frame;
    int thread;
};

/* A thread entering a top-level parallel construct (construct: 1 + its row in the model's constructs) or leaving it (0). */
struct ompc_construct_entry {
    uint64_t ns;
    int thread;
    uint32_t construct;
};

/*
 * The samples, by thread then state.  The counts are the model's exactly:
 * every thread's ticks per state, and per stack-table entry its count.  A
 * sample's time is placed evenly over the thread's recorded spans of its
 * state (the sampled state changes, so a time holds the state it had);
 * which of a state's stacks a time gets is not recorded, and the entries
 * take the times of their state in table order.
 */
struct ompc_samples {
    struct ompc_sample_frame *frames;
    size_t frame_count;
    struct ompc_sample *samples;
    size_t sample_count;
    struct ompc_construct_entry *entries; /* per thread, in time order */
    size_t entry_count;
    uint64_t *user_words;
    size_t user_count;
    uint64_t untimed;                     /* samples of a state the thread's timeline has no span of */
};

/* Builds a process's samples; NULL when memory runs out. */
struct ompc_samples *ompc_samples_build(const struct ompc_report *report);

void ompc_samples_free(struct ompc_samples *samples);

#endif /* OMPCOLLECT_SAMPLES_H */
