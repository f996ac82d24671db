/* agent_mpi.c - the agent's side of MPI time: the hooks of the two calls the MPI library (libompcollect-mpi) makes around every MPI call it wraps (interpose.c), which mark the thread (and, for the initial thread, the process) as inside MPI for the sampler and add the call's time to the thread's row and to its call site's row of the record. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "agent.h"
#include "agent_mpi.h"
#include "interpose.h"

#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * How deep the calling thread is in wrapped MPI calls; only the thread
 * itself writes it, so its sampling handler reads it async-signal-safely.
 * Initial-exec: the agent's TLS is in the static block (see agent.c's `self`).
 */
static __thread volatile int mpi_depth __attribute__((tls_model("initial-exec")));
/* When the thread's outermost wrapped call began (CLOCK_MONOTONIC). */
static __thread uint64_t mpi_since __attribute__((tls_model("initial-exec")));
/* The outermost call's call-site row, -1 when it has none; the call's number (mpi_calls.h). */
static __thread volatile int mpi_row __attribute__((tls_model("initial-exec")));
static __thread int mpi_call __attribute__((tls_model("initial-exec")));
/* 0 not known yet, 1 the process's initial thread, 2 another (asked once: a system call per MPI call would cost). */
static __thread int mpi_initial __attribute__((tls_model("initial-exec")));
/*
 * The initial thread is inside a wrapped call: the other threads' IDLE
 * samples meanwhile are their team waiting for its master's MPI, not for
 * serial code.  Process-wide, written by the initial thread only.
 */
static atomic_int initial_inside;

int ompc_mpi_inside(void)
{
    return mpi_depth > 0;
}

int ompc_mpi_initial_inside(void)
{
    return atomic_load_explicit(&initial_inside, memory_order_relaxed);
}

int ompc_mpi_site_row(void)
{
    return mpi_depth > 0 ? mpi_row : -1;
}

/* The row of the call at `site`, claimed before the depth says "inside" so the sampler finds it set. */
static int site_row(struct ompc_agent *agent, int call, uint64_t site)
{
    struct ompc_process *owner = atomic_load(&agent->process);
    return owner != NULL ? ompc_record_mpi_site(owner, call, site) : -1;
}

void ompc_hook_mpi_enter(struct ompc_agent *agent, int call, uint64_t site)
{
    /* The start and the row are set before the depth says "inside", so a sample never sees one without the other. */
    if (mpi_depth == 0) {
        if (mpi_initial == 0)
            mpi_initial = syscall(SYS_gettid) == getpid() ? 1 : 2;
        mpi_call = call;
        mpi_row = site_row(agent, call, site);
        mpi_since = monotonic_ns();
        if (mpi_initial == 1)
            atomic_store_explicit(&initial_inside, 1, memory_order_relaxed);
    }
    atomic_signal_fence(memory_order_seq_cst);
    mpi_depth = mpi_depth + 1;
}

/* The outermost call's time in its call site's row, and MPI's start and end also apart. */
static void add_to_site(struct ompc_process *owner, uint64_t spent)
{
    int row = mpi_row;
    if (row >= 0 && row < OMPC_MPI_SITES) {
        atomic_fetch_add_explicit(&owner->mpi_sites[row].ns, spent, memory_order_relaxed);
        atomic_fetch_add_explicit(&owner->mpi_sites[row].calls, 1, memory_order_relaxed);
    }
    if (mpi_call >= 0 && mpi_call < OMPC_MPI_SETUP_CALLS) {
        atomic_fetch_add_explicit(&owner->mpi_setup_ns, spent, memory_order_relaxed);
        atomic_fetch_add_explicit(&owner->mpi_setup_calls, 1, memory_order_relaxed);
    }
}

void ompc_hook_mpi_leave(struct ompc_agent *agent)
{
    int depth = mpi_depth;
    if (depth <= 0)
        return;
    mpi_depth = depth - 1;
    if (depth != 1)
        return;
    if (mpi_initial == 1)
        atomic_store_explicit(&initial_inside, 0, memory_order_relaxed);
    uint64_t spent = monotonic_ns() - mpi_since;
    struct ompc_process *owner = atomic_load(&agent->process);
    if (owner != NULL)
        add_to_site(owner, spent);
    /* MPI calls come after the runtime's start, when the thread has its slot; one past the limit has no row. */
    struct ompc_thread *slot = owner != NULL ? ompc_current_thread() : NULL;
    if (slot == NULL || slot < owner->threads || slot >= owner->threads + OMPC_MAX_THREADS)
        return;
    struct ompc_mpi_thread *row = &owner->mpi_threads[slot - owner->threads];
    atomic_fetch_add_explicit(&row->ns, spent, memory_order_relaxed);
    atomic_fetch_add_explicit(&row->calls, 1, memory_order_relaxed);
    if (atomic_load_explicit(&owner->mpi_active, memory_order_relaxed) == 0)
        atomic_store_explicit(&owner->mpi_active, 1, memory_order_relaxed);
}
