/* samples.h - a process's samples one by one, as a sample-by-sample format (gprofng's experiments, --gprofng) needs them: each with its thread, state, call stack and a time inside one of the thread's sampled spans of that state, and when each thread entered and left the parallel constructs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SAMPLES_H
#define OMPCOLLECT_SAMPLES_H 1

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* Frames in a build's words, leaf first. */
struct ompc_frames {
    size_t at;                 /* the first */
    int count;
    int cut;                   /* cut: too deep, or a forking thread's stack not found */
};

/* One distinct stack of one thread in one state (a stack-table entry, or the samples the table did not keep). */
struct ompc_sample_frame {
    int thread;                /* slot */
    int state;
    uint32_t task;             /* 1 + the row in the process's task_constructs of the construct whose task the samples ran in; 0: none known */
    /*
     * The stack as recorded (machine): the sample's own frames, a worker's
     * continued into its forking thread's fork stack; the user model: the
     * same without the runtime's, the collector's and the vDSO's frames.
     * Both empty for the samples the table did not keep.
     */
    struct ompc_frames machine, user;
};

/* One sample: a thread's tick at a time (ns since the record's origin) in one frame's stack and state. */
struct ompc_sample {
    uint64_t ns;
    uint32_t frame;
    int thread;
};

/* A thread's samples from `ns` on run in a task of task construct `task` (1 + its row; 0: in none), until its next such entry. */
struct ompc_task_entry {
    uint64_t ns;
    int thread;
    uint32_t task;
};

/* A thread entering a top-level parallel construct (construct: 1 + its row in the model's constructs) or leaving it (0). */
struct ompc_construct_entry {
    uint64_t ns;
    int thread;
    uint32_t construct;
};

/*
 * The samples, by thread then state.  The counts are the model's exactly:
 * every thread's ticks per state, and per stack-table entry its count.
 * When each was taken is not recorded: a stack's samples are spread evenly
 * over the thread's recorded spans of their state (the sampled state
 * changes, so a time holds the state it had) inside the instances of the
 * parallel construct whose call the stack holds, or over all the state's
 * spans when it holds none.  A stack's samples that found a task running
 * (the model's task stacks) form frames of their own, by task construct.
 */
struct ompc_samples {
    struct ompc_sample_frame *frames;
    size_t frame_count;
    struct ompc_sample *samples;
    size_t sample_count;
    struct ompc_construct_entry *entries; /* per thread, in time order */
    size_t entry_count;
    /*
     * Per thread, in time order: where its samples' task changes, at the
     * sample that changes it (the first of a thread's samples in a task,
     * or out of one after).  A thread's samples have distinct times, so a
     * time names one sample's task.  Empty when no stack's task is known.
     */
    struct ompc_task_entry *task_entries;
    size_t task_entry_count;
    uint64_t *words;                      /* the frames' */
    size_t word_count;
    uint64_t untimed;                     /* samples of a state the thread's timeline has no span of */
};

/* Builds a process's samples; NULL when memory runs out. */
struct ompc_samples *ompc_samples_build(const struct ompc_report *report);

void ompc_samples_free(struct ompc_samples *samples);

#endif /* OMPCOLLECT_SAMPLES_H */
