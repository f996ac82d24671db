/* interpose.h - the hooks behind the agent's exported entry points (interpose.c): each takes the agent's state, which the entry point, called by the C library or the MPI library with their own arguments alone, fetches once. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_INTERPOSE_H
#define OMPCOLLECT_INTERPOSE_H 1

#include "agent_state.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#pragma GCC visibility push(hidden)

/* agent.c: gives a thread the runtime starts its slot and timer before any of its own code runs. */
int ompc_hook_pthread_create(struct ompc_agent *agent, pthread_t *restrict thread,
                             const pthread_attr_t *restrict attributes, void *(*start)(void *),
                             void *restrict argument);

/* agent.c: the program's disposition of the sampling signal kept apart from ours; any other signal goes to `real.sigaction`. */
int ompc_hook_sigaction(struct ompc_agent *agent, int signal_number, const struct sigaction *restrict action,
                        struct sigaction *restrict previous);

/* agent.c: signal, bsd_signal and sysv_signal (`real_signal`), their semantics in `flags` when the sampling signal is emulated. */
sighandler_t ompc_hook_signal(struct ompc_agent *agent, signal_t real_signal, int signal_number,
                              sighandler_t handler, int flags);

/* agent.c: sigprocmask and pthread_sigmask (`change`), with the time the thread blocks the sampling signal recorded. */
int ompc_hook_mask_change(struct ompc_agent *agent, sigmask_t change, int how, const sigset_t *set,
                          sigset_t *previous);

/* agent.c: before every exec, the image's record closed and no sampling signal left pending. */
void ompc_hook_exec_before(struct ompc_agent *agent);

/* agent.c: an exec came back (it failed): the record resumes; `result` and errno pass through. */
int ompc_hook_exec_returned(struct ompc_agent *agent, int result);

/* agent_sleep.c: the sleeps, with the sampling signal held while the thread sleeps; the caller's return address and frame pointer. */
int ompc_hook_nanosleep(struct ompc_agent *agent, const struct timespec *request, struct timespec *remaining,
                        uint64_t caller, uint64_t caller_fp);
int ompc_hook_clock_nanosleep(struct ompc_agent *agent, clockid_t clock, int flags, const struct timespec *request,
                              struct timespec *remaining, uint64_t caller, uint64_t caller_fp);
unsigned int ompc_hook_sleep(struct ompc_agent *agent, unsigned int seconds, uint64_t caller, uint64_t caller_fp);
int ompc_hook_usleep(struct ompc_agent *agent, useconds_t microseconds, uint64_t caller, uint64_t caller_fp);

/* agent_mpi.c: around each MPI call the MPI library wraps; entering needs nothing but the thread's own TLS. */
void ompc_hook_mpi_enter(struct ompc_agent *agent, int call, uint64_t site);
void ompc_hook_mpi_leave(struct ompc_agent *agent);

#pragma GCC visibility pop

#endif /* OMPCOLLECT_INTERPOSE_H */
