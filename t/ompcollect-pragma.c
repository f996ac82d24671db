/* ompcollect-pragma.c - parallel constructs whose runtime call GCC puts on another line than the pragma (a loop's, a declaration's before it, in an inlined function), and a task and taskwait in a region's body, which compilers outline out of their function, for t/ompcollect-pragma.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double cells[4096];

/* Inlined into main, with arrays sized at run time declared before the construct, as LULESH's time constraints are. */
static inline double spread(int threads, int n)
{
    double low[threads];
    int where[threads];
#pragma omp parallel num_threads(2) /* PRAGMA */
    {
        int me = omp_get_thread_num();
        low[me] = 1e300;
        where[me] = -1;
#pragma omp for
        for (int i = 0; i < n; i++)
            if (cells[i] < low[me]) {
                low[me] = cells[i];
                where[me] = i;
            }
    }
    return low[0] + where[0] + low[threads - 1];
}

int main(int argc, char **argv)
{
    int regions = argc > 1 ? atoi(argv[1]) : 8, n = 4096;
    double sum = 0;
    for (int r = 0; r < regions; r++) {
#pragma omp parallel for num_threads(2) reduction(+ : sum) /* PRAGMA */
        for (int i = 0; i < n; i++)
            sum += cells[i] = (i * 7 + r) % 13;
    }
    sum += spread(omp_get_max_threads() > 2 ? omp_get_max_threads() : 2, n);
#pragma omp parallel num_threads(2) /* PRAGMA */
    {
#pragma omp atomic
        sum += 1;
#pragma omp single
        {
#pragma omp task /* TASK_IN_BODY */
            cells[0] += 1;
#pragma omp taskwait /* TASKWAIT_IN_BODY */
        }
    }
    printf("pragma: %d regions, sum %.0f\n", regions + 2, sum);
    return 0;
}
