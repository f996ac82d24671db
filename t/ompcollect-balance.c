/* ompcollect-balance.c - one parallel loop, imbalanced (thread k of 2 does k+1 units of work) or balanced (each does 1.5 units), for ompcollect diff's test: the same construct at the same code location either way, the balanced run a quarter shorter by construction. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "../examples/example.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>

/* One unit of work: 40 ms of wall-clock busy work, long next to the scheduler's delays. */
#define UNIT 0.040
#define REGIONS 10
/* Read at run time: clang -O2 unrolls a loop of 10 into 10 call sites, 10 constructs of one region each. */
static volatile int regions = REGIONS;

/* ompcollect-balance balanced|imbalanced: 10 regions of 2 threads; imbalanced, each lasts 2 units (thread 1's share) and thread 0 waits 1 of them in the barrier; balanced, each lasts 1.5 units. */
int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "balanced") != 0 && strcmp(argv[1], "imbalanced") != 0)) {
        fprintf(stderr, "usage: %s balanced|imbalanced\n", argv[0]);
        return 2;
    }
    int balanced = strcmp(argv[1], "balanced") == 0;
    for (int region = 0; region < regions; region++) {
#pragma omp parallel num_threads(2) /* @loop */
        example_work(balanced ? 1.5 * UNIT : (omp_get_thread_num() + 1) * UNIT);
    }
    printf("%s: %d regions\n", argv[1], REGIONS);
    return 0;
}
#else
EXAMPLE_NEEDS_OPENMP("ompcollect-balance")
#endif
