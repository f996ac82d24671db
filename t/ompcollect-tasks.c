/* ompcollect-tasks.c - a fib-style task program for t/ompcollect-tasks.sh: deferred tasks with taskwait above a cut-off, undeferred if(0) tasks beside them, and the counts it made printed for the test to compare with the report. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic long deferred, undeferred;

/* The cut-off's serial part: the work the tasks do. */
static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/* fib with two deferred tasks and a taskwait per call above the cut-off, serial below it. */
static long fib(int n, int cutoff)
{
    if (n < cutoff)
        return serial_fib(n);
    long x = 0, y = 0;
    atomic_fetch_add(&deferred, 2);
#pragma omp task shared(x) firstprivate(n, cutoff)
    x = fib(n - 1, cutoff);
#pragma omp task shared(y) firstprivate(n, cutoff)
    y = fib(n - 2, cutoff);
#pragma omp taskwait
    return x + y;
}

/* Arguments: n, cut-off, undeferred tasks, repetitions (defaults 30 18 40 2). */
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30;
    int cutoff = argc > 2 ? atoi(argv[2]) : 18;
    int immediate = argc > 3 ? atoi(argv[3]) : 40;
    int repeat = argc > 4 ? atoi(argv[4]) : 2;
    long result = 0, sink = 0;
    for (int r = 0; r < repeat; r++) {
#pragma omp parallel num_threads(2)
#pragma omp single
        {
            result = fib(n, cutoff);
            for (int i = 0; i < immediate; i++) {
                atomic_fetch_add(&undeferred, 1);
#pragma omp task if (0) shared(sink) firstprivate(i)
                sink += serial_fib(12 + i % 3);
            }
        }
    }
    printf("tasks: deferred %ld undeferred %ld fib %ld sink %ld\n", atomic_load(&deferred),
           atomic_load(&undeferred), result, sink);
    return 0;
}
