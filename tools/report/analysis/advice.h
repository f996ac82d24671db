/* advice.h - what limits a process's parallel efficiency: POP-style efficiency metrics, the potential gain of each construct and wait location, and the ranked opportunities, derived from the summary's counts and locations. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_ADVICE_H
#define OMPCOLLECT_ADVICE_H 1

#include <stdint.h>

#include "granularity.h"
#include "locations.h"
#include "model.h"
#include "report.h"

/*
 * The OpenMP threads' samples split the POP way (ompcollect(1), EFFICIENCY
 * METRICS): useful work, and four kinds of lost time that add up to the
 * rest.  Each efficiency is 1 - lost / samples, so parallel efficiency is
 * 1 minus the four losses together (the additive form of the POP model).
 */
struct ompc_efficiency {
    uint64_t samples;     /* every state but the invalid one */
    uint64_t useful;      /* WORK + SERIAL */
    uint64_t imbalance;   /* barrier waiting that perfectly balanced work would remove */
    uint64_t sync;        /* lock, critical, ordered and atomic waits, and barrier waiting beyond the imbalance */
    uint64_t sched;       /* OVHD + REDUC: the runtime's own work (fork, join, handing out chunks, reducing) */
    uint64_t serial;      /* IDLE: threads waiting outside parallel regions for the serial code, and (the process's) before_threads; not mpi_idle */
    uint64_t mpi_idle;    /* the process's: IDLE while the initial thread was inside an MPI call, the team waiting for MPI (in no efficiency here) */
    uint64_t before_threads; /* the process's: the samples its OpenMP threads but the initial one would have taken before they existed */
    double parallel, load_balance, synchronisation, scheduling, serialisation; /* NaN: no samples */
};

/* One parallel construct's metrics and gains (a row of summary->locations.constructs, same index). */
struct ompc_construct_advice {
    struct ompc_efficiency efficiency; /* over the samples in the construct; serial is 0 */
    int team;                          /* threads counted in its load balance */
    double balance_gain_s;             /* elapsed time perfect balance would save: max - mean WORK, at most the barrier waiting */
    double overhead_gain_s;            /* the runtime's OVHD + REDUC (short regions: and their other barrier waiting) per team thread */
    uint64_t overhead_samples;         /* the samples that gain is made of */
};

/* What kind of finding an opportunity is. */
enum ompc_finding_kind {
    OMPC_FINDING_IMBALANCE, /* a construct's uneven work: `index` into the constructs */
    OMPC_FINDING_OVERHEAD,  /* a construct's runtime overhead: `index` into the constructs */
    OMPC_FINDING_WAIT,      /* a lock, critical, ordered or atomic wait: `index` into the wait locations */
    OMPC_FINDING_SERIAL,    /* the serial code other threads wait for (no location) */
    OMPC_FINDING_TOO_FINE,  /* a task construct's tasks too small for their overhead: `index` into the task constructs */
    OMPC_FINDING_MPI_WAIT,  /* time inside an MPI call (not MPI's start and end) at one call site: `index` into locations.mpi */
};

/* One opportunity: what, where (an index into the locations) and what it may gain. */
struct ompc_finding {
    int kind;  /* enum ompc_finding_kind */
    int index; /* -1 for OMPC_FINDING_SERIAL */
    double gain_s;
};

/* The most opportunities the report lists, the smallest gain worth one (a share of the run) and the fewest samples it may rest on. */
#define OMPC_MAX_FINDINGS 5
#define OMPC_FINDING_MIN_SHARE 0.01
#define OMPC_FINDING_MIN_SAMPLES 10

/* Everything derived, computed once with the summary; `known` 0 when there are no samples to derive it from. */
struct ompc_advice {
    int known;
    int threads;                 /* the OpenMP threads the process-wide figures are over */
    double interval_s;           /* one sample's time */
    double run_s;                /* the run's wall time, which gains are a share of */
    struct ompc_efficiency process;
    double serial_fraction;      /* the initial thread's SERIAL share of its samples */
    double amdahl_speedup;       /* 1 / (f + (1 - f) / threads): the bound with these threads */
    double amdahl_limit;         /* 1 / f: the bound with any number (0: no serial part) */
    double serial_gain_s;        /* Amdahl at the located functions: serial_located_s * (1 - 1/threads) */
    struct ompc_construct_advice *constructs; /* summary->locations.construct_count rows */
    /*
     * Per wait location: its waiting averaged over the threads -- what the
     * run saves when the exclusion goes (a reduction, private copies), the
     * body then running in parallel with the rest.
     */
    double *wait_gain_s;
    double *wait_body_s;         /* per wait location (lock, critical, ordered, atomic): its body's WORK held, over all threads: serial time */
    double *wait_kept_gain_s;    /* ... and the gain if that body stays serial: the waiting, at most its constructs' time less the body */
    double serial_located_s;     /* the initial thread's SERIAL time at the located functions (serial places) */
    uint64_t task_sched;         /* samples of task scheduling (granularity.h), moved from synchronisation to scheduling */
    struct ompc_task_granularity tasks; /* the per-task overhead and the task constructs too fine for it */
    struct ompc_finding findings[OMPC_MAX_FINDINGS];
    int finding_count;
};

/* What the advice is derived from: the summary's counts and locations, once built (summary.h). */
struct ompc_advice_input {
    const struct ompc_report *report;
    const struct ompc_model_process *process;
    const struct ompc_locations *locations;
    int thread_count;          /* every thread slot */
    int openmp_threads;        /* those the runtime reported */
    const uint64_t *state_ticks; /* the OpenMP threads' samples per state */
    uint64_t total_ticks, mpi_ticks;
    uint64_t before_threads;   /* the samples the OpenMP threads but the initial one would have taken before they existed */
    uint64_t mpi_idle_ticks;   /* the OpenMP threads' IDLE samples while the initial thread was inside MPI */
    uint64_t mpi_before_threads; /* samples the threads would have taken before they existed, during MPI_Init */
};

/* Derives the advice; 0, or -1 when memory runs out. */
int ompc_advice_build(const struct ompc_advice_input *in, struct ompc_advice *advice);

/* Frees what build allocated; safe on a zeroed or half-built one. */
void ompc_advice_free(struct ompc_advice *advice);

/* Whether a construct's instances are short enough for fork and join to be most of them (SHORT_REGION_NS). */
int ompc_construct_short_regions(const struct ompc_construct_row *row);

/* Whether a wait location is a task wait (taskwait, taskgroup): no construct's balance explains it. */
int ompc_wait_is_task_wait(const struct ompc_wait_row *row);

#endif /* OMPCOLLECT_ADVICE_H */
