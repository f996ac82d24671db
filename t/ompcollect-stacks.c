/* ompcollect-stacks.c - a program whose call stacks t/ompcollect-stacks.sh knows: recursion under a parallel region, deeper recursion than a stack keeps, a task tree (fib), nested regions, each phase in functions of its own. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every function a stack should show keeps its own frame: no inlining, no tail calls. */
#define KEEP __attribute__((noinline))

static volatile double sink;
static double phase_seconds = 0.4;

/* The user's work at the leaves. */
KEEP static double spin(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    sink = x;
    return x;
}

/* Recursion: `depth` frames of itself above spin. */
KEEP double recurse(int depth, long n)
{
    if (depth == 0)
        return spin(n);
    double result = recurse(depth - 1, n);
    sink = result;
    return result + 1;
}

/* Work only a worker thread (not the master) does: its samples come from a worker's stack alone. */
KEEP double worker_only(long n)
{
    return recurse(3, n);
}

/* Phase 1: a parallel region whose threads recurse; thread 1 also works in worker_only. */
KEEP void recursion_region(void)
{
    double end = omp_get_wtime() + phase_seconds;
#pragma omp parallel num_threads(2)
    {
        while (omp_get_wtime() < end) {
            if (omp_get_thread_num() == 1)
                sink = worker_only(20000);
            sink = recurse(10, 20000);
        }
    }
}

/* Recursion deeper than the 64 frames a recorded stack keeps: 100 recurse frames above spin. */
KEEP void deep_region(void)
{
    double end = omp_get_wtime() + phase_seconds;
#pragma omp parallel num_threads(2)
    {
        while (omp_get_wtime() < end)
            sink = recurse(99, 20000);
    }
}

/* A task tree: fib by tasks, with work at the leaves so samples land inside. */
KEEP long fib(int n)
{
    if (n < 2) {
        spin(3000);
        return n;
    }
    long a = 0, b = 0;
#pragma omp task shared(a)
    a = fib(n - 1);
#pragma omp task shared(b)
    b = fib(n - 2);
#pragma omp taskwait
    sink = (double)(a + b);
    return a + b;
}

/* Phase 2: one thread makes the tree, both run its tasks. */
KEEP void task_tree(void)
{
    double end = omp_get_wtime() + phase_seconds;
#pragma omp parallel num_threads(2)
#pragma omp single
    while (omp_get_wtime() < end)
        sink = (double)fib(12);
}

/* The inner region's leaf work. */
KEEP double inner_leaf(long n)
{
    return spin(n);
}

/* The inner region, forked by each thread of the outer one. */
KEEP void inner_region(double end)
{
#pragma omp parallel num_threads(2)
    {
        while (omp_get_wtime() < end)
            sink = inner_leaf(20000);
    }
}

/* Phase 3: nested regions, two levels active. */
KEEP void nested_regions(void)
{
    double end = omp_get_wtime() + phase_seconds;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    inner_region(end);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        phase_seconds = atof(argv[1]);
    const char *only = argc > 2 ? argv[2] : "all";
    if (strcmp(only, "all") == 0 || strstr(only, "recursion") != NULL)
        recursion_region();
    /* Only when asked for ("recursion+deep"): the compiler runs check the other phases. */
    if (strstr(only, "deep") != NULL)
        deep_region();
    if (strcmp(only, "all") == 0 || strcmp(only, "tasks") == 0)
        task_tree();
    if (strcmp(only, "all") == 0 || strcmp(only, "nested") == 0)
        nested_regions();
    printf("stacks: done\n");
    return 0;
}
