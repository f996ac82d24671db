/* agent.h - what agent.c and the modules it hands its state to (the sampling handler's sampler.c, the sleeps, MPI) share inside the observed program: the clock, the region table and the functions between them. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_H
#define OMPCOLLECT_AGENT_H 1

#include "agent_state.h"
#include "omp_collector_api.h"
#include "record.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* Nothing here leaves the agent: accesses need no GOT, as when all of it was static in agent.c. */
#pragma GCC visibility push(hidden)

/*
 * The clock, each file's own copy.  Static but not `inline`, as when they
 * were agent.c's alone: `inline` changes GCC's inlining of the event
 * callbacks around them (task_timer_end stopped being inlined).
 */

/* CLOCK_MONOTONIC in ns; clock_gettime is async-signal-safe. */
static __attribute__((unused)) uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since this process's record began (async-signal-safe). */
static __attribute__((unused)) uint64_t now_ns(struct ompc_agent *state)
{
    return monotonic_ns() - state->origin_ns;
}

/*
 * The region row for `id`, inserted when `create` is set.  Lock-free (one
 * compare-and-swap per new id) so the signal handler may call it.  NULL
 * when the table is full around this id.  Inline: the event callbacks
 * call it too, and should not pay a call for it.
 */
static inline struct ompc_region *region_row(struct ompc_process *owner, uint64_t id, int create)
{
    uint64_t hash = id * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned probe = 0; probe < 64; probe++) {
        struct ompc_region *row = &owner->regions[((hash >> 50) + probe) % OMPC_MAX_REGIONS];
        uint64_t seen = atomic_load_explicit(&row->id, memory_order_acquire);
        if (seen == id)
            return row;
        if (seen == 0) {
            if (!create)
                return NULL;
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(&row->id, &expected, id) || expected == id)
                return row;
        }
    }
    return NULL;
}

/* agent.c: the calling thread's slot, claimed on first use (not in the signal handler); `untracked` past the limit; NULL when not recording. */
struct ompc_thread *ompc_current_thread(void);

/*
 * agent_mpi.c: whether the calling thread is inside an MPI call the MPI
 * library (libompcollect-mpi) wrapped.  A function, so the thread-local
 * depth stays agent_mpi.c's own; async-signal-safe: reads the calling
 * thread's initial-exec TLS only.
 */
int ompc_mpi_inside(void);
/* Whether the process's initial thread is inside a wrapped MPI call (async-signal-safe: one atomic load). */
int ompc_mpi_initial_inside(void);
/* The calling thread's MPI call-site row while inside a wrapped call, else -1 (async-signal-safe: its own TLS). */
int ompc_mpi_site_row(void);

/*
 * agent.c: the sampling signal, when the calling thread has its slot and
 * a live timer and has not blocked the signal itself; 0 otherwise.
 * Async-signal-safe: reads the thread's slot and atomics only.
 */
int ompc_thread_sampling_signal(struct ompc_agent *state);

/* agent_sleep.c: the C library's sleeps, looked up before the program runs (a handler may sleep). */
void ompc_sleep_resolve(struct ompc_agent *state);
/*
 * The code the calling thread's sleep was called from (the call
 * instruction), 0 when it sleeps in none of the hooked calls: its samples
 * folded while it slept arrive inside the hook's unblock, which is not
 * where the program spent that time.  Async-signal-safe: thread-local.
 */
uint64_t ompc_sleep_site(void);
/*
 * The frame pointer the sleep's caller had, where a frame-pointer walk of
 * the sleep's samples starts (at ompc_sleep_site); 0 with no sleep.
 * Async-signal-safe: thread-local.
 */
uint64_t ompc_sleep_caller_fp(void);

/* sampler.c: OMPCOLLECTOR_REQ_SAMPLE for the calling thread (async-signal-safe); its ec, or -1 when the call failed. */
int ompc_sample_request(struct ompc_agent *state, ompcollector_sample_t *out);

/*
 * sampler.c: for a runtime without OMPCOLLECTOR_REQ_SAMPLE, STATE and
 * CURRENT_PRID in one call (async-signal-safe): `out` gets the state and
 * wait id when STATE answered OK, the region id when CURRENT_PRID did,
 * zeros otherwise; 0, or -1 when the call failed.
 */
int ompc_state_request(struct ompc_agent *state, ompcollector_sample_t *out);

/*
 * sampler.c: what the sampling signal's handler does; agent.c's handler,
 * which start_sampling installs and check_handler looks for, passes the
 * state on to it.
 */
void ompc_sample_signal(struct ompc_agent *state, int signal_number, siginfo_t *info, void *context);

#pragma GCC visibility pop

#endif /* OMPCOLLECT_AGENT_H */
