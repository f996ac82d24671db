/* hybrid.c - MPI+OpenMP: every rank runs 2-thread regions, rank r with r+1 times rank 0's work, and all ranks meet in an MPI_Allreduce after each, so the ranks are imbalanced and the faster ones wait in MPI. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#include <mpi.h>

#ifdef _OPENMP
#include <omp.h>

/* Usage: mpirun -np N hybrid [SECONDS]: about SECONDS of 20 ms steps on the slowest rank. */
int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = example_seconds(argc, argv);
    long steps = (long)(seconds / 0.02);
    if (steps < 1)
        steps = 1;
    /* The slowest rank (size - 1) works 20 ms per step, rank 0 20/size ms. */
    double step_work = 0.02 * (rank + 1) / size;
    double total = 0;
    for (long step = 0; step < steps; step++) {
        double local = 0, global = 0;
#pragma omp parallel num_threads(2) reduction(+ : local)
        {
            example_work(step_work);
            local += 1;
        }
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        total += global;
    }
    printf("hybrid: rank %d of %d, %ld regions, %.0f thread-steps in all\n", rank, size, steps, total);
    MPI_Finalize();
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("hybrid")
#endif
