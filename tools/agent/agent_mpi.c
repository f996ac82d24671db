/* agent_mpi.c - the agent's side of MPI time: the hooks of the two calls the MPI library (libompcollect-mpi) makes around every MPI call it wraps (interpose.c), which mark the thread as inside MPI for the sampler and add the call's time to the thread's row of the record. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "agent.h"
#include "agent_mpi.h"
#include "interpose.h"

#include <stdatomic.h>

/*
 * How deep the calling thread is in wrapped MPI calls; only the thread
 * itself writes it, so its sampling handler reads it async-signal-safely.
 * Initial-exec: the agent's TLS is in the static block (see agent.c's `self`).
 */
static __thread volatile int mpi_depth __attribute__((tls_model("initial-exec")));
/* When the thread's outermost wrapped call began (CLOCK_MONOTONIC). */
static __thread uint64_t mpi_since __attribute__((tls_model("initial-exec")));

int ompc_mpi_inside(void)
{
    return mpi_depth > 0;
}

void ompc_hook_mpi_enter(void)
{
    /* The start is set before the depth says "inside", so a sample never sees one without the other. */
    if (mpi_depth == 0)
        mpi_since = monotonic_ns();
    atomic_signal_fence(memory_order_seq_cst);
    mpi_depth = mpi_depth + 1;
}

void ompc_hook_mpi_leave(struct ompc_agent *agent)
{
    int depth = mpi_depth;
    if (depth <= 0)
        return;
    mpi_depth = depth - 1;
    if (depth != 1)
        return;
    uint64_t spent = monotonic_ns() - mpi_since;
    struct ompc_process *owner = atomic_load(&agent->process);
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
