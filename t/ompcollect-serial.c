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
 * it a function of its own.  The clock is read some ten times a phase,
 * whatever its length and the machine's speed: each batch of divisions
 * doubles until it takes a tenth of the phase.  A fixed batch cannot
 * serve both a 0.02 s and a 0.3 s phase: ten million divisions (70-100 ms
 * here) stretched the short phases past the sleep after them on a slower
 * machine, and one million made the long ones read the clock every few
 * milliseconds, where a loaded machine preempted them and a fifth of
 * their samples counted in the clock's system call.
 */
__attribute__((noinline)) static double serial_phase(double seconds) /* @SERIAL_BEGIN */
{
    volatile double sum = 0;
    double now = cpu_seconds(), until = now + seconds;
    long batch = 100000;
    while (now < until) {
        for (long i = 1; i < batch; i++)
            sum += 1.0 / (double)i;
        double then = cpu_seconds();
        if (then - now < seconds / 10)
            batch *= 2;
        now = then;
    }
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
