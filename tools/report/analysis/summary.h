/* summary.h - what the report's writers share: one process's threads, regions and waits gathered once from the model, and the small sums over them. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SUMMARY_H
#define OMPCOLLECT_SUMMARY_H 1

#include <stdint.h>

#include "advice.h"
#include "counts.h"
#include "bounds.h"
#include "locations.h"
#include "model.h"
#include "report.h"


/* One object wait id, merged over every thread that waited for it. */
struct merged_wait {
    int state;
    uint64_t id;
    uint64_t ticks;
    int threads;
};

/* Everything derived once from the record, shared by all formats. */
struct summary {
    const struct ompc_report *report;
    const struct ompc_model_process *process;
    int thread_count;      /* every thread slot */
    int openmp_threads;    /* those the runtime reported; the totals are theirs */
    uint64_t other_ticks;  /* samples of the others */
    uint64_t total_ticks;  /* every state's, invalid answers' and MPI's */
    uint64_t state_ticks[OMPC_NSTATES];
    uint64_t mpi_ticks;    /* samples inside MPI calls, in no state */
    uint64_t before_threads; /* samples the OpenMP threads but the initial one would have taken before they existed, outside MPI_Init */
    uint64_t mpi_before_threads; /* ... of them while the initial thread was inside MPI_Init (waiting for MPI, not serial code) */
    uint64_t mpi_ns, mpi_calls; /* time inside MPI calls and the calls, of the OpenMP threads */
    uint64_t mpi_idle_ticks; /* of state_ticks[IDLE], those while the initial thread was inside MPI (the team waiting for MPI) */
    const struct ompc_model_region **regions; /* by id */
    int region_count;
    uint64_t forks, joins, outermost_ns;
    struct merged_wait *waits; /* most samples first */
    int wait_count;
    uint64_t wait_overflow_ticks;
    struct ompc_locations locations; /* constructs and waits by code address, symbolized */
    struct ompc_limit limits[OMPC_LIMIT_KINDS]; /* the record's bounds the run reached */
    int limit_count;
    struct ompc_advice advice; /* efficiency metrics, potential gains and opportunities (advice.h) */
};

/* Events of one kind, all threads together. */
static inline uint64_t event_count(const struct summary *summary, int event)
{
    uint64_t total = summary->process->untracked.events[event];
    for (int i = 0; i < summary->thread_count; i++)
        total += summary->process->threads[i].events[event];
    return total;
}

/* Time spent between the BEGIN and END of a pair, all threads together. */
static inline uint64_t pair_time_ns(const struct summary *summary, int pair)
{
    uint64_t total = 0;
    for (int i = 0; i < summary->thread_count; i++)
        total += summary->process->threads[i].pair_ns[pair];
    return total;
}

/* qsort order for regions: by id, the order they were forked in. */
static inline int compare_region_ids(const void *a, const void *b)
{
    uint64_t x = (*(const struct ompc_model_region *const *)a)->id;
    uint64_t y = (*(const struct ompc_model_region *const *)b)->id;
    return (x > y) - (x < y);
}

/* qsort order for the text report: longest FORK-to-JOIN first. */
static inline int compare_region_times(const void *a, const void *b)
{
    uint64_t x = (*(const struct ompc_model_region *const *)a)->time_ns;
    uint64_t y = (*(const struct ompc_model_region *const *)b)->time_ns;
    if (x != y)
        return (x < y) - (x > y);
    return compare_region_ids(a, b);
}


/* Gathers threads, regions and waits; returns -1 when memory runs out (then release it all the same). */
int ompc_summarise(const struct ompc_report *report, struct summary *summary);

/* Frees what ompc_summarise allocated; safe on a half-built summary. */
void ompc_summary_release(struct summary *summary);

/* Name of what became of sampling ("on", "no-signal", ...). */
const char *ompc_sampling_status_name(uint32_t status);

/* What the threads' event logs (--trace) hold and what did not fit: returns the threads that dropped any. */
int ompc_event_log_totals(const struct ompc_model_process *process, uint64_t *recorded, uint64_t *dropped);

/* The uncontended waits the threads took out of their event logs again (OMPC_SHORT_WAIT_NS): how many, and their time. */
void ompc_short_wait_totals(const struct ompc_model_process *process, uint64_t *count, uint64_t *ns);

/* Whether the OpenMP runtime ever reported the thread: the initial thread, or one with an event or a state other than SERIAL. */
int ompc_thread_is_openmp(const struct ompc_model_thread *thread);

/* Whether the thread was sampled in an OpenMP state: any but SERIAL, which a thread outside OpenMP reads too. */
int ompc_thread_sampled_in_openmp(const struct ompc_model_thread *thread);

/* Name of a signal number ("SIGRTMAX", "SIGRTMIN+3", "SIGSEGV"). */
const char *ompc_signal_name(int number, char *buffer, size_t size);

#endif /* OMPCOLLECT_SUMMARY_H */
