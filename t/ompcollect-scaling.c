/* ompcollect-scaling.c - programs whose scaling is known by construction, for t/ompcollect-scaling.sh and the golden scaling runs: a perfectly parallel loop, a serial phase of known fraction, a triangular loop under schedule(static), a saturated critical section, counters that share a cache line, and programs that differ by thread count. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keeps the work from being optimised away. */
static volatile double sink;
static double accumulated;

/* `units` of arithmetic the compiler cannot fold: a dependent chain, the same cost at any thread count. */
static double spin(long units)
{
    double x = 1.0;
    for (long i = 0; i < units * 1000; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

/* Equal work per iteration, split evenly: speedup n on n free cores. */
static void even(long units)
{
    double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int i = 0; i < 64; i++)
        sum += spin(units);
    sink += sum;
}

/*
 * A serial phase of `percent` of the one-thread time before a parallel
 * loop: Amdahl's serial fraction is percent / 100 by construction.
 */
static void amdahl(long units, int percent)
{
    long serial = 64 * units * percent / (100 - percent);
    sink += spin(serial);
    even(units);
}

/* Iteration i costs i units: schedule(static) gives the last thread the most, more unevenly the more threads. */
static void triangular(long units)
{
    double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int i = 0; i < 64; i++)
        sum += spin(units * i / 32);
    sink += sum;
}

/* Each iteration a quarter of the work outside and three inside one critical section: beyond one thread the section is saturated. */
static void critical(long units)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < 64; i++) {
        double outside = spin(units / 4);
#pragma omp critical(scaling_accumulate)
        accumulated += outside + spin(3 * units / 4);
    }
}

/* One counter per thread, all in one cache line: each increment gets dearer with every thread that shares it. */
static void false_sharing(long units)
{
    static struct {
        volatile long count[16];
    } counters __attribute__((aligned(64)));
    long total = units * 200000;
#pragma omp parallel
    {
        int me = omp_get_thread_num() % 16, threads = omp_get_num_threads();
        for (long i = 0; i < total / threads; i++)
            counters.count[me]++;
    }
    sink += counters.count[0];
}

int main(int argc, char **argv)
{
    const char *kernel = argc > 1 ? argv[1] : "even";
    long units = argc > 2 ? atol(argv[2]) : 200;
    int repeats = argc > 3 ? atoi(argv[3]) : 10;
    if (strcmp(kernel, "threads") == 0 || strcmp(kernel, "status") == 0) {
        /* A program that does not do the same at every count: ompcollect scaling refuses it. */
        printf("%d threads\n", omp_get_max_threads());
        return strcmp(kernel, "status") == 0 ? omp_get_max_threads() : 0;
    }
    if (strcmp(kernel, "team") == 0) {
        /* Sizes its team by a variable of its own (ompcollect scaling --env). */
        const char *team = getenv("SCALING_TEAM");
        printf("team %s\n", team != NULL ? team : "unset");
        omp_set_num_threads(team != NULL ? atoi(team) : 1);
        kernel = "even";
    }
    for (int r = 0; r < repeats; r++) {
        if (strcmp(kernel, "even") == 0)
            even(units);
        if (strcmp(kernel, "amdahl") == 0 || strcmp(kernel, "constructs") == 0)
            amdahl(units, 30);
        if (strcmp(kernel, "triangular") == 0 || strcmp(kernel, "constructs") == 0)
            triangular(units);
        if (strcmp(kernel, "critical") == 0 || strcmp(kernel, "constructs") == 0)
            critical(units);
        if (strcmp(kernel, "false_sharing") == 0 || strcmp(kernel, "constructs") == 0)
            false_sharing(units);
    }
    /* The same output at every thread count: the work done, not who did it. */
    printf("%s: %d rounds of %ld units\n", kernel, repeats, units);
    return 0;
}
