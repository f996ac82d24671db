/* sampling-bias.c - the sampling-bias experiment's workload: OpenMP threads that alternate busy compute of a known CPU time with barrier waits and time both themselves, so a profiler's WORK figure can be held against the truth. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>

/* A clock's reading in nanoseconds. */
static long long clock_ns(clockid_t clock)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Spins until the calling thread has used `cpu_ns` more CPU time (under contention this takes longer on the wall clock). */
static void compute(long long cpu_ns)
{
    static volatile double sink;
    long long until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + cpu_ns;
    double x = 1.0;
    while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
        for (int i = 0; i < 200; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* What one thread measured of itself. */
struct measured {
    long long tid;
    long long compute_wall_ns; /* CLOCK_MONOTONIC inside compute(): the WORK the profiler should see */
    long long compute_cpu_ns;
    long long region_ns;       /* the thread's whole time in the region */
};

/*
 * Usage: sampling-bias [SECONDS [THREADS [CHUNK_US]]]: THREADS threads (2)
 * for about SECONDS (3) of steps; in each step thread i computes
 * (i+1)/THREADS of CHUNK_US (3000) microseconds of CPU time, then all meet
 * in a barrier.  Prints one line per thread: tid, wall time computing, CPU
 * time computing, time in the region (ns).
 */
int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    long long chunk_ns = (argc > 3 ? atoll(argv[3]) : 3000) * 1000LL;
    if (seconds <= 0 || threads < 1 || threads > 256 || chunk_ns <= 0) {
        fprintf(stderr, "usage: %s [SECONDS [THREADS [CHUNK_US]]]\n", argv[0]);
        return 2;
    }
    struct measured *rows = calloc((size_t)threads, sizeof *rows);
    if (rows == NULL)
        return 2;
    atomic_int stop = 0;
    long long end = clock_ns(CLOCK_MONOTONIC) + (long long)(seconds * 1e9);
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        struct measured *row = &rows[me];
        row->tid = (long long)syscall(SYS_gettid);
        long long entered = clock_ns(CLOCK_MONOTONIC);
        for (;;) {
            long long wall = clock_ns(CLOCK_MONOTONIC), cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            compute(chunk_ns * (me + 1) / omp_get_num_threads());
            row->compute_wall_ns += clock_ns(CLOCK_MONOTONIC) - wall;
            row->compute_cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
            /* Only the master decides, and only before the first barrier: everyone reads the same answer after it. */
            if (me == 0 && clock_ns(CLOCK_MONOTONIC) >= end)
                atomic_store(&stop, 1);
#pragma omp barrier
            int done = atomic_load(&stop);
#pragma omp barrier
            if (done)
                break;
        }
        row->region_ns = clock_ns(CLOCK_MONOTONIC) - entered;
    }
    for (int i = 0; i < threads; i++)
        printf("thread %lld %lld %lld %lld\n", rows[i].tid, rows[i].compute_wall_ns, rows[i].compute_cpu_ns,
               rows[i].region_ns);
    free(rows);
    return 0;
}
#else
/* Built without OpenMP: nothing to measure. */
int main(void)
{
    fprintf(stderr, "sampling-bias: built without OpenMP\n");
    return 77;
}
#endif
