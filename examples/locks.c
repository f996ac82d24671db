/* locks.c - lock contention: two threads take turns holding one omp_lock_t for 2 ms, so each waits in omp_set_lock (LKWT). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* Each thread alternates 0.5 ms of its own work with 2 ms holding the lock, which the other always wants by then. */
int main(int argc, char **argv)
{
    double end = example_now() + example_seconds(argc, argv);
    long acquisitions = 0;
    static struct example_turns turns;
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel num_threads(2) reduction(+ : acquisitions)
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        while (example_now() < end) {
            example_work(0.0005);
            example_turn_wanted(&turns, me);
            omp_set_lock(&lock);
            example_turn_begins(&turns, me, team);
            example_work(0.002);
            omp_unset_lock(&lock);
            acquisitions++;
        }
        example_turns_end(&turns, me);
    }
    omp_destroy_lock(&lock);
    printf("locks: %ld acquisitions\n", acquisitions);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("locks")
#endif
