/* agent.h - what the ompcollect agent records, shared by the sampler (agent.c) and the report writers (report.c). */
#ifndef OMPCOLLECT_AGENT_H
#define OMPCOLLECT_AGENT_H 1

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "names.h"

/* Threads the agent can follow; later ones are counted but not sampled. */
#define OMPC_MAX_THREADS 512
/* Distinct object wait ids remembered per thread. */
#define OMPC_WAIT_SLOTS 32
/* Parallel regions remembered; ids past it are folded into one overflow row. */
#define OMPC_MAX_REGIONS 16384
/* State changes remembered per thread for --timeline. */
#define OMPC_TIMELINE_CAP 65536u

/* Lifecycle of a thread slot. */
enum { OMPC_SLOT_FREE, OMPC_SLOT_LIVE, OMPC_SLOT_EXITED };

/* One object a thread was seen waiting for (LKWT, CTWT, ODWT, ATWT). */
struct ompc_wait {
    _Atomic uint64_t id;
    _Atomic uint32_t state;
    _Atomic uint64_t ticks;
};

/*
 * One thread.  The sampling signal handler of the thread itself is the only
 * writer of the sample fields and the event callbacks on it the only writer
 * of the event fields, so every field has one writer; atomics (relaxed) only
 * make the report's reads from another thread well defined.
 */
struct ompc_thread {
    pid_t tid;
    int initial;              /* the process's initial thread */
    _Atomic int status;       /* OMPC_SLOT_* */
    int has_timer;
    timer_t timer;
    uint64_t start_ns;        /* sampling began (relative to the agent's start) */
    _Atomic uint64_t end_ns;  /* thread gone or report begun; 0 while running */
    _Atomic uint64_t signals; /* sampling signals handled */
    _Atomic uint64_t ticks;   /* timer expirations they stand for (signals + overruns) */
    _Atomic uint64_t state_ticks[OMPC_NSTATES];
    _Atomic uint64_t events[OMPC_NEVENTS];
    _Atomic uint64_t pair_ns[OMPC_NPAIRS];
    uint64_t pair_begin_ns[OMPC_NPAIRS];
    int pair_depth[OMPC_NPAIRS];
    struct ompc_wait waits[OMPC_WAIT_SLOTS];
    _Atomic uint64_t wait_overflow_ticks;
    /* --timeline: (microseconds since the agent's start << 8) | state, one per change. */
    uint64_t *timeline;
    _Atomic uint32_t timeline_length;
    _Atomic int timeline_truncated;
    int last_state;
    _Atomic uint64_t last_sample_ns;
};

/* One parallel region, keyed by the id CURRENT_PRID reports. */
struct ompc_region {
    _Atomic uint64_t id; /* 0: free */
    _Atomic uint64_t parent;
    _Atomic uint32_t forks;
    _Atomic uint32_t joins;
    _Atomic uint64_t fork_ns; /* latest FORK on the master */
    _Atomic uint64_t time_ns; /* FORK to JOIN, summed */
    _Atomic uint64_t thread_mask; /* bit (slot % 64) of every thread sampled in it */
    _Atomic uint64_t ticks[OMPC_NSTATES]; /* as a thread's state_ticks, so one reader serves both */
};

/* What REGISTER answered for an event asked for. */
struct ompc_event_request {
    int event;
    int ec; /* OMP_COLLECTORAPI_EC, or -1 when the call itself failed */
};

/* Everything the report needs: configuration plus the tables above. */
struct ompc_run {
    const char *program;
    pid_t pid;
    int format;
    const char *output;   /* NULL: stderr */
    const char *timeline; /* NULL: no SVG */
    int sampling;
    long long interval_ns;
    uint64_t wall_ns;     /* agent start to report */
    uint32_t event_mask;
    struct ompc_event_request requests[OMPC_NEVENTS];
    int request_count;
    struct ompc_thread *threads;
    int thread_count;
    const struct ompc_thread *untracked; /* events of threads past OMPC_MAX_THREADS */
    _Atomic uint64_t threads_not_followed;
    struct ompc_region *regions;
    _Atomic uint64_t regions_overflow_forks;
    _Atomic uint64_t regions_overflow_ns;
};

/* Writes the report in run->format to `out`; returns 0, or -1 on a write error. */
int ompc_write_report(const struct ompc_run *run, FILE *out);

/* Writes the SVG timeline to `out`; returns 0, or -1 on a write error. */
int ompc_write_timeline(const struct ompc_run *run, FILE *out);

#endif /* OMPCOLLECT_AGENT_H */
