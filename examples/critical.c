/* critical.c - a contended critical: two threads take turns holding one critical section for 2 ms, so each waits to enter it (CTWT). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* Each thread alternates 0.5 ms of its own work with 2 ms inside the critical, which the other always wants by then. */
int main(int argc, char **argv)
{
    double end = example_now() + example_seconds(argc, argv);
    long entries = 0;
    static struct example_turns turns;
#pragma omp parallel num_threads(2) reduction(+ : entries)
    {
        int me = omp_get_thread_num(), team = omp_get_num_threads();
        while (example_now() < end) {
            example_work(0.0005);
            example_turn_wanted(&turns, me);
#pragma omp critical(ompcollect_example)
            {
                example_turn_begins(&turns, me, team);
                example_work(0.002);
            }
            entries++;
        }
        example_turns_end(&turns, me);
    }
    printf("critical: %ld entries\n", entries);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("critical")
#endif
