/* ompcollect-gains-mpi.c - the MPI-imbalance planted problem of t/ompcollect-gains.sh (make check-gains): 2 ranks, each working in an OpenMP region, rank 1 computing twice what rank 0 does each round before a collective both ranks wait in; fixed: both compute the mean. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../examples/example.h"

/* The unit of work: 5 ms of wall-clock time (example_work, so that the gain of the fix is the program's own whatever the load), long beside a collective's own cost. */
#define UNIT 5e-3

/*
 * One round: the rank works its units in an OpenMP region (rank 0 one,
 * rank 1 two; fixed: 1.5 each, the same total), then the ranks agree on
 * whether time is up.  Rank 0 waits in that collective for the unit rank 1
 * works more; a balanced layout removes half of it from the round.  A team
 * of one thread per rank: 2 ranks fill the 2-core machine the check is
 * made for, and more threads would make the rounds the scheduler's (a
 * spinning waiter beside the working threads of the other rank).
 * Returns whether another round follows.
 */
static __attribute__((noinline)) int mpi_round(int rank, int fixed, double end)
{
    double units = fixed ? 1.5 : rank == 0 ? 1.0 : 2.0;
#pragma omp parallel num_threads(1)
    example_work(units * UNIT);
    int done = example_now() >= end, any = 0;
    MPI_Allreduce(&done, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* @mpiwait */
    return !any;
}

/* Usage: mpirun -np 2 ompcollect-gains-mpi problem|fixed SECONDS; rank 0 prints the rounds and the time they took. */
int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || (strcmp(argv[1], "problem") != 0 && strcmp(argv[1], "fixed") != 0) || size != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -np 2 ompcollect-gains-mpi problem|fixed SECONDS\n");
        MPI_Finalize();
        return 2;
    }
    int fixed = strcmp(argv[1], "fixed") == 0;
    /* Every rank starts its clock together, so that all stop at the same round. */
    MPI_Barrier(MPI_COMM_WORLD);
    double begin = example_now(), end = begin + atof(argv[2]);
    long rounds = 1;
    while (mpi_round(rank, fixed, end))
        rounds++;
    double spent = example_now() - begin;
    if (rank == 0)
        printf("rounds %ld seconds %.6f per_round %.9f\n", rounds, spent, spent / (double)rounds);
    MPI_Finalize();
    return 0;
}
