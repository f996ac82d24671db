/* ompcollect-copies.c - pragmas the compiler copies: a construct in a loop clang unrolls, one in a function inlined at two call sites (with a critical inside), and one in a function GCC may clone for a constant argument, for t/ompcollect-copies.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

/* A little work whose cost grows with i: a triangular loop is imbalanced under schedule(static). */
static double cost(int i)
{
    double x = 0;
    for (int k = 0; k < i % 64; k++)
        x += k * 0.5;
    return x;
}

/* Inlined at both call sites in main: one pragma, two copies of its code. */
static inline __attribute__((always_inline)) void accumulate(double *total, int n)
{
#pragma omp parallel num_threads(2) /* @INLINED */
    {
        double local = 0;
        for (int i = omp_get_thread_num(); i < n; i += 2)
            local += cost(i);
#pragma omp critical(copies_accum) /* @CRITICAL */
        *total += local;
    }
}

/* Called with a constant and with a variable: GCC may clone it (scale.constprop.0) beside the original. */
static __attribute__((noinline)) double scale(double factor, int n)
{
    double sum = 0;
#pragma omp parallel for num_threads(2) reduction(+ : sum) /* @CLONED */
    for (int i = 0; i < n; i++)
        sum += cost(i) * factor;
    return sum;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    double total = 0;
    /* Ten rounds, unrolled into ten calls of the runtime (clang -O2 does so by itself). */
#pragma GCC unroll 10
    for (int round = 0; round < 10; round++) {
        double sum = 0;
#pragma omp parallel for schedule(static) num_threads(2) reduction(+ : sum) /* @UNROLLED */
        for (int i = 0; i < n; i++)
            sum += cost(i + round);
        total += sum;
    }
    accumulate(&total, n);
    accumulate(&total, n / 2);
    total += scale(2.0, n) + scale((double)argc, n);
    sink = total;
    printf("copies: done\n");
    return 0;
}
