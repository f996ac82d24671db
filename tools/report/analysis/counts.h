/* counts.h - small sums over the model every analysis shares: a thread's or a region's samples, a thread's life and the samples it allows. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_COUNTS_H
#define OMPCOLLECT_COUNTS_H 1

#include <stdint.h>

#include "model.h"
#include "report.h"

/* Samples over all states (and invalid answers) of a thread's or region's counters. */
static inline uint64_t state_total(const uint64_t *ticks)
{
    uint64_t total = 0;
    for (int state = 0; state < OMPC_NSTATES; state++)
        total += ticks[state];
    return total;
}

/* Samples of a thread, all states and MPI together. */
static inline uint64_t thread_ticks(const struct ompc_model_thread *thread)
{
    return state_total(thread->state_ticks) + thread->mpi_ticks;
}


/*
 * When the thread's life began as far as the record knows: the initial
 * thread was there when the record began (the origin), any other from its
 * slot's claim.  Coverage (cover.h) judges samples against this life, so
 * time before the initial thread's timer was armed counts as not sampled.
 */
static inline uint64_t thread_birth_ns(const struct ompc_model_thread *thread)
{
    return thread->initial ? 0 : thread->start_ns;
}

/* How long the thread lived: from its birth to its exit or the end of the record. */
static inline uint64_t thread_lifetime_ns(const struct ompc_model_thread *thread)
{
    uint64_t end = thread->end_ns, birth = thread_birth_ns(thread);
    return end > birth ? end - birth : 0;
}

/* Samples the thread's lifetime allows at the configured interval. */
static inline uint64_t thread_expected_ticks(const struct ompc_report *report, const struct ompc_model_thread *thread)
{
    return report->interval_ns > 0 ? thread_lifetime_ns(thread) / (uint64_t)report->interval_ns : 0;
}

/* Samples taken inside a region, all states together. */
static inline uint64_t region_ticks(const struct ompc_model_region *region)
{
    return state_total(region->ticks);
}

/* Threads seen in a region, from its bit mask of thread slots. */
static inline int popcount64(uint64_t value)
{
    int count = 0;
    for (; value != 0; value &= value - 1)
        count++;
    return count;
}

#endif /* OMPCOLLECT_COUNTS_H */
