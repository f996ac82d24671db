/* sampler.h - what the workloads that sample themselves share: the signal handler's installation, a per-thread sampling timer, and timed spinning. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_TEST_SAMPLER_H
#define OMPCOLLECTOR_TEST_SAMPLER_H 1

#include <time.h>

/* Installs `handler` for `signo` with an empty mask, restarting the calls it interrupts (a profiler's handler must not make them fail). */
void sampler_install(int signo, void (*handler)(int));

/*
 * Arms, once per thread, a wall-clock timer that sends SIGPROF to the
 * calling thread itself every `period_ns` (under a second): the kernel
 * delivers it whether or not other threads get the CPU, and wakes the
 * thread if it sleeps.
 */
void sampler_arm_thread(long period_ns);

/*
 * The timer sampler_arm_thread arms, for a caller that keeps it (to delete
 * it later): a new wall-clock timer sending SIGPROF to the calling thread
 * every `period_ns` (under a second).  0 when armed, -1 when the timer
 * could not be made.
 */
int sampler_thread_timer(long period_ns, timer_t *timer);

/* Monotonic seconds. */
double sampler_now(void);

/* Computes (user code, in no wait) for `seconds`. */
void sampler_spin_for(double seconds);

#endif
