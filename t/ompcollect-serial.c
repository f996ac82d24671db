/* ompcollect-serial.c - a mostly serial program for t/ompcollect-serial.sh: serial code in one function the report must name at its lines, around a short parallel region; with a second argument, a serial sleep the report must name at its call. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU seconds of the calling thread: a loaded machine stretches wall time, not the work.  A system call (this clock has no vDSO fast path) is where a loaded machine often preempts the thread, and the samples of its wait for the CPU count there: serial_phase reads it rarely. */
static double cpu_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/*
 * Serial work for `seconds` of CPU; noinline so that every compiler keeps
 * it a function of its own.  The clock is read every million divisions,
 * a few milliseconds on any machine: rarely enough that the system call
 * takes no share of the samples, often enough that a short phase stays
 * short (at ten million, each call ran 70-100 ms on a 2-core VM, and a
 * slower machine's 0.02 s phases outweighed the sleep after them).
 */
__attribute__((noinline)) static double serial_phase(double seconds) /* @SERIAL_BEGIN */
{
    volatile double sum = 0;
    double until = cpu_seconds() + seconds;
    while (cpu_seconds() < until)
        for (int i = 1; i < 1000000; i++)
            sum += 1.0 / i;
    return sum;
} /* @SERIAL_END */

/* Sleeps `seconds` of wall time in serial code: the agent holds the samples back during a sleep, and their place is this call. */
__attribute__((noinline)) static void nap(double seconds)
{
    struct timespec length = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&length, &length) != 0) /* @NAP */
        ;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.3;
    double total = serial_phase(seconds);
    /* Two threads whatever the machine: the serial code then keeps one idle, which is the finding. */
#pragma omp parallel num_threads(2) reduction(+ : total)
    total += serial_phase(seconds / 20);
    total += serial_phase(seconds);
    if (argc > 2)
        nap(atof(argv[2]));
    printf("serial: done %g\n", total);
    return 0;
}
