/* ompcollect-gprofng.c - four parallel constructs, each with a state of its own that t/ompcollect-gprofng.sh finds again in gprofng's views of a --gprofng experiment: an uneven loop (IBAR), a critical section (CTWT), an explicit barrier after uneven work (EBAR), and tasks. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Busy for `seconds` of wall-clock time: the work is time, not a count, so any machine gives the states. */
__attribute__((noinline)) static double spin(double seconds)
{
    double end = omp_get_wtime() + seconds, x = 0;
    while (omp_get_wtime() < end)
        x += 1e-9;
    return x;
}

/* Thread 0 works five times longer: the others wait in the region's implicit barrier. */
__attribute__((noinline)) static void imbalanced_work(void)
{
#pragma omp parallel num_threads(2)
    spin(omp_get_thread_num() == 0 ? 0.010 : 0.002);
}

/* Both threads want the critical section most of the time: one waits to enter it. */
__attribute__((noinline)) static void critical_work(void)
{
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 4; i++) {
#pragma omp critical
        spin(0.002);
    }
}

/* Uneven work before an explicit barrier: thread 1 waits in it. */
__attribute__((noinline)) static void barrier_work(void)
{
#pragma omp parallel num_threads(2)
    {
        spin(omp_get_thread_num() == 0 ? 0.008 : 0.001);
#pragma omp barrier
        spin(0.001);
    }
}

/* Tasks of 1 ms each, made by one thread and run by both. */
__attribute__((noinline)) static void task_work(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < 8; i++) {
#pragma omp task
        spin(0.001);
    }
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double end = omp_get_wtime() + seconds;
    long rounds = 0;
    while (omp_get_wtime() < end) {
        imbalanced_work();
        critical_work();
        barrier_work();
        task_work();
        rounds++;
    }
    printf("gprofng: %ld rounds\n", rounds);
    return 0;
}
