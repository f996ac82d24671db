/* ompcollect-taskgraph.c - task graphs of known structure for t/ompcollect-taskgraph.sh: fib with a cut-off under one root task, a root that waits in a taskwait for a long task another thread runs, a task that computes for some CPU time and then sleeps, or a chain and a diamond of depend clauses, or a planted long task on a chain beside a fan of like tasks with one slow; prints how many tasks it made. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Atomic long made;

static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/* Two tasks per call at or above the cut-off, joined by a taskwait: a tree of known shape. */
static __attribute__((noinline)) long fib(int n, int cutoff)
{
    if (n < cutoff)
        return serial_fib(n);
    long x = 0, y = 0;
    atomic_fetch_add(&made, 2);
#pragma omp task shared(x) firstprivate(n, cutoff) /* FIB_X */
    x = fib(n - 1, cutoff);
#pragma omp task shared(y) firstprivate(n, cutoff) /* FIB_Y */
    y = fib(n - 2, cutoff);
#pragma omp taskwait
    return x + y;
}

/* The calling thread's CPU time in seconds. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A root task that waits in a taskwait for a child spinning `seconds` of CPU time on the other thread (own time is CPU time). */
static void long_wait(double seconds)
{
    static _Atomic int started;
    /* The team's threads exist and are followed before the wait begins: only the wait is measured. */
#pragma omp parallel num_threads(2)
    atomic_fetch_add(&started, 0);
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task /* WAITING_ROOT */
    {
#pragma omp task /* LONG_CHILD */
        {
            atomic_store(&started, 1);
            double until = thread_cpu() + seconds;
            while (thread_cpu() < until)
                ;
        }
        while (!atomic_load(&started))
            ;
#pragma omp taskwait
    }
    printf("taskgraph: wait %.3f tasks 2\n", seconds);
}

/*
 * One task computes for `cpu` seconds of its thread's CPU time (however
 * long the machine's load makes that in wall time), then sleeps `sleep`
 * seconds: off the CPU, as a preempted task is, and with no event between.
 */
static void sleeper(double cpu, double sleep)
{
    volatile unsigned long spins = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task /* SLEEPER */
    {
        double until = thread_cpu() + cpu;
        while (thread_cpu() < until)
            spins++;
        struct timespec pause = {(time_t)sleep, (long)((sleep - (time_t)sleep) * 1e9)};
        while (nanosleep(&pause, &pause) != 0)
            ;
    }
    printf("taskgraph: sleeper cpu %.3f sleep %.3f tasks 1\n", cpu, sleep);
}

/*
 * Every depend task waits for `go`, which its creator sets once it made
 * them all: no source completes before its sinks exist, so the runtime
 * reports every dependence the clauses make.
 */
static _Atomic int go;

static void after_go(void)
{
    while (!atomic_load(&go))
        ;
}

/*
 * Four tasks in a chain through inout(x): A -> B -> C -> D.  A and B also
 * share v, so the runtime reports A -> B twice (once per depend item, as
 * KASTORS jacobi's compute task reaches its copy task through u and unew):
 * one edge all the same.
 */
static void chain(void)
{
    int x = 0, v = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(inout : x, v) shared(x, v) /* CHAIN_A */
        {
            after_go();
            x++;
            v++;
        }
#pragma omp task depend(inout : x, v) shared(x, v) /* CHAIN_B */
        {
            x++;
            v++;
        }
#pragma omp task depend(inout : x) shared(x) /* CHAIN_C */
        x++;
#pragma omp task depend(inout : x) shared(x) /* CHAIN_D */
        x++;
        atomic_store(&go, 1);
#pragma omp taskwait
    }
    printf("taskgraph: chain x %d v %d tasks 4\n", x, v);
}

/* A diamond: A writes x, B and C read x and write y and z, D reads y and z. */
static void diamond(void)
{
    int x = 0, y = 0, z = 0, w = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(out : x) shared(x) /* DIAMOND_A */
        {
            after_go();
            x = 1;
        }
#pragma omp task depend(in : x) depend(out : y) shared(x, y) /* DIAMOND_B */
        y = x + 1;
#pragma omp task depend(in : x) depend(out : z) shared(x, z) /* DIAMOND_C */
        z = x + 2;
#pragma omp task depend(in : y, z) shared(y, z, w) /* DIAMOND_D */
        w = y + z;
        atomic_store(&go, 1);
#pragma omp taskwait
    }
    printf("taskgraph: diamond w %d tasks 4\n", w);
}

/* Spins `seconds` of the calling thread's CPU time: work that takes as long however loaded the machine. */
static void spin_cpu(double seconds)
{
    double until = thread_cpu() + seconds;
    while (thread_cpu() < until)
        ;
}

/*
 * A chain of LINKS tasks, each creating the next and waiting for it; link
 * PLANTED_AT computes `planted` s.  The last link computes 1 ms: empty, it
 * took a few microseconds, as long as its parent's code after the wait,
 * and the critical path could go either way (once, under ASan beside the
 * stress test, it left the last link off).
 */
enum { LINKS = 4, PLANTED_AT = 3, FAN = 64, FAN_SLOW = 9 };

static void link_task(int depth, double planted)
{
    if (depth == PLANTED_AT)
        spin_cpu(planted);
    if (depth == LINKS) {
        spin_cpu(0.001);
        return;
    }
#pragma omp task firstprivate(depth, planted) /* PLANTED_LINK */
    link_task(depth + 1, planted);
#pragma omp taskwait
}

/*
 * A root makes FAN like tasks (one construct, depth 1, no children), of
 * which one computes `slow` s -- longer than its like, as a task a cold
 * cache or an interrupt delayed -- and a chain whose link at depth
 * PLANTED_AT, alone in its class, computes `planted` s on every run.
 */
static void planted(double planted, double slow)
{
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp task /* PLANTED_ROOT */
    {
        for (int i = 0; i < FAN; i++) {
#pragma omp task firstprivate(i, slow) /* PLANTED_FAN */
            if (i == FAN_SLOW)
                spin_cpu(slow);
        }
        link_task(0, planted);
    }
    printf("taskgraph: planted %.3f slow %.3f tasks %d\n", planted, slow, 1 + FAN + LINKS);
}

/* Arguments: n, cut-off (defaults 20 12); "planted" LINK-SECONDS FAN-SECONDS; "wait" and the seconds the child spins; "sleep" CPU-SECONDS SECONDS; "chain"; "diamond". */
int main(int argc, char **argv)
{
    if (argc > 3 && argv[1][0] == 'p') {
        planted(atof(argv[2]), atof(argv[3]));
        return 0;
    }
    if (argc > 3 && argv[1][0] == 's') {
        sleeper(atof(argv[2]), atof(argv[3]));
        return 0;
    }
    if (argc > 1 && argv[1][0] == 'w') {
        long_wait(argc > 2 ? atof(argv[2]) : 0.2);
        return 0;
    }
    if (argc > 1 && argv[1][0] == 'c') {
        chain();
        return 0;
    }
    if (argc > 1 && argv[1][0] == 'd') {
        diamond();
        return 0;
    }
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int cutoff = argc > 2 ? atoi(argv[2]) : 12;
    long result = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        atomic_fetch_add(&made, 1);
#pragma omp task shared(result) /* ROOT */
        result = fib(n, cutoff);
    }
    printf("taskgraph: fib %d cutoff %d = %ld tasks %ld\n", n, cutoff, result, (long)atomic_load(&made));
    return 0;
}
