/* sampler.c - the self-sampling scaffolding of the workloads: the handler's installation, a per-thread SIGPROF timer and timed spinning (see sampler.h). */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "sampler.h"

#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void sampler_install(int signo, void (*handler)(int))
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(signo, &action, NULL);
}

int sampler_thread_timer(long period_ns, timer_t *timer)
{
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD_ID;
    event.sigev_signo = SIGPROF;
    event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &event, timer) != 0)
        return -1;
    struct itimerspec period = {{0, period_ns}, {0, period_ns}};
    timer_settime(*timer, 0, &period, NULL);
    return 0;
}

void sampler_arm_thread(long period_ns)
{
    static __thread int armed;
    timer_t timer;
    if (!armed && sampler_thread_timer(period_ns, &timer) == 0)
        armed = 1;
}

double sampler_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* What the spinning writes, so the compiler keeps the loop. */
static volatile long spun;

void sampler_spin_for(double seconds)
{
    double end = sampler_now() + seconds;
    while (sampler_now() < end)
        spun++;
}
