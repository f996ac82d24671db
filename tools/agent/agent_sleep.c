/* agent_sleep.c - the hooks of the C library's sleeps (interpose.c), so that the sampling signal never cuts a program's sleep short: a handled signal ends nanosleep with EINTR whatever SA_RESTART says, and sleep() returns early. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * A sleeping thread cannot change its OpenMP state, so its samples need
 * not be taken while it sleeps: the thread blocks the sampling signal for
 * the sleep, and the timer's expirations meanwhile fold into one signal
 * that arrives as the block is lifted, counted with their full weight in
 * the state the thread slept in.  The program's own signals still end
 * its sleeps as they would without the agent.  These run in the
 * program's context, or in its signal handlers (nanosleep and sleep are
 * async-signal-safe): nothing here allocates or locks once
 * ompc_sleep_resolve has run.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent.h"
#include "interpose.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

void ompc_sleep_resolve(struct ompc_agent *agent)
{
    if (agent->real.nanosleep == NULL)
        agent->real.nanosleep = (nanosleep_t)dlsym(RTLD_NEXT, "nanosleep");
    if (agent->real.clock_nanosleep == NULL)
        agent->real.clock_nanosleep = (clock_nanosleep_t)dlsym(RTLD_NEXT, "clock_nanosleep");
    if (agent->real.sleep == NULL)
        agent->real.sleep = (sleep_t)dlsym(RTLD_NEXT, "sleep");
    if (agent->real.usleep == NULL)
        agent->real.usleep = (usleep_t)dlsym(RTLD_NEXT, "usleep");
}

/* Where the thread's sleep was called from (ompc_sleep_site) and its caller's frame pointer; only the thread itself and its handlers touch them. */
static __thread uint64_t sleep_site __attribute__((tls_model("initial-exec")));
static __thread uint64_t sleep_fp __attribute__((tls_model("initial-exec")));

uint64_t ompc_sleep_site(void)
{
    return sleep_site;
}

uint64_t ompc_sleep_caller_fp(void)
{
    return sleep_fp;
}

/* A sleep's hold on the samples: the signal blocked (0: none), and the sleep it replaced (a handler's sleep inside a sleep). */
struct hold {
    int signal_number;
    uint64_t previous_site, previous_fp;
};

/*
 * Blocks the thread's sampling signal for a sleep called at return
 * address `caller` with frame pointer `caller_fp`, whose call instruction
 * is then the thread's sleep site.  The site is set first: a sample from
 * here to the block is the sleep's too.
 */
static struct hold hold_samples(struct ompc_agent *agent, uint64_t caller, uint64_t caller_fp)
{
    struct hold held = {0, sleep_site, sleep_fp};
    sleep_fp = caller_fp;
    atomic_signal_fence(memory_order_seq_cst);
    sleep_site = caller > 0 ? caller - 1 : 0;
    int signal_number = ompc_thread_sampling_signal(agent);
    if (signal_number == 0 || agent->real.pthread_sigmask == NULL)
        return held;
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal_number);
    held.signal_number = agent->real.pthread_sigmask(SIG_BLOCK, &only, NULL) == 0 ? signal_number : 0;
    return held;
}

/* Lifts the block: the folded expirations arrive here, still at the sleep site, and the sleep's errno stays what it was. */
static void release_samples(struct ompc_agent *agent, struct hold held)
{
    int saved = errno;
    if (held.signal_number != 0) {
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, held.signal_number);
        agent->real.pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    }
    sleep_site = held.previous_site;
    atomic_signal_fence(memory_order_seq_cst);
    sleep_fp = held.previous_fp;
    errno = saved;
}

int ompc_hook_nanosleep(struct ompc_agent *agent, const struct timespec *request, struct timespec *remaining,
                        uint64_t caller, uint64_t caller_fp)
{
    ompc_sleep_resolve(agent);
    if (agent->real.nanosleep == NULL) {
        errno = ENOSYS;
        return -1;
    }
    struct hold held = hold_samples(agent, caller, caller_fp);
    int result = agent->real.nanosleep(request, remaining);
    release_samples(agent, held);
    return result;
}

int ompc_hook_clock_nanosleep(struct ompc_agent *agent, clockid_t clock, int flags, const struct timespec *request,
                              struct timespec *remaining, uint64_t caller, uint64_t caller_fp)
{
    ompc_sleep_resolve(agent);
    if (agent->real.clock_nanosleep == NULL)
        return ENOSYS;
    struct hold held = hold_samples(agent, caller, caller_fp);
    int result = agent->real.clock_nanosleep(clock, flags, request, remaining);
    release_samples(agent, held);
    return result;
}

unsigned int ompc_hook_sleep(struct ompc_agent *agent, unsigned int seconds, uint64_t caller, uint64_t caller_fp)
{
    ompc_sleep_resolve(agent);
    if (agent->real.sleep == NULL)
        return seconds;
    struct hold held = hold_samples(agent, caller, caller_fp);
    unsigned int result = agent->real.sleep(seconds);
    release_samples(agent, held);
    return result;
}

int ompc_hook_usleep(struct ompc_agent *agent, useconds_t microseconds, uint64_t caller, uint64_t caller_fp)
{
    ompc_sleep_resolve(agent);
    if (agent->real.usleep == NULL) {
        errno = ENOSYS;
        return -1;
    }
    struct hold held = hold_samples(agent, caller, caller_fp);
    int result = agent->real.usleep(microseconds);
    release_samples(agent, held);
    return result;
}
