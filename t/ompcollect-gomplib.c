/* ompcollect-gomplib.c - a shared library whose OpenMP is its own business, built with GCC for ompcollect's tests: the program that uses it needs no OpenMP runtime itself. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <time.h>

/* Busy for `seconds` of wall-clock time. */
static void busy(double seconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
}

/* Runs `regions` 2-thread regions of `seconds` each; returns how many threads took part in the last. */
int ompc_gomplib_work(int regions, double seconds)
{
    int threads = 0;
    for (int i = 0; i < regions; i++) {
        threads = 0;
#pragma omp parallel num_threads(2) reduction(+ : threads)
        {
            busy(seconds);
            threads++;
        }
    }
    return threads;
}
