/* ompcollect-advice.c - OpenMP programs whose efficiency and potential gains are known by construction, for t/ompcollect-advice.sh: an imbalanced loop beside its balanced variant, a hot critical, and a run that is serial and imbalanced for known times. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>

/* Seconds on the monotonic clock. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Busy for `seconds` of wall-clock time.  Every unit of work here lasts
 * its wall time whatever the machine's load, so what balancing saves is
 * the program's own, not the scheduler's: on a loaded machine a thread
 * left alone at the end of an imbalanced loop runs faster than two
 * balanced ones would, which CPU-bound units would count as a saving.
 */
static void busy(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        continue;
}

/* qsort order for doubles, smallest first. */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Thread k gets k+1 units; a function of its own, so the construct's line is the pragma's, not the caller's loop's. */
static __attribute__((noinline)) void imbalanced_loop(double unit)
{
#pragma omp parallel for schedule(static, 1) num_threads(2) /* @imbalanced */
    for (int k = 0; k < 2; k++)
        busy((k + 1) * unit);
}

/* The same work, 1.5 units each. */
static __attribute__((noinline)) void balanced_loop(double unit)
{
#pragma omp parallel for schedule(static, 1) num_threads(2) /* @balanced */
    for (int k = 0; k < 2; k++)
        busy(1.5 * unit);
}

/*
 * Two threads, `rounds` times: a loop in which thread k gets k+1 units of
 * work, then the same work balanced (1.5 units each).  Run side by side,
 * both see the same load, so the time the balanced loop saves is measured
 * under the conditions the imbalanced one was profiled in; each instance
 * is timed, and the medians say what one typically took.
 */
static void imbalance(int rounds, double unit)
{
    double *took = calloc(2 * (size_t)(rounds > 0 ? rounds : 1), sizeof *took);
    if (took == NULL)
        return;
    for (int round = 0; round < rounds; round++) {
        double begin = now();
        imbalanced_loop(unit);
        double middle = now();
        balanced_loop(unit);
        took[round] = (middle - begin) / unit;
        took[rounds + round] = (now() - middle) / unit;
    }
    /* The typical instance of each, in units: what balancing saves without the odd one a loaded machine delayed. */
    qsort(took, (size_t)rounds, sizeof *took, compare_doubles);
    qsort(took + rounds, (size_t)rounds, sizeof *took, compare_doubles);
    printf("medians %.4f %.4f units\n", took[rounds / 2], took[rounds + rounds / 2]);
    free(took);
}

/* Two threads each entering one critical `entries` times, doing four times as much inside as outside. */
static void critical(int entries, double inside)
{
    long total = 0;
#pragma omp parallel num_threads(2)
    for (int i = 0; i < entries; i++) {
        busy(inside / 4);
#pragma omp critical /* @critical */
        {
            busy(inside);
            total++;
        }
    }
    printf("%ld entries\n", total);
}

/*
 * Two threads for 16 steps of `step` seconds: 6 balanced in parallel, 4
 * serial (the worker idle), then 6 in a region where thread 0 works 2 and
 * waits 4 at the barrier.  Of the 32 thread-steps, 24 are useful (parallel
 * efficiency 0.75), 4 are idle (serialisation 0.875) and 4 are the barrier
 * waiting balance would remove (load balance 0.875).
 */
static void synthetic(double step)
{
    double begin = now();
#pragma omp parallel num_threads(2)
    busy(6 * step);
    double parallel1 = now();
    busy(4 * step);
    double serial = now();
#pragma omp parallel num_threads(2)
    busy(omp_get_thread_num() == 0 ? 2 * step : 6 * step);
    double end = now();
    /* What the phases took: the construction holds only when the threads ran when asked. */
    printf("phases %.4f %.4f %.4f steps\n", (parallel1 - begin) / step, (serial - parallel1) / step,
           (end - serial) / step);
}

/*
 * fib(n) with one task construct: a call above `cutoff` makes fib(n - 1) a
 * task and computes fib(n - 2) itself.  With a small cutoff most tasks
 * last about a microsecond, which is what creating and scheduling one
 * costs; with a large one each task is a serial fib of thousands of calls.
 */
static long fib(int n, int cutoff)
{
    if (n < 2)
        return n;
    if (n <= cutoff)
        return fib(n - 1, cutoff) + fib(n - 2, cutoff);
    long x, y;
#pragma omp task shared(x) firstprivate(n, cutoff) /* @fibtask */
    x = fib(n - 1, cutoff);
    y = fib(n - 2, cutoff);
#pragma omp taskwait
    return x + y;
}

/* fib(n) on two threads, one of which makes the first task; `repeat` times, so a short run still has samples. */
static void fib_tasks(int n, int cutoff, int repeat)
{
    long result = 0;
    for (int i = 0; i < repeat; i++) {
#pragma omp parallel num_threads(2)
#pragma omp single
        result = fib(n, cutoff);
    }
    printf("fib %ld\n", result);
}

/* `count` parallel regions on two threads, each a few hundred nanoseconds of work: fork and join cost more. */
static __attribute__((noinline)) void tiny_regions(int count)
{
    volatile long sink = 0;
    for (int i = 0; i < count; i++) {
#pragma omp parallel num_threads(2) /* @tiny */
        sink += omp_get_thread_num();
    }
    printf("%d regions\n", count);
}

/* Usage: ompcollect-advice imbalance ROUNDS UNIT-SECONDS | critical ENTRIES INSIDE-SECONDS | synthetic STEP-SECONDS | fib N CUTOFF REPEAT | regions COUNT */
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "imbalance") == 0 && argc == 4)
        imbalance(atoi(argv[2]), atof(argv[3]));
    else if (strcmp(mode, "critical") == 0 && argc == 4)
        critical(atoi(argv[2]), atof(argv[3]));
    else if (strcmp(mode, "synthetic") == 0 && argc == 3)
        synthetic(atof(argv[2]));
    else if (strcmp(mode, "fib") == 0 && argc == 5)
        fib_tasks(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    else if (strcmp(mode, "regions") == 0 && argc == 3)
        tiny_regions(atoi(argv[2]));
    else {
        fprintf(stderr, "usage: ompcollect-advice imbalance ROUNDS UNIT | critical ENTRIES INSIDE | synthetic STEP | fib N CUTOFF REPEAT | regions COUNT\n");
        return 2;
    }
    return 0;
}
#else
int main(void)
{
    fprintf(stderr, "ompcollect-advice: built without OpenMP\n");
    return 77;
}
#endif
