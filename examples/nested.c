/* nested.c - nested parallelism: each of two outer threads forks its own 2-thread inner region, so inner regions have the outer one as parent. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* Outer regions whose two threads each fork an inner region of 2 threads doing 5 ms of work (about 10 ms on 2 cores). */
int main(int argc, char **argv)
{
    double end = example_now() + example_seconds(argc, argv);
    long outer = 0, inner = 0;
    omp_set_max_active_levels(2);
    while (example_now() < end) {
#pragma omp parallel num_threads(2) reduction(+ : inner)
        {
#pragma omp parallel num_threads(2)
            example_work(0.005);
            inner++;
        }
        outer++;
    }
    printf("nested: %ld outer regions, %ld inner regions\n", outer, inner);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("nested")
#endif
