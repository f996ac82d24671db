/* ompcollect-tasks.c - a fib-style task program for t/ompcollect-tasks.sh: deferred tasks with taskwait above a cut-off, undeferred if(0) tasks beside them, and the counts it made printed for the test to compare with the report. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic long deferred, undeferred;
/* The single's thread, and whether a task of this repetition ran on the other thread. */
static int single_thread;
static _Atomic int stolen;

/* The cut-off's serial part: the work the tasks do. */
static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/*
 * fib with two deferred tasks and a taskwait per call above the cut-off,
 * serial below it.  The top call (`top`) waits, before its taskwait, until
 * the other thread has run one of them: that thread is in the single's
 * barrier, so a task runs inside a barrier however busy the machine.
 */
static long fib(int n, int cutoff, int top)
{
    if (omp_get_thread_num() != single_thread)
        atomic_store(&stolen, 1);
    if (n < cutoff)
        return serial_fib(n);
    long x = 0, y = 0;
    atomic_fetch_add(&deferred, 2);
#pragma omp task shared(x) firstprivate(n, cutoff)
    x = fib(n - 1, cutoff, 0);
#pragma omp task shared(y) firstprivate(n, cutoff)
    y = fib(n - 2, cutoff, 0);
    while (top && omp_get_num_threads() > 1 && !atomic_load(&stolen))
        ;
#pragma omp taskwait
    return x + y;
}

/* Wall-clock seconds (CLOCK_MONOTONIC, the sampler's timers' clock). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Arguments: n, cut-off, undeferred tasks, repetitions (defaults 30 18 40
 * 2), and the least seconds to go on repeating for (default 0): a check
 * that needs samples gives a time, so a fast machine still gives them.
 */
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30;
    int cutoff = argc > 2 ? atoi(argv[2]) : 18;
    int immediate = argc > 3 ? atoi(argv[3]) : 40;
    int repeat = argc > 4 ? atoi(argv[4]) : 2;
    double seconds = argc > 5 ? atof(argv[5]) : 0, until = now() + seconds;
    long result = 0, sink = 0;
    int r;
    for (r = 0; r < repeat || now() < until; r++) {
#pragma omp parallel num_threads(2)
#pragma omp single
        {
            single_thread = omp_get_thread_num();
            atomic_store(&stolen, 0);
            result = fib(n, cutoff, 1);
            for (int i = 0; i < immediate; i++) {
                atomic_fetch_add(&undeferred, 1);
#pragma omp task if (0) shared(sink) firstprivate(i)
                sink += serial_fib(12 + i % 3);
            }
        }
    }
    printf("tasks: deferred %ld undeferred %ld fib %ld sink %ld repetitions %d\n", atomic_load(&deferred),
           atomic_load(&undeferred), result, sink, r);
    return 0;
}
