/* agent.h - what agent.c and the sampling handler's sampler.c share inside the observed program: the record, the C library's functions the agent interposes, the timers, and the clock and region table both sides use. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_H
#define OMPCOLLECT_AGENT_H 1

#include "omp_collector_api.h"
#include "record.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* Nothing here leaves the agent: accesses need no GOT, as when all of it was static in agent.c. */
#pragma GCC visibility push(hidden)

typedef int (*collector_api_t)(void *);
typedef int (*pthread_create_t)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*sigaction_t)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_t)(int, const sigset_t *, sigset_t *);
typedef sighandler_t (*signal_t)(int, sighandler_t);
typedef int (*execve_t)(const char *, char *const[], char *const[]);
typedef int (*execv_t)(const char *, char *const[]);
typedef int (*fexecve_t)(int, char *const[], char *const[]);
typedef int (*nanosleep_t)(const struct timespec *, struct timespec *);
typedef int (*clock_nanosleep_t)(clockid_t, int, const struct timespec *, struct timespec *);
typedef unsigned int (*sleep_t)(unsigned int);
typedef int (*usleep_t)(useconds_t);

/* The C library's versions of what the agent interposes. */
struct ompc_real_functions {
    pthread_create_t pthread_create;
    sigaction_t sigaction;
    sigmask_t sigprocmask, pthread_sigmask;
    signal_t signal, bsd_signal, sysv_signal;
    execve_t execve, execvpe;
    execv_t execv, execvp;
    fexecve_t fexecve;
    nanosleep_t nanosleep;
    clock_nanosleep_t clock_nanosleep;
    sleep_t sleep;
    usleep_t usleep;
};
extern struct ompc_real_functions real;

extern collector_api_t api;

/* The launcher's record, and this process's slot in it (NULL: not recording). */
extern struct ompc_record_header *record;
extern struct ompc_process *_Atomic process;
extern uint64_t origin_ns; /* CLOCK_MONOTONIC at the start of this process's record */
extern int has_sample;     /* the runtime answered OMPCOLLECTOR_REQ_SAMPLE at START */

extern _Atomic int sampling_on; /* the signal handler may record */
extern _Atomic int handler_installed;
/* The disposition the program believes it set for the sampling signal; two copies so the handler never reads a half-written one. */
extern struct sigaction program_actions[2];
extern _Atomic int program_action_current;

/* The kernel's id of each thread's timer, which the signal carries back. */
extern int timer_ids[OMPC_MAX_THREADS];
/* TIMER_NONE, TIMER_LIVE, or TIMER_DELETED: a deleted timer's signal may still be pending somewhere. */
extern _Atomic unsigned char has_timer[OMPC_MAX_THREADS];
enum { TIMER_NONE, TIMER_LIVE, TIMER_DELETED };
/*
 * When each timer's period began (CLOCK_MONOTONIC, not since origin_ns)
 * and how many of its expirations samples have counted since: a kernel
 * that folds expirations without reporting them in si_overrun (or reports
 * fewer) still gets the count right, since a CLOCK_MONOTONIC timer expires
 * at fixed points of its period.
 */
extern _Atomic uint64_t timer_armed_ns[OMPC_MAX_THREADS];
extern _Atomic uint64_t timer_counted[OMPC_MAX_THREADS];

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
static __attribute__((unused)) uint64_t now_ns(void)
{
    return monotonic_ns() - origin_ns;
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
 * agent_mpi.c: how deep the calling thread is in MPI calls the MPI library
 * (libompcollect-mpi) wrapped; only the thread itself writes it, so its
 * sampling handler reads it async-signal-safely.  Initial-exec: the
 * agent's TLS is in the static block (see agent.c's `self`).
 */
extern __thread volatile int ompc_mpi_depth __attribute__((tls_model("initial-exec")));

/*
 * agent.c: the sampling signal, when the calling thread has its slot and
 * a live timer and has not blocked the signal itself; 0 otherwise.
 * Async-signal-safe: reads the thread's slot and atomics only.
 */
int ompc_thread_sampling_signal(void);

/* agent_sleep.c: the C library's sleeps, looked up before the program runs (a handler may sleep). */
void ompc_sleep_resolve(void);

/* sampler.c: OMPCOLLECTOR_REQ_SAMPLE for the calling thread (async-signal-safe); its ec, or -1 when the call failed. */
int ompc_sample_request(ompcollector_sample_t *out);

/*
 * sampler.c: for a runtime without OMPCOLLECTOR_REQ_SAMPLE, STATE and
 * CURRENT_PRID in one call (async-signal-safe): `out` gets the state and
 * wait id when STATE answered OK, the region id when CURRENT_PRID did,
 * zeros otherwise; 0, or -1 when the call failed.
 */
int ompc_state_request(ompcollector_sample_t *out);

/* sampler.c: the sampling signal's handler, which start_sampling installs and check_handler looks for. */
void ompc_on_sample(int signal_number, siginfo_t *info, void *context);

#pragma GCC visibility pop

#endif /* OMPCOLLECT_AGENT_H */
