/* ompcollect-gccsites.c - constructs GCC names away from their pragma: a worksharing loop whose closing barrier GCC puts on the body's last line, tail-calling task bodies laid back to back (BOTS sort's), and a host teams construct libomp reports from inside GOMP_teams_reg, for t/ompcollect-gccsites.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The script finds the pragmas by their @markers and checks that the
 * report names each construct and wait there.  Each wait is made certain
 * whatever the machine's speed: the first iteration of a two-iteration
 * loop on two threads works a time slice, so the other thread waits at
 * the loop's closing barrier for it.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile double sink;
static double grid[8][256];

/* Works for `seconds`. */
__attribute__((noinline)) static void work(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        sink += 1;
}

/*
 * A static loop whose body ends in an inner loop of several lines: GCC
 * gives the closing barrier's call no line, and the line table names it
 * by the inner loop's.  An explicit barrier follows, which keeps its own
 * (one thread works before it, which the code jumps over in the other).
 */
__attribute__((noinline)) void loops(double slice, int n)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp for /* @static-for */
        for (int i = 0; i < 2; i++) {
            if (i == 0)
                work(slice);
            for (int j = 0; j < n; j++) {
                grid[i][j] = grid[i][j] * 0.5 + j;
                grid[i + 2][j] = grid[i][j] + 1.0;
                grid[i + 4][j] = grid[i + 2][j] * 2.0;
            }
        }
        if (omp_get_thread_num() == 0)
            work(slice / 2);
#pragma omp barrier /* @explicit-barrier */
        sink += grid[4][1];
    }
}

/*
 * BOTS sort's shape: each task body only loads three arguments and jumps
 * to spread, 16 bytes, so GCC lays the bodies back to back, and the line
 * table holds the end of one body's last row at the next body's address.
 */
__attribute__((noinline)) void spread(double *low, double *tmp, long size)
{
    if (size < 64) {
        for (long i = 0; i < size; i++)
            sink += low[i] + tmp[i];
        return;
    }
    long quarter = size / 4;
#pragma omp task untied /* @task-a */
    spread(low, tmp, quarter);
#pragma omp task untied /* @task-b */
    spread(low + quarter, tmp + quarter, quarter);
#pragma omp task untied /* @task-c */
    spread(low + 2 * quarter, tmp + 2 * quarter, quarter);
#pragma omp task untied /* @task-d */
    spread(low + 3 * quarter, tmp + 3 * quarter, size - 3 * quarter);
#pragma omp taskwait
}

/* A host teams construct with a parallel loop inside each team (OpenMP 5.0; GCC 9 and later). */
__attribute__((noinline)) double league(void)
{
    double sum = 0;
#pragma omp teams distribute parallel for num_teams(2) reduction(+ : sum) /* @host-teams */
    for (int i = 0; i < 4096; i++)
        sum += grid[i % 8][i % 256];
    return sum;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.3;
    static double a[1 << 14], b[1 << 14];
    for (int round = 0; round < 4; round++)
        loops(seconds / 8, 256);
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task untied /* @task-root */
    spread(a, b, 1 << 14);
    double sum = 0;
    for (int round = 0; round < 10; round++)
        sum += league();
    printf("gccsites: %.0f\n", sum);
    return 0;
}
