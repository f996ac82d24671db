/* interpose.c - every C library function the agent interposes, and the two calls it exports for the MPI library, as trampolines into the hooks of the modules that own the behaviour, each handed the agent's state. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The C library and the MPI library call these with their own arguments
 * and nothing else, so each fetches the state (ompc_agent_instance) and
 * hands it on; the behaviour, and why it is there, is the hook's.  Each
 * says whether it may be called from a signal handler: where the C
 * library's own function is async-signal-safe, a program may rely on it.
 * "Once resolved": OMPC_RESOLVE's dlsym is not async-signal-safe, but the
 * constructor of an observed process has already run it, so only a
 * process the agent does not observe can reach it from a handler first.
 */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent_mpi.h"
#include "agent_state.h"
#include "interpose.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#define AGENT_EXPORT __attribute__((visibility("default")))

/* ---- threads ---- */

/* Not async-signal-safe (allocates the new thread's start box); nor is the C library's. */
AGENT_EXPORT int pthread_create(pthread_t *restrict thread, const pthread_attr_t *restrict attributes,
                                void *(*start)(void *), void *restrict argument)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, pthread_create);
    return ompc_hook_pthread_create(agent, thread, attributes, start, argument);
}

/* ---- signal dispositions and masks ---- */

/* Async-signal-safe once resolved: the C library's sigaction, or two copies switched by an atomic and the clock. */
AGENT_EXPORT int sigaction(int signal_number, const struct sigaction *restrict action,
                           struct sigaction *restrict previous)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, sigaction);
    return ompc_hook_sigaction(agent, signal_number, action, previous);
}

/* Async-signal-safe once resolved, as sigaction: the emulation is a call of it. */
AGENT_EXPORT sighandler_t signal(int signal_number, sighandler_t handler)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, signal);
    return ompc_hook_signal(agent, agent->real.signal, signal_number, handler, SA_RESTART);
}

/* Async-signal-safe once resolved, as signal; signal's BSD semantics. */
AGENT_EXPORT sighandler_t bsd_signal(int signal_number, sighandler_t handler)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, bsd_signal);
    return ompc_hook_signal(agent, agent->real.bsd_signal, signal_number, handler, SA_RESTART);
}

/* Async-signal-safe once resolved, as signal; one-shot, not blocked during its handler. */
AGENT_EXPORT sighandler_t sysv_signal(int signal_number, sighandler_t handler)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, sysv_signal);
    return ompc_hook_signal(agent, agent->real.sysv_signal, signal_number, handler, SA_RESETHAND | SA_NODEFER);
}

/* Async-signal-safe once resolved: the thread's own slot, atomics and the clock around the C library's call. */
AGENT_EXPORT int sigprocmask(int how, const sigset_t *restrict set, sigset_t *restrict previous)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, sigprocmask);
    return ompc_hook_mask_change(agent, agent->real.sigprocmask, how, set, previous);
}

/* Async-signal-safe once resolved, as sigprocmask. */
AGENT_EXPORT int pthread_sigmask(int how, const sigset_t *restrict set, sigset_t *restrict previous)
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, pthread_sigmask);
    return ompc_hook_mask_change(agent, agent->real.pthread_sigmask, how, set, previous);
}

/* ---- exec ---- */

/* Not async-signal-safe, though the C library's is: closing the record takes the slots' lock. */
AGENT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, execve);
    ompc_hook_exec_before(agent);
    return ompc_hook_exec_returned(agent, agent->real.execve(path, argv, envp));
}

/* Not async-signal-safe: the slots' lock, as execve. */
AGENT_EXPORT int execv(const char *path, char *const argv[])
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, execv);
    ompc_hook_exec_before(agent);
    return ompc_hook_exec_returned(agent, agent->real.execv(path, argv));
}

/* Not async-signal-safe: the slots' lock, as execve (nor is the C library's, which searches PATH). */
AGENT_EXPORT int execvp(const char *file, char *const argv[])
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, execvp);
    ompc_hook_exec_before(agent);
    return ompc_hook_exec_returned(agent, agent->real.execvp(file, argv));
}

/* Not async-signal-safe: the slots' lock, as execvp. */
AGENT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, execvpe);
    ompc_hook_exec_before(agent);
    return ompc_hook_exec_returned(agent, agent->real.execvpe(file, argv, envp));
}

/* Not async-signal-safe, though the C library's is: the slots' lock, as execve. */
AGENT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    struct ompc_agent *agent = ompc_agent_instance();
    OMPC_RESOLVE(agent, fexecve);
    ompc_hook_exec_before(agent);
    return ompc_hook_exec_returned(agent, agent->real.fexecve(fd, argv, envp));
}

/*
 * Declares `argv`, the execl-style list from `first` on as execv takes it
 * (its NULL included), and leaves `args` just past that NULL, where
 * execle's environment follows; the caller va_ends `args`.  A macro, not a
 * function: the array's length is known only by reading the list, and
 * both the array (a VLA) and the list live in the interposer's frame.
 */
#define LIST_ARGV(argv, first, args)                                          \
    size_t argv##_count = 1;                                                  \
    va_start(args, first);                                                    \
    while (va_arg(args, const char *) != NULL)                                \
        argv##_count++;                                                       \
    va_end(args);                                                             \
    char *argv[argv##_count + 1];                                             \
    va_start(args, first);                                                    \
    argv[0] = (char *)(first);                                                \
    for (size_t argv##_next = 1; argv##_next <= argv##_count; argv##_next++) \
        argv[argv##_next] = va_arg(args, char *)

/* Not async-signal-safe: goes through execv (the exported one, as the program's own call would). */
AGENT_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list args;
    LIST_ARGV(argv, arg, args);
    va_end(args);
    return execv(path, argv);
}

/* Not async-signal-safe: goes through execvp. */
AGENT_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list args;
    LIST_ARGV(argv, arg, args);
    va_end(args);
    return execvp(file, argv);
}

/* Not async-signal-safe, though the C library's is: goes through execve; the environment follows the list's NULL. */
AGENT_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list args;
    LIST_ARGV(argv, arg, args);
    char *const *envp = va_arg(args, char *const *);
    va_end(args);
    return execve(path, argv, envp);
}

/* ---- sleeps ---- */

/*
 * A hooked sleep's caller: its return address, and the frame pointer it
 * had, as this function's own frame record saved it (taking the frame's
 * address gives the function one).  Read here, before the tail call takes
 * the frame away: a frame-pointer walk of the sleep's samples starts there.
 */
#define SLEEP_CALLER (uint64_t)__builtin_return_address(0), *(const uint64_t *)__builtin_frame_address(0)

/* Async-signal-safe once resolved, as the C library's: a mask change around its call. */
AGENT_EXPORT int nanosleep(const struct timespec *request, struct timespec *remaining)
{
    return ompc_hook_nanosleep(ompc_agent_instance(), request, remaining, SLEEP_CALLER);
}

/* Async-signal-safe once resolved, as nanosleep. */
AGENT_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request,
                                 struct timespec *remaining)
{
    return ompc_hook_clock_nanosleep(ompc_agent_instance(), clock, flags, request, remaining, SLEEP_CALLER);
}

/* Async-signal-safe once resolved, as nanosleep. */
AGENT_EXPORT unsigned int sleep(unsigned int seconds)
{
    return ompc_hook_sleep(ompc_agent_instance(), seconds, SLEEP_CALLER);
}

/* Adds nothing unsafe to the C library's usleep (which POSIX does not call async-signal-safe): as nanosleep. */
AGENT_EXPORT int usleep(useconds_t microseconds)
{
    return ompc_hook_usleep(ompc_agent_instance(), microseconds, SLEEP_CALLER);
}

/* ---- MPI (agent_mpi.h) ---- */

/* Not async-signal-safe; MPI calls are not made from signal handlers.  Claims a row of the process's MPI call-site table (lock-free). */
AGENT_EXPORT void OMPC_MPI_ENTER(int call, const void *site)
{
    ompc_hook_mpi_enter(ompc_agent_instance(), call, (uint64_t)(uintptr_t)site);
}

/* Not async-signal-safe: may claim the thread's slot under the slots' lock. */
AGENT_EXPORT void OMPC_MPI_LEAVE(void)
{
    ompc_hook_mpi_leave(ompc_agent_instance());
}
