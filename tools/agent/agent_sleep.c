/* agent_sleep.c - the C library's sleeps, interposed so that the sampling signal never cuts a program's sleep short: a handled signal ends nanosleep with EINTR whatever SA_RESTART says, and sleep() returns early. */
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

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define AGENT_EXPORT __attribute__((visibility("default")))

void ompc_sleep_resolve(void)
{
    if (real.nanosleep == NULL)
        real.nanosleep = (nanosleep_t)dlsym(RTLD_NEXT, "nanosleep");
    if (real.clock_nanosleep == NULL)
        real.clock_nanosleep = (clock_nanosleep_t)dlsym(RTLD_NEXT, "clock_nanosleep");
    if (real.sleep == NULL)
        real.sleep = (sleep_t)dlsym(RTLD_NEXT, "sleep");
    if (real.usleep == NULL)
        real.usleep = (usleep_t)dlsym(RTLD_NEXT, "usleep");
}

/* Blocks the thread's sampling signal for a sleep; the signal, or 0 when nothing was blocked. */
static int hold_samples(void)
{
    int signal_number = ompc_thread_sampling_signal();
    if (signal_number == 0 || real.pthread_sigmask == NULL)
        return 0;
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal_number);
    return real.pthread_sigmask(SIG_BLOCK, &only, NULL) == 0 ? signal_number : 0;
}

/* Lifts the block: the folded expirations arrive here, and the sleep's errno stays what it was. */
static void release_samples(int signal_number)
{
    if (signal_number == 0)
        return;
    int saved = errno;
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal_number);
    real.pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    errno = saved;
}

AGENT_EXPORT int nanosleep(const struct timespec *request, struct timespec *remaining)
{
    ompc_sleep_resolve();
    if (real.nanosleep == NULL) {
        errno = ENOSYS;
        return -1;
    }
    int held = hold_samples();
    int result = real.nanosleep(request, remaining);
    release_samples(held);
    return result;
}

AGENT_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request,
                                 struct timespec *remaining)
{
    ompc_sleep_resolve();
    if (real.clock_nanosleep == NULL)
        return ENOSYS;
    int held = hold_samples();
    int result = real.clock_nanosleep(clock, flags, request, remaining);
    release_samples(held);
    return result;
}

AGENT_EXPORT unsigned int sleep(unsigned int seconds)
{
    ompc_sleep_resolve();
    if (real.sleep == NULL)
        return seconds;
    int held = hold_samples();
    unsigned int result = real.sleep(seconds);
    release_samples(held);
    return result;
}

AGENT_EXPORT int usleep(useconds_t microseconds)
{
    ompc_sleep_resolve();
    if (real.usleep == NULL) {
        errno = ENOSYS;
        return -1;
    }
    int held = hold_samples();
    int result = real.usleep(microseconds);
    release_samples(held);
    return result;
}
