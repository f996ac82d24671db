/* task-sampling.c - STATE, TASK_ID and CURRENT_PRID sampled from per-thread timers over task programs, judged by where each thread is in the program: tasks that compute read WORK even inside their ancestors' taskwaits and in a team of one, a real wait for a long task reads the task-wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <omp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "sampler.h"

#define TEAM 2
#define CUTOFF 18 /* fib below this runs serially, as the program did */
enum phase {
    P_NONE,
    P_FIB_TASKWAIT,
    P_FIB_TASKGROUP,
    P_LONG_TASK,
    P_TEAM_OF_ONE,
    P_UNTIED_TEAM_OF_ONE,
    P_INNER_TEAM_OF_ONE,
    P_COUNT
};
static const char *const phase_names[P_COUNT] = {"none",
                                                 "fib with taskwait",
                                                 "fib with taskgroup",
                                                 "a taskwait on a long task",
                                                 "tied tasks in a team of one",
                                                 "untied tasks in a team of one",
                                                 "tasks in inner teams of one"};

/* Where a thread is, by the program's structure, when a sample lands. */
enum where { W_OTHER, W_COMPUTE, W_WAIT, W_COUNT };

static _Atomic int phase;
static __thread int role = -1; /* 0 the thread that waits for the long task, 1 the one that runs it */
static __thread volatile int where = W_OTHER;
static _Atomic long counts[P_COUNT][TEAM][THR_LAST_STATE + 2];
static _Atomic long by_where[P_COUNT][W_COUNT][THR_LAST_STATE + 2];
static _Atomic long task_id_missing, samples;
/* Samples that landed in a task's computing and answered CURRENT_PRID 0 (outside any region), per phase. */
static _Atomic long computing_outside_region[P_COUNT];
static int failures;

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/*
 * The sample, as a profiler's handler sends it: STATE, OpenUH's 4-byte
 * TASK_ID and CURRENT_PRID.  Inside a parallel region every thread runs a
 * task.
 */
static void on_sample(int signo)
{
    (void)signo;
    int32_t batch[19] = {28, OMP_REQ_STATE,        0, 0, 0, 0, 0, 20, OMP_REQ_TASK_ID, 0, 0, 0,
                         24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    collector_lookup()(batch);
    int state = batch[4], p = atomic_load(&phase);
    uint64_t region = 0;
    if (batch[14] == OMP_ERRCODE_OK && batch[15] == 8)
        memcpy(&region, &batch[16], sizeof region);
    atomic_fetch_add(&samples, 1);
    if (role < 0 || role >= TEAM || p == P_NONE)
        return;
    /* The initial thread's team of one: the other thread idles outside any region meanwhile. */
    if ((p == P_TEAM_OF_ONE || p == P_UNTIED_TEAM_OF_ONE) && role != 0)
        return;
    if (state < THR_OVHD_STATE || state > THR_LAST_STATE)
        state = THR_LAST_STATE + 1;
    atomic_fetch_add(&counts[p][role][state], 1);
    atomic_fetch_add(&by_where[p][where][state], 1);
    if (where == W_COMPUTE && region == 0)
        atomic_fetch_add(&computing_outside_region[p], 1);
    if (batch[9] != OMP_ERRCODE_OK || batch[10] != 4 || batch[11] <= 0)
        atomic_fetch_add(&task_id_missing, 1);
}

/* A 1 kHz sampling timer per thread. */
#define SAMPLE_PERIOD_NS 1000000

static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/*
 * A task's own computing, below the cut-off: user code, inside every wait of
 * its ancestors.  Besides the timer's samples, each computing task samples
 * itself once (SIGPROF to its own thread, handled before raise returns):
 * on a loaded machine the threads that compute are the ones the scheduler
 * takes the CPU from, so the timer alone may land there too seldom for the
 * 100 samples the check needs, while a self-sample lands there by
 * construction.
 */
static long compute(int n)
{
    where = W_COMPUTE;
    raise(SIGPROF);
    long result = serial_fib(n);
    where = W_OTHER;
    return result;
}

/* Recursive tasks joined by taskwait: every task above the cut-off waits for its two children. */
static long fib_taskwait(int n)
{
    if (n < CUTOFF)
        return compute(n);
    long x, y;
#pragma omp task shared(x)
    x = fib_taskwait(n - 1);
#pragma omp task shared(y)
    y = fib_taskwait(n - 2);
#pragma omp taskwait
    return x + y;
}

/* The same with a taskgroup per level: its end waits for the children and their descendants. */
static long fib_taskgroup(int n)
{
    if (n < CUTOFF)
        return compute(n);
    long x, y;
#pragma omp taskgroup
    {
#pragma omp task shared(x)
        x = fib_taskgroup(n - 1);
#pragma omp task shared(y)
        y = fib_taskgroup(n - 2);
    }
    return x + y;
}

/* fib_taskwait with untied tasks. */
static long fib_untied(int n)
{
    if (n < CUTOFF)
        return compute(n);
    long x, y;
#pragma omp task untied shared(x)
    x = fib_untied(n - 1);
#pragma omp task untied shared(y)
    y = fib_untied(n - 2);
#pragma omp taskwait
    return x + y;
}

static volatile long sink;

/* Samples of phase `p` taken where the program says `w`, in `state` (0: any). */
static long at(int p, int w, int state)
{
    long total = 0;
    for (int s = 1; s <= THR_LAST_STATE + 1; s++)
        if (state == 0 || s == state)
            total += atomic_load(&by_where[p][w][s]);
    return total;
}

/*
 * Whether phase `p` may end: it has run `seconds`, and its threads were
 * sampled at least 100 times while computing -- on a loaded machine they
 * get the CPU less often -- or it has run ten times as long.
 */
static int phase_done(int p, double start, double seconds)
{
    double elapsed = sampler_now() - start;
    return elapsed >= seconds && (at(p, W_COMPUTE, 0) >= 100 || elapsed >= 10 * seconds);
}

/* Each phase runs for `seconds` or more in a team of two, sampled at 1 kHz per thread. */
static void run_phases(int n, double seconds)
{
#pragma omp parallel num_threads(TEAM)
    {
        role = omp_get_thread_num();
        sampler_arm_thread(SAMPLE_PERIOD_NS);
#pragma omp barrier
#pragma omp single
        {
            atomic_store(&phase, P_FIB_TASKWAIT);
            for (double start = sampler_now(); !phase_done(P_FIB_TASKWAIT, start, seconds);)
                sink += fib_taskwait(n);
            atomic_store(&phase, P_NONE);
        }
#pragma omp single
        {
            atomic_store(&phase, P_FIB_TASKGROUP);
            for (double start = sampler_now(); !phase_done(P_FIB_TASKGROUP, start, seconds);)
                sink += fib_taskgroup(n);
            atomic_store(&phase, P_NONE);
        }
        /*
         * Thread 0 makes one long task and waits for it once thread 1 has
         * taken it: nothing else is left to run, so thread 0 truly waits.
         */
        if (role == 0) {
            _Atomic int started = 0;
            atomic_store(&phase, P_LONG_TASK);
#pragma omp task shared(started)
            {
                atomic_store(&started, 1);
                where = W_COMPUTE;
                /* Long enough for 100 samples of each thread, or ten times `seconds`. */
                for (double start = sampler_now();
                     sampler_now() - start < seconds
                     || ((at(P_LONG_TASK, W_WAIT, 0) < 100 || at(P_LONG_TASK, W_COMPUTE, 0) < 100)
                         && sampler_now() - start < 10 * seconds);)
                    sink++;
                where = W_OTHER;
            }
            while (!atomic_load(&started))
                sink++;
            where = W_WAIT;
#pragma omp taskwait
            where = W_OTHER;
            atomic_store(&phase, P_NONE);
        }
        /*
         * Each thread of the team forks a team of one of its own (a nested
         * region, serialized) and runs tasks in it: libomp runs them at once.
         */
#pragma omp barrier
#pragma omp single
        atomic_store(&phase, P_INNER_TEAM_OF_ONE);
        double start = sampler_now();
#pragma omp parallel num_threads(1)
        while (!phase_done(P_INNER_TEAM_OF_ONE, start, seconds))
            sink += fib_taskwait(n);
#pragma omp barrier
#pragma omp single
        atomic_store(&phase, P_NONE);
    }
}

/*
 * Tasks in a team of one (OMP_NUM_THREADS=1, or one core): libomp runs
 * each at once on its creator, as BOTS fib and health do with one thread.
 * On the initial thread, whose timer the team of two armed.
 */
static void run_team_of_one(int n, double seconds)
{
#pragma omp parallel num_threads(1)
    {
        role = omp_get_thread_num();
#pragma omp single
        {
            atomic_store(&phase, P_TEAM_OF_ONE);
            for (double start = sampler_now(); !phase_done(P_TEAM_OF_ONE, start, seconds);)
                sink += fib_taskwait(n);
            atomic_store(&phase, P_UNTIED_TEAM_OF_ONE);
            for (double start = sampler_now(); !phase_done(P_UNTIED_TEAM_OF_ONE, start, seconds);)
                sink += fib_untied(n);
            atomic_store(&phase, P_NONE);
        }
    }
}

static long in_state(int p, int r, int state)
{
    long total = 0;
    for (int s = 1; s <= THR_LAST_STATE + 1; s++)
        if (state == 0 || s == state)
            total += atomic_load(&counts[p][r][s]);
    return total;
}

/* Percent of both threads' samples in phase `p` that read `state`; prints the split. */
static long share(int p, int first, int last, int state)
{
    long all = 0, hits = 0;
    for (int r = first; r <= last; r++) {
        all += in_state(p, r, 0);
        hits += in_state(p, r, state);
    }
    return all > 0 ? hits * 100 / all : -1;
}

static void report(int p)
{
    for (int r = 0; r < TEAM; r++)
        printf("# %s, thread %d: %ld samples: WORK %ld, task wait (EBAR) %ld, IBAR %ld, OVHD %ld, other %ld\n",
               phase_names[p], r, in_state(p, r, 0), in_state(p, r, THR_WORK_STATE),
               in_state(p, r, THR_EBAR_STATE), in_state(p, r, THR_IBAR_STATE),
               in_state(p, r, THR_OVHD_STATE),
               in_state(p, r, 0) - in_state(p, r, THR_WORK_STATE) - in_state(p, r, THR_EBAR_STATE)
                   - in_state(p, r, THR_IBAR_STATE) - in_state(p, r, THR_OVHD_STATE));
}

int main(void)
{
    const char *duration = getenv("TASK_SAMPLING_SECONDS");
    double seconds = duration != NULL ? atof(duration) : 0.25;
    const char *size = getenv("TASK_SAMPLING_FIB");
    int n = size != NULL ? atoi(size) : 27;
    if (collector_lookup_reported() == NULL || !collector_report_runtime())
        return 1;
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    sampler_install(SIGPROF, on_sample);
    run_phases(n, seconds);
    run_team_of_one(n, seconds);

    printf("# %ld samples; fib(%d) cut off below %d; %.2f s per phase\n", atomic_load(&samples), n,
           CUTOFF, seconds);
    for (int p = P_FIB_TASKWAIT; p < P_COUNT; p++)
        report(p);
    for (int p = P_FIB_TASKWAIT; p <= P_FIB_TASKGROUP; p++) {
        long computing = at(p, W_COMPUTE, 0), as_work = at(p, W_COMPUTE, THR_WORK_STATE);
        printf("# %s: WORK %ld%% and task wait %ld%% of all samples; %ld samples landed in a task's "
               "computing, %ld of them read WORK\n",
               phase_names[p], share(p, 0, TEAM - 1, THR_WORK_STATE),
               share(p, 0, TEAM - 1, THR_EBAR_STATE), computing, as_work);
        char what[160];
        snprintf(what, sizeof what,
                 "%s: a task computing inside its ancestors' task waits reads WORK (>= 99%% of "
                 "those samples)",
                 phase_names[p]);
        check(computing >= 100 && as_work * 100 >= computing * 99, what);
    }
    for (int p = P_TEAM_OF_ONE; p <= P_INNER_TEAM_OF_ONE; p++) {
        long computing = at(p, W_COMPUTE, 0), as_work = at(p, W_COMPUTE, THR_WORK_STATE);
        long outside = atomic_load(&computing_outside_region[p]);
        printf("# %s: %ld samples landed in a task's computing, %ld of them read WORK, %ld SERIAL, "
               "%ld CURRENT_PRID 0\n",
               phase_names[p], computing, as_work, at(p, W_COMPUTE, THR_SERIAL_STATE), outside);
        char what[160];
        snprintf(what, sizeof what, "%s: a task computing reads WORK (>= 99%% of those samples)",
                 phase_names[p]);
        check(computing >= 100 && as_work * 100 >= computing * 99, what);
        snprintf(what, sizeof what, "%s: a task computing is in its team's region (CURRENT_PRID not 0)",
                 phase_names[p]);
        check(computing >= 100 && outside == 0, what);
    }
    long waiting = at(P_LONG_TASK, W_WAIT, 0), as_wait = at(P_LONG_TASK, W_WAIT, THR_EBAR_STATE);
    long running = at(P_LONG_TASK, W_COMPUTE, 0), as_work = at(P_LONG_TASK, W_COMPUTE, THR_WORK_STATE);
    printf("# %s: %ld of %ld waiting samples read the task-wait state, %ld of %ld running samples WORK\n",
           phase_names[P_LONG_TASK], as_wait, waiting, as_work, running);
    check(waiting >= 100 && as_wait * 100 >= waiting * 95,
          "a thread in a taskwait for a long task another thread runs reads the task-wait state (>= 95%)");
    check(running >= 100 && as_work * 100 >= running * 99,
          "the thread running the long task reads WORK (>= 99%)");
    check(atomic_load(&task_id_missing) == 0,
          "every sample in a region gets a positive 4-byte TASK_ID from the signal handler");
    return failures != 0;
}
