/* agent_state.h - the agent's state inside the observed program in one struct: agent.c owns the only instance and hands a pointer to it to the sampler, the task path and the interposers' hooks. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_STATE_H
#define OMPCOLLECT_AGENT_STATE_H 1

#include "omp_collector_api.h"
#include "record.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* Nothing here leaves the agent: accesses need no GOT. */
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

/* A timer's life as the handler sees it: a deleted timer's signal may still be pending somewhere. */
enum { TIMER_NONE, TIMER_LIVE, TIMER_DELETED };

/*
 * Everything the agent keeps for the process image, but thread-local data
 * (each module's own __thread variables, which a struct cannot hold).  The
 * first part is what the other modules read through the pointer they are
 * given; the second is agent.c's own and nobody else touches it.
 */
struct ompc_agent {
    /* ---- shared: the sampler, the sleeps, the task path, the interposers ---- */
    struct ompc_real_functions real;
    collector_api_t api;
    /* The launcher's record, and this process's slot in it (NULL: not recording). */
    struct ompc_record_header *record;
    struct ompc_process *_Atomic process;
    uint64_t origin_ns; /* CLOCK_MONOTONIC at the start of this process's record */
    int has_sample;     /* the runtime answered OMPCOLLECTOR_REQ_SAMPLE at START */
    int sample_signal;  /* 0: none chosen yet */
    _Atomic int collecting;  /* attached and not yet at exit */
    _Atomic int sampling_on; /* the signal handler may record */
    _Atomic int handler_installed;
    /*
     * The disposition the program believes it set for the sampling signal;
     * two copies so the handler never reads a half-written one.
     */
    struct sigaction program_actions[2];
    _Atomic int program_action_current;
    /* The kernel's id of each thread's timer, which the signal carries back. */
    int timer_ids[OMPC_MAX_THREADS];
    /* TIMER_NONE, TIMER_LIVE, or TIMER_DELETED. */
    _Atomic unsigned char has_timer[OMPC_MAX_THREADS];
    /*
     * When each timer's period began (CLOCK_MONOTONIC, not since origin_ns)
     * and how many of its expirations samples have counted since: a kernel
     * that folds expirations without reporting them in si_overrun (or reports
     * fewer) still gets the count right, since a CLOCK_MONOTONIC timer expires
     * at fixed points of its period.
     */
    _Atomic uint64_t timer_armed_ns[OMPC_MAX_THREADS];
    _Atomic uint64_t timer_counted[OMPC_MAX_THREADS];

    /* ---- agent.c's own ---- */
    int is_main;      /* the process the launcher started: it refuses to run unobserved */
    int session_live; /* START answered OK in this image */
    int dropped;      /* this process found no free slot and is counted in processes_dropped (once) */
    struct ompc_event_request requests[OMPC_NEVENTS];
    int request_count;
    struct ompc_event_request task_requests[OMPC_TASK_EVENTS];
    int task_request_count;
    int has_task_request; /* the runtime answered OMPCOLLECTOR_REQ_TASK at START */
    int task_phases;      /* the runtime took OMPCOLLECTOR_EVENT_TASK: the task events come as its phases */
    /* OMPC_TASK_TIER_SAMPLED: the runtime took OMPCOLLECTOR_EVENT_TASK_CREATE alone; the sampler times the tasks. */
    int task_tier;
    int task_sampling;    /* the sampler reads each sample's task (OMPCOLLECTOR_REQ_TASK) for the constructs' sampled time */
    /* The runtime answered OMPCOLLECTOR_REQ_TASK_INFO at START and the task events were asked for. */
    int has_task_info;
    /* dlpi_adds and dlpi_subs when the module map was last brought up to date. */
    unsigned long long modules_adds, modules_subs;
    /* CLOCK_MONOTONIC when the start-up (START, which initializes the runtime, and REGISTER) ended. */
    uint64_t session_began;
    /* Per-thread timers, private to the process (a fork does not inherit them). */
    timer_t timers[OMPC_MAX_THREADS];
    /*
     * The kernel's scheduler tick (CLOCK_MONOTONIC_COARSE's resolution), 0 when
     * unknown.  Linux fires every CPU's tick at multiples of it on
     * CLOCK_MONOTONIC; a timer that expires on those same instants is run by
     * the tick's own interrupt, while one between ticks costs an interrupt of
     * its own -- on a virtual machine the dearer part of a sample by far.
     */
    uint64_t tick_ns;
    /* Claims, timer changes and releases of thread slots; never taken in the signal handler. */
    pthread_mutex_t slots_mutex;
    /* Serialises claiming the process slot. */
    pthread_mutex_t begin_mutex;
    pthread_key_t slot_key;
    int slot_key_made;
    /* The scanner: new threads, gone threads, a heartbeat, the handler's ownership, the runtime's arrival. */
    pthread_t scanner;
    int scanner_started;
    pid_t scanner_tid;
    int scanner_stop;
    pthread_mutex_t scanner_mutex;
    pthread_cond_t scanner_cond;
    /*
     * Held by the scanner while it scans (it allocates, and takes the loader's
     * lock): fork waits for it, so a child never inherits a lock the scanner
     * held -- a malloc that is not fork-safe (AddressSanitizer's) would hang.
     */
    pthread_mutex_t scan_lock;
};

/*
 * agent.c: the one instance, for the exported entry points in interpose.c
 * alone.  The C library calls them with its own arguments and nothing
 * else, so they cannot be handed the pointer as every other module is; a
 * function rather than an extern object keeps the instance itself out of
 * every header.  Async-signal-safe: returns a constant address.
 */
struct ompc_agent *ompc_agent_instance(void);

/* Looks up the next definition of `name` into state->real once; a missing one stays NULL. */
#define OMPC_RESOLVE(state, name)                                                       \
    do {                                                                                \
        if ((state)->real.name == NULL)                                                 \
            (state)->real.name = (__typeof__((state)->real.name))dlsym(RTLD_NEXT, #name); \
    } while (0)

#pragma GCC visibility pop

#endif /* OMPCOLLECT_AGENT_STATE_H */
