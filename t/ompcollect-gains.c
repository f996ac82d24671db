/* ompcollect-gains.c - planted-problem OpenMP programs, each beside its fixed variant, for t/ompcollect-gains.sh (make check-gains): the gain ompcollect predicts for the problem is held against the time the fix really saves. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>

#include "../examples/example.h"

/*
 * The unit of work: 1 ms of wall-clock time (example_work).  A unit that
 * lasts its wall time whatever the load makes the gain of a fix the
 * program's own: on a loaded 2-core machine a CPU-bound unit would also
 * count what the scheduler did to each variant.  The tasks case alone
 * computes (a task's overhead is the runtime's CPU time, which no
 * wall-clock unit stands for).
 */
#define UNIT 1e-3

/* Thread k of 2 works k+1 units; fixed: both work 1.5 (the same total, balanced). */
static __attribute__((noinline)) void imbalance_round(int fixed)
{
#pragma omp parallel for schedule(static, 1) num_threads(2) /* @imbalance */
    for (int k = 0; k < 2; k++)
        example_work(fixed ? 1.5 * UNIT : (k + 1) * UNIT);
}

/*
 * Each of 2 threads enters a critical 8 times, working a quarter unit
 * outside and a unit inside; fixed: the same work on a private
 * accumulator, combined once (the exclusion gone).
 */
static __attribute__((noinline)) void critical_round(int fixed)
{
    long total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    for (int i = 0; i < 8; i++) {
        example_work(UNIT / 4);
        if (fixed) {
            example_work(UNIT);
            total++;
        } else {
#pragma omp critical /* @critical */
            {
                example_work(UNIT);
                total++;
            }
        }
    }
    if (total != 16)
        abort();
}

/*
 * A table of 64 counters, each of 2 threads updating 8 of its own under
 * one lock for the table, half a unit outside and a unit inside; fixed: a
 * lock per counter, so the threads never meet.
 */
static __attribute__((noinline)) void lock_round(int fixed, omp_lock_t *table, omp_lock_t *each, long *counters)
{
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        for (int i = 0; i < 8; i++) {
            int element = (i + 32 * me) % 64;
            omp_lock_t *lock = fixed ? &each[element] : table;
            example_work(UNIT / 2);
            omp_set_lock(lock); /* @lock */
            example_work(UNIT);
            counters[element]++;
            omp_unset_lock(lock);
        }
    }
}

/* fib(n) with a task for fib(n - 1) above `cutoff`, computed serially at or below it. */
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

/* fib(24) on 2 threads: tasks down to fib(4) (tens of thousands, each a few instructions); fixed: a cut-off at fib(14). */
static __attribute__((noinline)) void tasks_round(int fixed)
{
    long result = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    result = fib(24, fixed ? 14 : 3);
    if (result != 46368)
        abort();
}

/* Two units of serial initialisation, then two units on 2 threads; fixed: the initialisation shared between them. */
static __attribute__((noinline)) void serial_round(int fixed)
{
    if (fixed) {
#pragma omp parallel for num_threads(2)
        for (int k = 0; k < 2; k++)
            example_work(UNIT);
    } else {
        example_work(2 * UNIT); /* @serial */
    }
#pragma omp parallel num_threads(2)
    example_work(2 * UNIT);
}

/* One round of a case; 0, or -1 for no such case. */
static int round_of(const char *name, int fixed, omp_lock_t *table, omp_lock_t *each, long *counters)
{
    if (strcmp(name, "imbalance") == 0)
        imbalance_round(fixed);
    else if (strcmp(name, "critical") == 0)
        critical_round(fixed);
    else if (strcmp(name, "lock") == 0)
        lock_round(fixed, table, each, counters);
    else if (strcmp(name, "tasks") == 0)
        tasks_round(fixed);
    else if (strcmp(name, "serial") == 0)
        serial_round(fixed);
    else
        return -1;
    return 0;
}

/*
 * Usage: ompcollect-gains CASE problem|fixed SECONDS.  Rounds of the case
 * until SECONDS have passed (time-bounded, so a slow machine runs fewer
 * rounds, not longer ones); prints the rounds and the time they took.
 */
int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[2], "problem") != 0 && strcmp(argv[2], "fixed") != 0)) {
        fprintf(stderr, "usage: ompcollect-gains imbalance|critical|lock|tasks|serial problem|fixed SECONDS\n");
        return 2;
    }
    int fixed = strcmp(argv[2], "fixed") == 0;
    double seconds = atof(argv[3]);
    omp_lock_t table, each[64];
    long counters[64] = {0};
    omp_init_lock(&table);
    for (int i = 0; i < 64; i++)
        omp_init_lock(&each[i]);
    long rounds = 0;
    double begin = example_now(), end = begin;
    do {
        if (round_of(argv[1], fixed, &table, each, counters) != 0) {
            fprintf(stderr, "ompcollect-gains: no case %s\n", argv[1]);
            return 2;
        }
        rounds++;
        end = example_now();
    } while (end - begin < seconds);
    printf("rounds %ld seconds %.6f per_round %.9f\n", rounds, end - begin, (end - begin) / (double)rounds);
    return 0;
}
#else
int main(void)
{
    fprintf(stderr, "ompcollect-gains: built without OpenMP\n");
    return 77;
}
#endif
