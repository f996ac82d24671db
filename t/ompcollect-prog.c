/* ompcollect-prog.c - a tiny OpenMP program for the ompcollect tests: one region, a line on each stream, then the exit it is told to take. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef _OPENMP
/* Busy for `seconds` of wall-clock time. */
static void work(double seconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9
           < seconds);
}
#endif

/*
 * Usage: ompcollect-prog [STATUS [HOW]]; HOW is "exit" (default), "_exit"
 * (no exit handlers), "signal" (raise SIGTERM) or "spawn" (run a second copy
 * of itself as a child first, then exit).
 */
int main(int argc, char **argv)
{
    int status = argc > 1 ? atoi(argv[1]) : 0;
    const char *how = argc > 2 ? argv[2] : "exit";
    int threads = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(2) reduction(+ : threads)
    {
        work(0.05);
        threads++;
    }
#else
    fprintf(stderr, "ompcollect-prog: built without OpenMP\n");
    return 77;
#endif
    printf("ompcollect-prog stdout threads=%d\n", threads);
    fprintf(stderr, "ompcollect-prog stderr\n");
    fflush(NULL);
    if (strcmp(how, "_exit") == 0)
        _exit(status);
    if (strcmp(how, "signal") == 0)
        raise(SIGTERM);
    if (strcmp(how, "spawn") == 0) {
        pid_t child = fork();
        if (child == 0) {
            execl("/proc/self/exe", argv[0], "0", (char *)NULL);
            _exit(127);
        }
        int child_status;
        if (child < 0 || waitpid(child, &child_status, 0) != child || child_status != 0)
            return 99;
    }
    return status;
}
