/* ompcollect-tasksites.c - task constructs of known structure for t/ompcollect-tasksites.sh: fib's two task constructs with a cut-off, a taskloop, untied tasks that yield, and a taskwait with a known wait; prints how many tasks each construct made. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static _Atomic long made_x, made_y, made_loop, made_untied, yields;

static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/*
 * Two task constructs per call at or above the cut-off: the test names
 * them by these lines.  Not inlined, so each construct has one code
 * address (an inlined copy would be a construct of its own, at its
 * caller's line).
 */
static __attribute__((noinline)) long fib(int n, int cutoff)
{
    if (n < cutoff)
        return serial_fib(n);
    long x = 0, y = 0;
    atomic_fetch_add(&made_x, 1);
#pragma omp task shared(x) firstprivate(n, cutoff) /* TASK_X */
    x = fib(n - 1, cutoff);
    atomic_fetch_add(&made_y, 1);
#pragma omp task shared(y) firstprivate(n, cutoff) /* TASK_Y */
    y = fib(n - 2, cutoff);
#pragma omp taskwait /* TASKWAIT_FIB */
    return x + y;
}

/* One taskloop of `tasks` tasks. */
static double loop(int tasks)
{
    static double cells[4096];
#pragma omp taskloop num_tasks(tasks) /* TASKLOOP */
    for (int i = 0; i < 4096; i++) {
        atomic_fetch_add(&made_loop, i % (4096 / tasks) == 0);
        cells[i] = serial_fib(10 + i % 5);
    }
    double sum = 0;
    for (int i = 0; i < 4096; i++)
        sum += cells[i];
    return sum;
}

/* Untied tasks that yield mid-way, so a libomp may resume them elsewhere in parts. */
static long untied(int count)
{
    long sum = 0;
    for (int t = 0; t < count; t++) {
        atomic_fetch_add(&made_untied, 1);
#pragma omp task untied shared(sum) firstprivate(t) /* UNTIED */
        {
            long mine = 0;
            for (int step = 0; step < 4; step++) {
                mine += serial_fib(14 + t % 3);
                atomic_fetch_add(&yields, 1);
#pragma omp taskyield
            }
#pragma omp atomic
            sum += mine;
        }
    }
#pragma omp taskwait
    return sum;
}

/*
 * A long task the creator waits for in a taskwait: the creator goes to
 * the wait only once another thread runs the task, so the wait is sure.
 */
static void long_wait(double seconds)
{
    static _Atomic int started;
    atomic_store(&started, 0);
#pragma omp task /* LONG_TASK */
    {
        atomic_store(&started, 1);
        double until = omp_get_wtime() + seconds;
        while (omp_get_wtime() < until)
            ;
    }
    while (!atomic_load(&started))
        ;
#pragma omp taskwait /* TASKWAIT_LONG */
}

/* Arguments: n, cut-off, taskloop tasks, untied tasks, seconds waited (defaults 24 14 8 16 0.3). */
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 24;
    int cutoff = argc > 2 ? atoi(argv[2]) : 14;
    int loop_tasks = argc > 3 ? atoi(argv[3]) : 8;
    int untied_tasks = argc > 4 ? atoi(argv[4]) : 16;
    double seconds = argc > 5 ? atof(argv[5]) : 0.3;
    long result = 0, untied_sum = 0;
    double loop_sum = 0;
#pragma omp parallel num_threads(2)
    {
        /*
         * No barrier first: libomp 14 can hand gcc code's first tasks here
         * the parallel construct's address, which the shim must correct.
         */
#pragma omp single
    {
        result = fib(n, cutoff);
        loop_sum = loop(loop_tasks);
        untied_sum = untied(untied_tasks);
        long_wait(seconds);
    }
    }
    printf("tasksites: x %ld y %ld loop %ld untied %ld long 1 fib %ld sums %.0f %ld yields %ld\n",
           atomic_load(&made_x), atomic_load(&made_y), atomic_load(&made_loop), atomic_load(&made_untied), result,
           loop_sum, untied_sum, atomic_load(&yields));
    return 0;
}
