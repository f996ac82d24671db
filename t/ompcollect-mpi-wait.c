/* ompcollect-mpi-wait.c - a hybrid program with a known MPI wait: rank 1 computes SECONDS (serial code) before an MPI_Barrier that rank 0 reaches at once, so rank 0 waits that long inside MPI; both run one short 2-thread region first. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Busy for `seconds` of CLOCK_MONOTONIC: computing, so a sample finds the thread in serial code, not asleep. */
static double compute(double seconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    volatile double sum = 0;
    do {
        for (int i = 0; i < 10000; i++)
            sum += i * 0.5;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
    return sum;
}

/* Usage: mpirun -np 2 ompcollect-mpi-wait [SECONDS]: rank 1 computes SECONDS (0.5) before the barrier. */
int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double seconds = argc > 1 ? atof(argv[1]) : 0.5;
    double total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    total += compute(0.02);
    if (rank == 1)
        total += compute(seconds);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("mpi-wait: rank %d done (%g)\n", rank, total > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
