/* ompcollect-mpi-wait.c - a hybrid program with a known MPI wait: rank 1 computes SECONDS (serial code) before an MPI_Barrier that rank 0 reaches at once, so rank 0 waits that long inside MPI; each rank prints how long its MPI_Init_thread and MPI_Finalize took by its own clock, the MPI time that is not the barrier's. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Busy for `seconds`: computing, so a sample finds the thread in serial code, not asleep. */
static double compute(double seconds)
{
    double start = now();
    volatile double sum = 0;
    do
        for (int i = 0; i < 10000; i++)
            sum += i * 0.5;
    while (now() - start < seconds);
    return sum;
}

/* Usage: mpirun -np 2 ompcollect-mpi-wait [SECONDS [child]]: rank 1 computes SECONDS (0.5) before the barrier. */
int main(int argc, char **argv)
{
    int provided, rank;
    double start = now();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    double init = now() - start;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double seconds = argc > 1 ? atof(argv[1]) : 0.5;
    double total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    total += compute(0.02);
    if (rank == 1)
        total += compute(seconds);
    start = now();
    MPI_Barrier(MPI_COMM_WORLD);
    double barrier = now() - start;
    start = now();
    MPI_Finalize();
    double finalize = now() - start;
    printf("mpi-wait: rank %d init %.6f barrier %.6f finalize %.6f (%d)\n", rank, init, barrier, finalize,
           total > 0);
    /* "child": a program this one starts, which inherits the environment, says what it loaded. */
    if (argc > 2 && strcmp(argv[2], "child") == 0) {
        fflush(stdout);
        if (system("echo \"mpi-wait: child: $(grep -c libmpi /proc/self/maps) libmpi mappings; preload $LD_PRELOAD\"")
            != 0)
            return 1;
    }
    return 0;
}
