/* mpi_wrap.c - libompcollect-mpi, which ompcollect preloads into programs that load libmpi: the blocking and collective MPI calls of the C bindings, each passed to its PMPI_ name between the agent's "entering MPI" and "left MPI" calls, so the agent times it and the sampler counts it as MPI. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "agent_mpi.h"
#include "mpi_calls.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdatomic.h>

/*
 * The library does not link libmpi: each PMPI_ call is looked up, on its
 * first use, in the libmpi the program loaded (RTLD_NEXT: the objects after
 * this one), so a program an MPI program starts inherits the preload without
 * loading libmpi.  The launcher preloads it only into programs whose libmpi
 * has the soname of the one whose mpi.h it was compiled with (OMPC_MPI_SONAME).
 *
 * Calls from the Fortran bindings are not wrapped: Open MPI's and MPICH's
 * go to the PMPI_ layer or to internal functions without passing the C
 * names here.  MPI-3 made the send buffers const.
 */
#if defined(MPI_VERSION) && MPI_VERSION >= 3
#define CONST const
#else
#define CONST
#endif

typedef void (*enter_t)(int, const void *);
typedef void (*hook_t)(void);
/* The agent's two calls, found once at load (the launcher preloads the agent first); NULL without an agent, and then every wrapper only passes its call on. */
static enter_t enter_hook;
static hook_t leave_hook;

__attribute__((constructor)) static void find_agent(void)
{
    enter_t enter = (enter_t)dlsym(RTLD_DEFAULT, OMPC_MPI_ENTER_NAME);
    hook_t leave = (hook_t)dlsym(RTLD_DEFAULT, OMPC_MPI_LEAVE_NAME);
    if (enter != NULL && leave != NULL) {
        enter_hook = enter;
        leave_hook = leave;
    }
}

static inline void enter(int call, const void *site)
{
    if (enter_hook != NULL)
        enter_hook(call, site);
}

static inline void leave(void)
{
    if (leave_hook != NULL)
        leave_hook();
}

/*
 * The PMPI_ function `name` of the loaded libmpi, looked up once (two
 * threads looking it up at once store the same address).  NULL when no
 * libmpi is loaded: then nothing called this MPI_ name through libmpi's
 * header, and the wrapper answers MPI_ERR_INTERN.
 */
static void *pmpi(void *_Atomic *cache, const char *name)
{
    void *function = atomic_load_explicit(cache, memory_order_acquire);
    if (function == NULL) {
        function = dlsym(RTLD_NEXT, name);
        atomic_store_explicit(cache, function, memory_order_release);
    }
    return function;
}

/* One wrapper: MPI_name(params) { enter; PMPI_name(args); leave }, visible to the program (the library is built hidden); its return address is the program's call site. */
#define WRAP(name, params, args)                                                        \
    __attribute__((visibility("default"))) int MPI_##name params                        \
    {                                                                                   \
        static void *_Atomic cache;                                                     \
        __typeof__(&PMPI_##name) real = (__typeof__(&PMPI_##name))pmpi(&cache, "PMPI_" #name); \
        if (real == NULL)                                                               \
            return MPI_ERR_INTERN;                                                      \
        enter(OMPC_MPI_##name, __builtin_return_address(0));                            \
        int result = real args;                                                         \
        leave();                                                                        \
        return result;                                                                  \
    }

/* Start-up and shutdown: MPI_Init often waits for every rank to arrive. */
WRAP(Init, (int *argc, char ***argv), (argc, argv))
WRAP(Init_thread, (int *argc, char ***argv, int required, int *provided), (argc, argv, required, provided))
WRAP(Finalize, (void), ())

/* Point to point. */
WRAP(Send, (CONST void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),
     (buf, count, type, dest, tag, comm))
WRAP(Ssend, (CONST void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),
     (buf, count, type, dest, tag, comm))
WRAP(Bsend, (CONST void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),
     (buf, count, type, dest, tag, comm))
WRAP(Rsend, (CONST void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),
     (buf, count, type, dest, tag, comm))
WRAP(Recv, (void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status),
     (buf, count, type, source, tag, comm, status))
WRAP(Sendrecv,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount,
      MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status),
     (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status))
WRAP(Sendrecv_replace,
     (void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
      MPI_Status *status),
     (buf, count, type, dest, sendtag, source, recvtag, comm, status))
WRAP(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status), (source, tag, comm, status))

/* Completion. */
WRAP(Wait, (MPI_Request *request, MPI_Status *status), (request, status))
WRAP(Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]), (count, requests, statuses))
WRAP(Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status),
     (count, requests, index, status))
WRAP(Waitsome, (int count, MPI_Request requests[], int *done, int indices[], MPI_Status statuses[]),
     (count, requests, done, indices, statuses))

/* Collectives. */
WRAP(Barrier, (MPI_Comm comm), (comm))
WRAP(Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm), (buf, count, type, root, comm))
WRAP(Reduce,
     (CONST void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm),
     (sendbuf, recvbuf, count, type, op, root, comm))
WRAP(Allreduce, (CONST void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sendbuf, recvbuf, count, type, op, comm))
WRAP(Reduce_scatter,
     (CONST void *sendbuf, void *recvbuf, CONST int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sendbuf, recvbuf, counts, type, op, comm))
WRAP(Scan, (CONST void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sendbuf, recvbuf, count, type, op, comm))
WRAP(Exscan, (CONST void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sendbuf, recvbuf, count, type, op, comm))
WRAP(Gather,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
      int root, MPI_Comm comm),
     (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
WRAP(Gatherv,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, CONST int recvcounts[],
      CONST int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),
     (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))
WRAP(Scatter,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
      int root, MPI_Comm comm),
     (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))
WRAP(Scatterv,
     (CONST void *sendbuf, CONST int sendcounts[], CONST int displs[], MPI_Datatype sendtype, void *recvbuf,
      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),
     (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))
WRAP(Allgather,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
      MPI_Comm comm),
     (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
WRAP(Allgatherv,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, CONST int recvcounts[],
      CONST int displs[], MPI_Datatype recvtype, MPI_Comm comm),
     (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
WRAP(Alltoall,
     (CONST void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
      MPI_Comm comm),
     (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
WRAP(Alltoallv,
     (CONST void *sendbuf, CONST int sendcounts[], CONST int sdispls[], MPI_Datatype sendtype, void *recvbuf,
      CONST int recvcounts[], CONST int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),
     (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
