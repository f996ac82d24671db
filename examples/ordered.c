/* ordered.c - an ordered loop: each iteration's 1 ms ordered part must wait for the previous iteration's, so threads wait in ODWT. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* About 750 iterations per second of requested time (handing the turn over costs a little): 0.2 ms unordered work, then 1 ms in order. */
int main(int argc, char **argv)
{
    long iterations = (long)(example_seconds(argc, argv) * 750);
    long done = 0;
#pragma omp parallel for ordered schedule(dynamic, 1) num_threads(2)
    for (long i = 0; i < iterations; i++) {
        example_work(0.0002);
#pragma omp ordered
        {
            example_work(0.001);
            done++;
        }
    }
    printf("ordered: %ld iterations\n", done);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("ordered")
#endif
