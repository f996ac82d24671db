/* ompcollect-scaling-mpi.c - an MPI+OpenMP program for ompcollect scaling --mpi: each step, rank r shares (r+1) parts of fixed integer work among its OpenMP team, then the ranks meet in an MPI_Allreduce, where the faster ranks wait; only rank 0 prints, an integer sum, so the output is the same at every count. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Usage: mpirun -np N ompcollect-scaling-mpi [STEPS [PARTS]]: STEPS steps of PARTS x (rank + 1) million iterations. */
int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long steps = argc > 1 ? atol(argv[1]) : 10, parts = argc > 2 ? atol(argv[2]) : 10;
    if (steps < 1 || parts < 1) {
        fprintf(stderr, "usage: %s [STEPS [PARTS]]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned long total = 0;
    long n = parts * (rank + 1) * 1000000L;
    for (long step = 0; step < steps; step++) {
        /* Integers: the sum is the same however the team splits it. */
        unsigned long local = 0, global = 0;
#pragma omp parallel for schedule(static) reduction(+ : local)
        for (long i = 0; i < n; i++)
            local += (unsigned long)(i ^ (i >> 3)) * 2654435761UL;
        MPI_Allreduce(&local, &global, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
        total += global;
    }
    if (rank == 0)
        printf("scaling-mpi: %ld steps, sum %lu\n", steps, total);
    MPI_Finalize();
    return 0;
}
