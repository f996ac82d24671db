/* mpi_calls.h - the MPI calls libompcollect-mpi wraps, by number: the wrapper passes the number to the agent, the record keys its per-call table by it, and reports name it back. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_MPI_CALLS_H
#define OMPCOLLECT_MPI_CALLS_H 1

/*
 * X(name) for every wrapped call, in record order: a number is part of the
 * record's format, so calls are only ever appended.  The first three start
 * and end MPI (OMPC_MPI_SETUP_CALLS): their time is kept apart from the
 * communication, since MPI_Init mostly waits for the job to start.
 */
#define OMPC_MPI_CALL_LIST(X)                                                                                   \
    X(Init) X(Init_thread) X(Finalize) X(Send) X(Ssend) X(Bsend) X(Rsend) X(Recv) X(Sendrecv)                   \
    X(Sendrecv_replace) X(Probe) X(Wait) X(Waitall) X(Waitany) X(Waitsome) X(Barrier) X(Bcast) X(Reduce)        \
    X(Allreduce) X(Reduce_scatter) X(Scan) X(Exscan) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather)   \
    X(Allgatherv) X(Alltoall) X(Alltoallv)

#define OMPC_MPI_CALL_ENUM(name) OMPC_MPI_##name,
enum ompc_mpi_call_id { OMPC_MPI_CALL_LIST(OMPC_MPI_CALL_ENUM) OMPC_MPI_CALL_COUNT };
#undef OMPC_MPI_CALL_ENUM

/* Calls numbered below this are MPI's start and end (Init, Init_thread, Finalize). */
#define OMPC_MPI_SETUP_CALLS 3

/* "MPI_Barrier" for a call's number, NULL outside the list. */
const char *ompc_mpi_call_name(int call);

#endif /* OMPCOLLECT_MPI_CALLS_H */
