/* syncbench.c - the benchmark's OpenMP workload: EPCC-syncbench-style construct loops, a region-rate loop, a fixed mix for instruction counts, and tool inquiries. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Knows nothing of the tool under test; bench/run.py loads one (or none)
 * and compares.  Modes:
 *   syncbench mix REGIONS        REGIONS parallel regions, each with a barrier,
 *                                a critical, a lock, a single, a master, a for
 *                                and a reduction (run under callgrind, 1 thread)
 *   syncbench inquire COUNT [WHERE]
 *                                COUNT calls of the tool's bench_inquire()
 *                                by a thread in one state: WHERE work (the
 *                                default: inside a region), serial (outside
 *                                any), or, from a signal handler as a sampler
 *                                asks, barrier (a worker waiting in a
 *                                barrier), lock (waiting for a lock) or idle
 *                                (a worker between regions)
 *   syncbench tasks COUNT        one region whose master creates COUNT tasks
 *                                of one delay each, waiting for every 64
 *                                (run under callgrind, 1 thread)
 *   syncbench untied COUNT       the same with untied tasks
 *   syncbench fib COUNT          COUNT tasks made recursively, fib-style: each
 *                                task makes two children (a balanced tree)
 *                                and waits for them (callgrind, 1 thread)
 *   syncbench fibwall N          fib(N) with a task per call and no cut-off,
 *                                on every thread; prints "fibwall N SECONDS"
 *   syncbench calibrate          work units per 250 us of one thread
 *   syncbench rate UNITS REGIONS the region-rate loop alone (see below)
 *   syncbench wall SCALE UNITS REGIONS
 *                                every construct loop, then REGIONS regions of
 *                                UNITS work units per thread; prints
 *                                "construct NAME US" per construct (the best
 *                                of TRIALS) and "rate REGIONS SECONDS"
 * Same idea as EPCC's syncbench, written afresh: time per construct is the
 * loop's wall time over its repetitions, each construct around a short
 * delay; the bench's overhead figures are differences between tools.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Iterations of the delay inside each construct: a few tens of ns. */
#define DELAY_UNITS 32

/* Results land here so no loop is optimised away. */
static volatile double sink;
/* Read at run time, so the compiler cannot fold the delay (and an empty region) away. */
static volatile long delay_units = DELAY_UNITS;

/* `units` dependent floating-point steps: compute-bound, no memory traffic. */
static double work(long units)
{
    double x = 1.0;
    for (long i = 0; i < units; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

static void delay(void)
{
    double x = work(delay_units);
    if (x == 0.5)
        sink = x;
}

/* A strictly positive integer argument, or exit 2 with a message. */
static long positive(const char *text, const char *what)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || value <= 0) {
        fprintf(stderr, "syncbench: %s '%s' is not a positive integer\n", what, text);
        exit(2);
    }
    return value;
}

/* The fixed region whose instruction count the bench reports. */
static int mix(long regions)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    int critical_count = 0, lock_count = 0, single_count = 0, master_count = 0;
    double part = 0, slots[8];
    for (long r = 0; r < regions; r++) {
#pragma omp parallel
        {
#pragma omp barrier
#pragma omp critical
            critical_count++;
            omp_set_lock(&lock);
            lock_count++;
            omp_unset_lock(&lock);
#pragma omp single
            single_count++;
#pragma omp master
            master_count++;
#pragma omp for
            for (int i = 0; i < 8; i++)
                slots[i] = i;
#pragma omp for reduction(+ : part)
            for (int i = 0; i < 8; i++)
                part += slots[i];
        }
    }
    omp_destroy_lock(&lock);
    printf("mix %ld regions %d %d %d %d %.0f\n", regions, critical_count, lock_count, single_count,
           master_count, part);
    return 0;
}

/* COUNT deferred tasks of one delay each, created and run by one thread, for the per-task instruction count. */
static int tasks(long count)
{
    long done = 0;
#pragma omp parallel
#pragma omp master
    for (long t = 0; t < count; t++) {
#pragma omp task shared(done)
        {
            delay();
#pragma omp atomic
            done++;
        }
        /* A full task deque makes libomp run the next task at once: wait before it fills. */
        if (t % 64 == 63) {
#pragma omp taskwait
        }
    }
    printf("tasks %ld ran %ld\n", count, done);
    return 0;
}

/* COUNT untied deferred tasks of one delay each, as tasks(): what an untied task adds. */
static int untied_tasks(long count)
{
    long done = 0;
#pragma omp parallel
#pragma omp master
    for (long t = 0; t < count; t++) {
#pragma omp task untied shared(done)
        {
            delay();
#pragma omp atomic
            done++;
        }
        if (t % 64 == 63) {
#pragma omp taskwait
        }
    }
    printf("untied %ld ran %ld\n", count, done);
    return 0;
}

/*
 * A recursive task, fib-style: `below` tasks under it, split between two
 * children (each child and the tasks under it), then a taskwait; a
 * balanced tree, so nesting stays about log2 of the count deep.
 */
static void split_task(long below)
{
    long left = below / 2, right = below - left;
    if (left > 0) {
#pragma omp task
        split_task(left - 1);
    }
    if (right > 0) {
#pragma omp task
        split_task(right - 1);
    }
#pragma omp taskwait
}

/*
 * Touches a MiB of the main thread's stack below here.  Under valgrind a
 * sampling signal that lands deeper than the stack has yet grown kills
 * the run ("Can't extend stack ... during signal delivery"): the
 * recursion below then runs on stack already mapped.  A fixed cost, so
 * it drops out of the per-task difference.
 */
static __attribute__((noinline)) void stack_touch(void)
{
    volatile char pad[1 << 20];
    for (size_t i = 0; i < sizeof pad; i += 4096)
        pad[i] = 0;
}

static int fib_tasks(long count)
{
    stack_touch();
#pragma omp parallel
#pragma omp master
    split_task(count);
    printf("fib %ld\n", count);
    return 0;
}

/* fib(n) with a task per call and no cut-off: the wall-time workload (2.7M tasks for n = 30). */
static long fib(int n)
{
    if (n < 2)
        return n;
    long x, y;
#pragma omp task shared(x)
    x = fib(n - 1);
#pragma omp task shared(y)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

static int fib_wall(long n)
{
    long result = 0;
    double began = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    result = fib((int)n);
    printf("fibwall %ld %.6f %ld\n", n, omp_get_wtime() - began, result);
    return 0;
}

/* The tool's sample-sized inquiry, and what the signal handler's calls of it answered. */
static int (*inquiry)(void);
static volatile long signalled_answers;
static atomic_long signals_handled;

/* A sampler's signal: one inquiry from wherever the thread was. */
static void on_signal(int signal)
{
    (void)signal;
    signalled_answers += inquiry();
    atomic_fetch_add(&signals_handled, 1);
}

/*
 * COUNT inquiries by `target`, one per signal, each sent once the last was
 * answered.  The target is given 50 ms first to settle where it waits; a
 * runtime's waits spin and then sleep, and both are the state asked for.
 */
static void signal_inquiries(pthread_t target, long count)
{
    struct timespec settle = {0, 50 * 1000 * 1000};
    nanosleep(&settle, NULL);
    for (long i = 0; i < count; i++) {
        long before = atomic_load(&signals_handled);
        pthread_kill(target, SIGUSR1);
        while (atomic_load(&signals_handled) == before)
            sched_yield();
    }
}

/* COUNT inquiries of a worker held in a barrier (thread 0 arrives once they are done), a lock, or between regions. */
static long waiting_inquiries(long count, const char *where)
{
    _Atomic pthread_t worker = 0;
    atomic_int held = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
    int locking = strcmp(where, "lock") == 0, idle = strcmp(where, "idle") == 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            /* The lock is thread 0's before this thread asks for it. */
            while (locking && !held)
                sched_yield();
            worker = pthread_self();
            if (locking) {
                omp_set_lock(&lock);
                omp_unset_lock(&lock);
            }
        } else {
            if (locking)
                omp_set_lock(&lock);
            held = 1;
            while (worker == 0)
                sched_yield();
            if (!idle)
                signal_inquiries(worker, count);
            if (locking)
                omp_unset_lock(&lock);
        }
    }
    if (idle)
        signal_inquiries(worker, count);
    omp_destroy_lock(&lock);
    return signalled_answers;
}

/* COUNT of the tool's sample-sized inquiry by a thread in the state `where` (see the modes above). */
static int inquire(long count, const char *where)
{
    inquiry = (int (*)(void))dlsym(RTLD_DEFAULT, "bench_inquire");
    if (inquiry == NULL) {
        printf("inquire none\n");
        return 0;
    }
    long answers = 0;
    if (strcmp(where, "work") == 0) {
#pragma omp parallel num_threads(1) reduction(+ : answers)
        for (long i = 0; i < count; i++)
            answers += inquiry();
    } else if (strcmp(where, "serial") == 0) {
#pragma omp parallel num_threads(1)
        delay();
        for (long i = 0; i < count; i++)
            answers += inquiry();
    } else if (strcmp(where, "barrier") == 0 || strcmp(where, "lock") == 0 || strcmp(where, "idle") == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_signal;
        sigaction(SIGUSR1, &action, NULL);
        answers = waiting_inquiries(count, where);
    } else {
        fprintf(stderr, "syncbench: '%s' is none of work, serial, barrier, lock, idle\n", where);
        return 2;
    }
    printf("inquire %ld %s %ld\n", count, where, answers);
    return 0;
}

/* Work units that take one thread about 250 us, the region-rate loop's region. */
static int calibrate(void)
{
    long units = 1000;
    for (;;) {
        double began = omp_get_wtime();
        sink = work(units);
        double took = omp_get_wtime() - began;
        if (took > 0.05) {
            printf("calibrate %ld\n", (long)(units * (250e-6 / took)) + 1);
            return 0;
        }
        units *= 2;
    }
}

typedef void (*construct_loop)(long reps, int threads);

static void loop_parallel(long reps, int threads)
{
    (void)threads;
    for (long r = 0; r < reps; r++) {
#pragma omp parallel
        delay();
    }
}

static void loop_for(long reps, int threads)
{
#pragma omp parallel
    for (long r = 0; r < reps; r++) {
#pragma omp for
        for (int i = 0; i < threads; i++)
            delay();
    }
}

static void loop_barrier(long reps, int threads)
{
    (void)threads;
#pragma omp parallel
    for (long r = 0; r < reps; r++) {
        delay();
#pragma omp barrier
    }
}

static void loop_single(long reps, int threads)
{
    (void)threads;
#pragma omp parallel
    for (long r = 0; r < reps; r++) {
#pragma omp single
        delay();
    }
}

static void loop_critical(long reps, int threads)
{
#pragma omp parallel
    for (long r = 0; r < reps / threads; r++) {
#pragma omp critical
        delay();
    }
}

static void loop_lock(long reps, int threads)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel
    for (long r = 0; r < reps / threads; r++) {
        omp_set_lock(&lock);
        delay();
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
}

static void loop_ordered(long reps, int threads)
{
    (void)threads;
#pragma omp parallel for ordered schedule(static, 1)
    for (long r = 0; r < reps; r++) {
#pragma omp ordered
        delay();
    }
}

static void loop_atomic(long reps, int threads)
{
    double total = 0;
#pragma omp parallel
    for (long r = 0; r < reps / threads; r++) {
#pragma omp atomic
        total += 1;
    }
    sink = total;
}

static void loop_reduction(long reps, int threads)
{
    (void)threads;
    double total = 0;
    for (long r = 0; r < reps; r++) {
#pragma omp parallel reduction(+ : total)
        {
            delay();
            total += 1;
        }
    }
    sink = total;
}

static void loop_tasks(long reps, int threads)
{
    (void)threads;
#pragma omp parallel
#pragma omp single
    for (long r = 0; r < reps; r++) {
#pragma omp task
        delay();
    }
}

/* Each construct with its repetitions at scale 1 (a few tens of ms with no tool on 2 threads). */
static const struct {
    const char *name;
    construct_loop loop;
    long reps;
} constructs[] = {
    {"parallel", loop_parallel, 10000}, {"for", loop_for, 20000},
    {"barrier", loop_barrier, 20000},   {"single", loop_single, 20000},
    {"critical", loop_critical, 100000}, {"lock", loop_lock, 100000},
    {"ordered", loop_ordered, 40000},   {"atomic", loop_atomic, 400000},
    {"reduction", loop_reduction, 10000}, {"tasks", loop_tasks, 20000},
};

/* REGIONS parallel regions of UNITS work units per thread: a compute-bound program's region rate. */
static int rate(long units, long regions)
{
    double total = 0;
    double began = omp_get_wtime();
    for (long r = 0; r < regions; r++) {
#pragma omp parallel reduction(+ : total)
        total += work(units);
    }
    double took = omp_get_wtime() - began;
    sink = total;
    printf("rate %ld %.6f\n", regions, took);
    return 0;
}

/* Trials of each construct loop; the fastest is reported, as preemption only ever adds time. */
#define TRIALS 3

/* Every construct loop, then the region-rate loop. */
static int wall(long scale, long units, long regions)
{
    int threads = omp_get_max_threads();
    for (size_t c = 0; c < sizeof constructs / sizeof constructs[0]; c++) {
        long reps = constructs[c].reps * scale / TRIALS;
        constructs[c].loop(reps / 10 + 1, threads);
        double best = 0;
        for (int trial = 0; trial < TRIALS; trial++) {
            double began = omp_get_wtime();
            constructs[c].loop(reps, threads);
            double took = omp_get_wtime() - began;
            if (trial == 0 || took < best)
                best = took;
        }
        printf("construct %s %.4f\n", constructs[c].name, best * 1e6 / (double)reps);
    }
    return rate(units, regions);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "mix") == 0)
        return mix(positive(argv[2], "REGIONS"));
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "inquire") == 0)
        return inquire(positive(argv[2], "COUNT"), argc == 4 ? argv[3] : "work");
    if (argc == 3 && strcmp(argv[1], "tasks") == 0)
        return tasks(positive(argv[2], "COUNT"));
    if (argc == 3 && strcmp(argv[1], "untied") == 0)
        return untied_tasks(positive(argv[2], "COUNT"));
    if (argc == 3 && strcmp(argv[1], "fib") == 0)
        return fib_tasks(positive(argv[2], "COUNT"));
    if (argc == 3 && strcmp(argv[1], "fibwall") == 0)
        return fib_wall(positive(argv[2], "N"));
    if (argc == 2 && strcmp(argv[1], "calibrate") == 0)
        return calibrate();
    if (argc == 4 && strcmp(argv[1], "rate") == 0)
        return rate(positive(argv[2], "UNITS"), positive(argv[3], "REGIONS"));
    if (argc == 5 && strcmp(argv[1], "wall") == 0)
        return wall(positive(argv[2], "SCALE"), positive(argv[3], "UNITS"),
                    positive(argv[4], "REGIONS"));
    fprintf(stderr,
            "usage: %s mix REGIONS | inquire COUNT [WHERE] | tasks|untied|fib COUNT | fibwall N | calibrate | rate UNITS REGIONS | wall SCALE UNITS REGIONS\n",
            argv[0]);
    return 2;
}
