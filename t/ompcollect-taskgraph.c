/* ompcollect-taskgraph.c - task graphs of known structure for t/ompcollect-taskgraph.sh: fib with a cut-off under one root task; prints how many tasks it made. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic long made;

static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/* Two tasks per call at or above the cut-off, joined by a taskwait: a tree of known shape. */
static __attribute__((noinline)) long fib(int n, int cutoff)
{
    if (n < cutoff)
        return serial_fib(n);
    long x = 0, y = 0;
    atomic_fetch_add(&made, 2);
#pragma omp task shared(x) firstprivate(n, cutoff) /* FIB_X */
    x = fib(n - 1, cutoff);
#pragma omp task shared(y) firstprivate(n, cutoff) /* FIB_Y */
    y = fib(n - 2, cutoff);
#pragma omp taskwait
    return x + y;
}

/* Arguments: n, cut-off (defaults 20 12). */
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int cutoff = argc > 2 ? atoi(argv[2]) : 12;
    long result = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        atomic_fetch_add(&made, 1);
#pragma omp task shared(result) /* ROOT */
        result = fib(n, cutoff);
    }
    printf("taskgraph: fib %d cutoff %d = %ld tasks %ld\n", n, cutoff, result, (long)atomic_load(&made));
    return 0;
}
