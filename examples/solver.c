/* solver.c - names in the report: two parallel regions in two named functions, a named critical, a global lock and an explicit barrier, each wait made certain, so ompcollect's "Parallel constructs" and "Waits by location" tables have rows to name however busy the machine is. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Left to chance, the second thread often arrives at the critical or the
 * lock after the first has let go (a loaded machine makes it likely), and
 * the report then has no wait to name.  So the first holder keeps each
 * resource until the other thread has announced that it wants it, and
 * thread 0 works on until thread 1 has reached the barrier.  The name
 * tests (t/ompcollect-names.sh, t/ompcollect-tables.sh) build this file
 * and find the constructs by the @markers: keep them on the lines the
 * runtime reports.
 */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* The global lock the report names by its symbol. */
omp_lock_t lk;
static double total;
/* Per region: the threads that have asked for the critical and the lock, and that have held them. */
static _Atomic int critical_wanted, critical_held, lock_wanted, lock_held;
/* Thread 1 has reached the barrier; thread 0 goes on working until then. */
static _Atomic int at_barrier;

/* The thread holding a resource, the first of `team` to: keep it until every thread wants it. */
static void hold_until_wanted(_Atomic int *wanted, _Atomic int *held, int team)
{
    if (atomic_fetch_add(held, 1) == 0)
        while (atomic_load(wanted) < team)
            sched_yield();
}

/* An imbalanced loop (thread 0 works twice as long, and at least until thread 1 waits), then an explicit barrier the other waits in. */
__attribute__((noinline)) static void solve(double slice)
{
    atomic_store(&at_barrier, 0);
#pragma omp parallel num_threads(2) /* @solve-parallel */
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        example_work(me == 0 ? 2 * slice : slice);
        if (me != 0)
            atomic_store(&at_barrier, 1);
        else
            while (team == 2 && !atomic_load(&at_barrier))
                sched_yield();
        if (me == 0)
            example_work(slice);
#pragma omp barrier /* @solve-barrier */
        example_work(slice / 4);
    }
}

/* Every thread takes the named critical and then the lock, each held until the other thread wants it, and then for `slice`. */
__attribute__((noinline)) static void update(double slice)
{
    atomic_store(&critical_wanted, 0);
    atomic_store(&critical_held, 0);
    atomic_store(&lock_wanted, 0);
    atomic_store(&lock_held, 0);
#pragma omp parallel num_threads(2) /* @update-parallel */
    {
        int team = omp_get_num_threads();
        atomic_fetch_add(&critical_wanted, 1);
#pragma omp critical(accum) /* @update-critical */
        {
            hold_until_wanted(&critical_wanted, &critical_held, team);
            example_work(slice);
            total += 1;
        }
        atomic_fetch_add(&lock_wanted, 1);
        omp_set_lock(&lk); /* @update-lock */
        hold_until_wanted(&lock_wanted, &lock_held, team);
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
