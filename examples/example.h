/* example.h - timing helpers the ompcollect examples share: wall-clock busy work and the run-length argument. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_EXAMPLE_H
#define OMPCOLLECT_EXAMPLE_H 1

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double example_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Keeps the CPU busy for `seconds` of wall-clock time.  Busy rather than
 * sleeping, so the work looks like computation to the runtime and the
 * waits around it are the runtime's own.
 */
static inline void example_work(double seconds)
{
    double end = example_now() + seconds;
    while (example_now() < end)
        continue;
}

/* The run length from argv[1] in seconds (default 1), so tests can run shorter. */
static inline double example_seconds(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(seconds > 0) || seconds > 3600) {
        fprintf(stderr, "usage: %s [seconds]\n", argv[0]);
        exit(2);
    }
    return seconds;
}

/*
 * Two threads contending for one lock or critical section.  Left alone, the
 * thread that just released it often takes it again before a descheduled
 * rival wakes, and a busy machine shows little contention.  Here the holder
 * keeps it until the other thread has announced that it wants it, so every
 * turn is contended however the OS schedules the two.
 */
struct example_turns {
    _Atomic int wanting[2];
    _Atomic int done[2];
};

/* Thread `me` is about to ask for the resource. */
static inline void example_turn_wanted(struct example_turns *turns, int me)
{
    atomic_store(&turns->wanting[me], 1);
}

/* Thread `me` of `team` now holds the resource: it waits until the other thread wants it too (or has stopped). */
static inline void example_turn_begins(struct example_turns *turns, int me, int team)
{
    atomic_store(&turns->wanting[me], 0);
    while (team == 2 && !atomic_load(&turns->wanting[1 - me]) && !atomic_load(&turns->done[1 - me]))
        sched_yield();
}

/* Thread `me` takes no more turns; the other must not wait for it. */
static inline void example_turns_end(struct example_turns *turns, int me)
{
    atomic_store(&turns->done[me], 1);
}

/* What an example built without OpenMP does: say so, and exit 77 (automake's "skip"). */
#define EXAMPLE_NEEDS_OPENMP(name)                                                  \
    int main(void)                                                                  \
    {                                                                               \
        fprintf(stderr, "%s: built without OpenMP support; nothing to show\n", name); \
        return 77;                                                                  \
    }

#endif /* OMPCOLLECT_EXAMPLE_H */
