/* imbalance.c - load imbalance: in each 2-thread region thread 1 has a tenth of thread 0's work, so it waits in the implicit barrier (IBAR). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "example.h"

#ifdef _OPENMP
#include <omp.h>

/* Back-to-back 20 ms regions for the requested time, and at least as many as a second argument asks; thread 1 works 2 ms of each. */
int main(int argc, char **argv)
{
    double end = example_now() + example_seconds(argc, argv);
    long regions = 0, least = argc > 2 ? atol(argv[2]) : 0;
    while (example_now() < end || regions < least) {
#pragma omp parallel num_threads(2)
        example_work(omp_get_thread_num() == 0 ? 0.020 : 0.002);
        regions++;
    }
    printf("imbalance: %ld regions\n", regions);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("imbalance")
#endif
