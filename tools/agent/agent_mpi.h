/* agent_mpi.h - the two functions the agent exports for the MPI library (libompcollect-mpi), which finds them by name: one before and one after every MPI call it wraps. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_MPI_H
#define OMPCOLLECT_AGENT_MPI_H 1

#define OMPC_MPI_ENTER ompcollect_mpi_enter
#define OMPC_MPI_LEAVE ompcollect_mpi_leave
#define OMPC_MPI_ENTER_NAME "ompcollect_mpi_enter"
#define OMPC_MPI_LEAVE_NAME "ompcollect_mpi_leave"

/*
 * Before a wrapped MPI call and after it returns, on the calling thread;
 * ENTER names the call (its number in mpi_calls.h) and its call site (the
 * wrapper's return address).  Calls nest (an MPI library may call its own
 * MPI_ functions): only the outermost is timed.  Neither is
 * async-signal-safe; MPI calls are not made from signal handlers.
 */
void OMPC_MPI_ENTER(int call, const void *site);
void OMPC_MPI_LEAVE(void);

#endif /* OMPCOLLECT_AGENT_MPI_H */
