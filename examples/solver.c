/* solver.c - names in the report: two parallel regions in two named functions, a named critical, a global lock and an explicit barrier, so ompcollect's "Parallel constructs" and "Waits by location" tables have rows to name. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* The global lock the report names by its symbol. */
omp_lock_t lk;
static double total;

/* An imbalanced loop (thread 0 works twice as long), then an explicit barrier the others wait in. */
__attribute__((noinline)) static void solve(double slice)
{
#pragma omp parallel num_threads(2) /* @solve-parallel */
    {
        int me = omp_get_thread_num();
        example_work(me == 0 ? 2 * slice : slice);
#pragma omp barrier /* @solve-barrier */
        example_work(slice / 4);
    }
}

/*
 * Every thread takes the named critical and then the lock, holding each long
 * enough for the other to wait: the lock twice as long as the critical, or
 * the second thread would reach it just as the first lets go.
 */
__attribute__((noinline)) static void update(double slice)
{
#pragma omp parallel num_threads(2) /* @update-parallel */
    {
#pragma omp critical(accum) /* @update-critical */
        {
            example_work(slice);
            total += 1;
        }
        omp_set_lock(&lk); /* @update-lock */
        example_work(2 * slice);
        omp_unset_lock(&lk);
    }
}

int main(int argc, char **argv)
{
    double end = example_now() + example_seconds(argc, argv);
    omp_init_lock(&lk);
    while (example_now() < end) {
        solve(0.002);
        update(0.002);
    }
    omp_destroy_lock(&lk);
    printf("solver: %.0f updates\n", total);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("solver")
#endif
