/* load.h - the loader: the one reader of a finished run's record, which it treats as untrusted (the observed program could write all of it) and turns into the profile model (model.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_LOAD_H
#define OMPCOLLECT_LOAD_H 1

#include <stdint.h>

#include "model.h"
#include "record.h"

/* What to read beyond the tables every report uses. */
enum { OMPC_LOAD_TIMELINES = 1, OMPC_LOAD_WHERE = 2, OMPC_LOAD_EVENT_LOGS = 4, OMPC_LOAD_STACKS = 8 };

/*
 * The launcher's own view of the run, which the record's times must fit:
 * CLOCK_MONOTONIC when it started the program and when it read the record
 * (0: unknown, then only the record's own bounds apply).
 */
struct ompc_load_bounds {
    uint64_t run_start_ns, run_end_ns;
    /* The arena bytes the processes loaded before own (NULL: each process is checked alone). */
    struct ompc_load_claims *claims;
};

/*
 * Every byte of a record belongs to at most one table (load_claims.c): the
 * spans of the arena that tables already loaded own, sorted and disjoint.
 * A table that overlaps another is not read, so the loader's time and
 * memory stay within a constant of the record's size however many threads
 * a program points at one buffer.
 */
struct ompc_load_claims {
    struct ompc_load_span {
        uint64_t from, to;
    } *spans;
    size_t count;
};
void ompc_load_claims_free(struct ompc_load_claims *claims);

/* The tables of a thread, as bits of the loader's refusals. */
enum {
    OMPC_CLAIM_WAITS = 1, OMPC_CLAIM_WORK = 2, OMPC_CLAIM_TIMELINE = 4, OMPC_CLAIM_WHERE = 8, OMPC_CLAIM_EVENTS = 16,
    OMPC_CLAIM_STACKS = 32, OMPC_CLAIM_FORKS = 64, OMPC_CLAIM_COPIES = 128,
    OMPC_CLAIM_TASK_STACKS = 256
};

/*
 * Claims the arena tables of threads [0, count) of slot `from`: each that
 * overlaps another of them or a span `claims` owns is refused (its bit set
 * in refused[thread], counted in *refusals), the others join `claims`.
 * 0, or -1 without memory.
 */
int ompc_load_claim_tables(int fd, const struct ompc_record_header *header, const struct ompc_process *from,
                           int32_t count, struct ompc_load_claims *claims, uint16_t *refused, unsigned long *refusals);

/* The first fields of a process slot, for the launcher's supervision; 0, or -1 when the record does not hold the slot. */
struct ompc_slot_head {
    uint32_t state;
    int32_t pid;
    uint64_t start_ticks;
};
int ompc_load_head(int fd, const struct ompc_record_header *header, uint32_t index, struct ompc_slot_head *head);

/*
 * Re-reads the header's run-wide counts (processes dropped, arena refused),
 * which the agents update during the run, into `header`; -1 when the
 * record no longer holds its header.
 */
int ompc_load_counts(int fd, struct ompc_record_header *header);

/*
 * Reads process slot `index` (laid out as `header` says, the header
 * already checked with ompc_record_check) and everything `what` asks for,
 * checking every count, offset, string and time; what does not hold is
 * dropped or clamped and said in the model's damage.  NULL only without
 * memory.
 */
struct ompc_model_process *ompc_load_process(int fd, const struct ompc_record_header *header, uint32_t index,
                                             unsigned what, const struct ompc_load_bounds *bounds);

/* Adds one finding to a model's damage (printf-style). */
void ompc_damage_note(struct ompc_damage *damage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The model's task table from the threads' checked event logs (load_tasks.c):
 * each task named by a creation or a run, once; a task created twice keeps
 * its first creation (counted as damage).  0, or -1 without memory.
 */
int ompc_load_tasks(struct ompc_model_process *process);

/*
 * A stack table's `used` words, which lie at record offset `at`, as its
 * entries (load_stacks.c); an entry that does not fit ends the table.  0, or
 * -1 without memory.
 */
int ompc_load_stack_entries(struct ompc_model_stack_table *table, uint64_t used, uint64_t at);

/* How many of the `used` bytes of a copy buffer are well-formed stack copies, from its start (load_stacks.c). */
uint64_t ompc_load_good_copies(const unsigned char *bytes, uint64_t used);

/* A thread's checked copy bytes as its stack copies (load_stacks.c); 0, or -1 without memory. */
int ompc_load_stack_copies(struct ompc_model_thread *thread);

#endif /* OMPCOLLECT_LOAD_H */
