/* sampling.c - samples STATE and CURRENT_PRID from signal handlers on every thread at 10 kHz over phases built to sit in each state. */
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

#define TEAM 4
#define HOLD_US 150000
enum phase { P_NONE, P_CRITICAL, P_LOCK, P_BARRIER, P_IMBALANCE, P_ORDERED, P_BETWEEN, P_WORK, P_COUNT };
static const char *const phase_names[P_COUNT] = {"none", "critical", "lock", "explicit barrier",
                                                 "imbalanced loop", "ordered", "between regions",
                                                 "work"};
#define ROLES (TEAM + 1) /* team threads 0..3, and the sampler-less main between regions */

static _Atomic int phase;
static __thread int role = -1; /* thread number in the team, set when a phase begins */
/* The phase whose wait this thread is in right now; samples outside a window count by phase only for idle workers. */
static __thread volatile int window = P_NONE;
static _Atomic long counts[P_COUNT][ROLES][THR_LAST_STATE + 1];
static _Atomic long out_of_range, samples;
static _Atomic uint64_t first_wait_id[P_COUNT][THR_LAST_STATE + 1];
static _Atomic long wait_id_mismatch[P_COUNT][THR_LAST_STATE + 1];
static _Atomic long nonzero_prid_when_idle;
static int failures;

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* The sample: one batched STATE + CURRENT_PRID, as a profiler's SIGPROF handler sends it. */
static void on_sample(int signo)
{
    (void)signo;
    int32_t batch[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    int (*api)(void *) = collector_lookup();
    api(batch);
    int state = batch[4];
    uint64_t wait_id, prid;
    memcpy(&wait_id, &batch[5], sizeof wait_id);
    memcpy(&prid, &batch[11], sizeof prid);
    atomic_fetch_add(&samples, 1);
    if (state < THR_OVHD_STATE || state > THR_ATWT_STATE) {
        atomic_fetch_add(&out_of_range, 1);
        return;
    }
    if ((state == THR_IDLE_STATE || state == THR_SERIAL_STATE) && prid != 0)
        atomic_fetch_add(&nonzero_prid_when_idle, 1);
    int r = role < 0 ? TEAM : role;
    int p = window;
    if (p == P_NONE && atomic_load(&phase) == P_BETWEEN)
        p = P_BETWEEN; /* workers have no code of their own between regions */
    atomic_fetch_add(&counts[p][r][state], 1);
    if (state >= THR_LKWT_STATE || state == THR_EBAR_STATE) {
        uint64_t expected = 0;
        if (!atomic_compare_exchange_strong(&first_wait_id[p][state], &expected, wait_id)
            && expected != wait_id)
            atomic_fetch_add(&wait_id_mismatch[p][state], 1);
    }
}

/* A 10 kHz sampling timer per thread. */
#define SAMPLE_PERIOD_NS 100000

static void spin_for(long microseconds)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < microseconds);
}

static omp_lock_t lock;

/*
 * Markers, not a head start: thread 0 says when it holds the phase's
 * critical or lock, and the others want it only then (a thread the machine
 * left off the CPU could otherwise take it first, and nobody would wait);
 * each says it wants it, and thread 0 holds on HOLD_US after the last.
 */
static _Atomic int holding[P_COUNT], wanting[P_COUNT];

static long count_in(int p, int first_role, int last_role, int state);

/*
 * The samples a phase's checks need (expect_state: more than 20) twice
 * over: each phase's holder holds for HOLD_US and then until the waiting
 * threads -- and between regions the initial thread too -- have that many,
 * up to ten times as long.  A loaded machine delivers a thread that seldom
 * runs a fraction of its 10 kHz (33 waiting samples in a critical phase
 * beside a CPU hog), so a fixed time is not a fixed count.
 */
#define ENOUGH_SAMPLES 40
/* The samples of the whole run main's first check counts (more than 2000): not a rate a loaded machine keeps (1458 beside two CPU hogs). */
#define ENOUGH_IN_ALL 2000

static void hold_phase(int p)
{
    double start = sampler_now();
    spin_for(HOLD_US);
    while ((count_in(p, 1, TEAM - 1, 0) < ENOUGH_SAMPLES
            || (p == P_BETWEEN && count_in(p, TEAM, TEAM, 0) < ENOUGH_SAMPLES))
           && sampler_now() - start < 10 * HOLD_US / 1e6)
        spin_for(100);
}

/* Thread 0, holding phase p's resource: until the rest of the team wants it, then as hold_phase. */
static void hold(int p)
{
    atomic_store(&holding[p], 1);
    while (atomic_load(&wanting[p]) < omp_get_num_threads() - 1)
        ;
    hold_phase(p);
}

/* Another thread: once thread 0 holds phase p's resource, in p's window and saying it wants it. */
static void want(int p)
{
    while (!atomic_load(&holding[p]))
        ;
    window = p;
    atomic_fetch_add(&wanting[p], 1);
}

/* Each phase: thread 0 holds something for HOLD_US while the others wait for it. */
static void run_phases(void)
{
#pragma omp parallel num_threads(TEAM)
    {
        role = omp_get_thread_num();
#pragma omp barrier
#pragma omp single
        atomic_store(&phase, P_CRITICAL);
        if (role == 0) {
#pragma omp critical(held)
            hold(P_CRITICAL);
        } else {
            want(P_CRITICAL);
#pragma omp critical(held)
            {
                window = P_NONE;
                spin_for(100);
            }
        }
#pragma omp barrier
#pragma omp single
        atomic_store(&phase, P_LOCK);
        if (role == 0) {
            omp_set_lock(&lock);
            hold(P_LOCK);
            omp_unset_lock(&lock);
        } else {
            want(P_LOCK);
            omp_set_lock(&lock);
            window = P_NONE;
            omp_unset_lock(&lock);
        }
#pragma omp barrier
#pragma omp single
        atomic_store(&phase, P_BARRIER);
        if (role == 0)
            hold_phase(P_BARRIER);
        else
            window = P_BARRIER;
#pragma omp barrier
        window = P_NONE;
#pragma omp single
        atomic_store(&phase, P_IMBALANCE);
#pragma omp for schedule(static)
        for (int i = 0; i < TEAM; i++) {
            if (i == 0)
                hold_phase(P_IMBALANCE);
            else
                spin_for(1000);
            if (i != 0)
                window = P_IMBALANCE; /* what follows is the loop's implicit barrier */
        }
        window = P_NONE;
#pragma omp single
        atomic_store(&phase, P_ORDERED);
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < TEAM; i++) {
            if (i != 0)
                window = P_ORDERED;
#pragma omp ordered
            {
                window = P_NONE;
                if (i == 0)
                    hold_phase(P_ORDERED);
                else
                    spin_for(100);
            }
        }
    }
    role = -1; /* the initial thread is back in serial code */
    atomic_store(&phase, P_BETWEEN);
    hold_phase(P_BETWEEN);
    atomic_store(&phase, P_WORK);
#pragma omp parallel num_threads(TEAM)
    {
        /* And until the run has its ENOUGH_IN_ALL samples, up to 20 times HOLD_US. */
        double start = sampler_now();
        window = P_WORK;
        spin_for(HOLD_US);
        while (atomic_load(&samples) <= ENOUGH_IN_ALL && sampler_now() - start < 20 * HOLD_US / 1e6)
            spin_for(100);
        window = P_NONE;
    }
    atomic_store(&phase, P_NONE);
}

static long count_in(int p, int first_role, int last_role, int state)
{
    long total = 0;
    for (int r = first_role; r <= last_role; r++)
        for (int s = 1; s <= THR_LAST_STATE; s++)
            if (state == 0 || s == state)
                total += atomic_load(&counts[p][r][s]);
    return total;
}

/* At least half the waiting threads' samples in a phase read `state`, and none read `never`. */
static void expect_state(int p, int state, int never, const char *what)
{
    long all = count_in(p, 1, TEAM - 1, 0), hits = count_in(p, 1, TEAM - 1, state);
    long wrong = never != 0 ? count_in(p, 1, TEAM - 1, never) : 0;
    printf("# %s: %ld of %ld waiting-thread samples read %d, %ld read %d\n", phase_names[p], hits,
           all, state, wrong, never);
    check(all > 20 && hits * 2 >= all && wrong * 10 <= hits, what);
}

int main(void)
{
    failures += !collector_report_runtime();
    omp_init_lock(&lock);
    if (collector_simple(OMP_REQ_START) != OMP_ERRCODE_OK)
        return printf("not ok - START succeeds\n"), 1;
    sampler_install(SIGPROF, on_sample);
    /* Warm the team up so every worker exists before sampling starts. */
#pragma omp parallel num_threads(TEAM)
    {
        role = omp_get_thread_num();
        sampler_arm_thread(SAMPLE_PERIOD_NS);
    }
    role = -1;
    run_phases();

    printf("# %ld samples in all\n", atomic_load(&samples));
    check(atomic_load(&samples) > ENOUGH_IN_ALL, "every thread was sampled at 10 kHz without hanging");
    check(atomic_load(&out_of_range) == 0, "every sampled state is one of 1..11");
    check(atomic_load(&nonzero_prid_when_idle) == 0, "CURRENT_PRID is 0 whenever STATE says SERIAL or IDLE");
    expect_state(P_CRITICAL, THR_CTWT_STATE, THR_LKWT_STATE,
                 "threads waiting for a contended critical read CTWT, not LKWT");
    expect_state(P_LOCK, THR_LKWT_STATE, THR_CTWT_STATE, "threads waiting in omp_set_lock read LKWT");
    if (getenv("WORKLOAD_IS_GCC") != NULL)
        printf("ok - threads in an explicit barrier read EBAR # SKIP gcc code reports every barrier as barrier_implementation\n");
    else
        expect_state(P_BARRIER, THR_EBAR_STATE, THR_IBAR_STATE, "threads in an explicit barrier read EBAR");
    expect_state(P_IMBALANCE, THR_IBAR_STATE, THR_EBAR_STATE,
                 "threads done with an imbalanced loop read IBAR");
    expect_state(P_ORDERED, THR_ODWT_STATE, 0, "threads waiting their ordered turn read ODWT");
    expect_state(P_BETWEEN, THR_IDLE_STATE, 0, "workers between regions read IDLE");
    long between_main = count_in(P_BETWEEN, TEAM, TEAM, 0);
    long between_serial = count_in(P_BETWEEN, TEAM, TEAM, THR_SERIAL_STATE);
    printf("# between regions: %ld of %ld initial-thread samples read SERIAL\n", between_serial,
           between_main);
    check(between_main > 20 && between_serial * 10 >= between_main * 9,
          "the initial thread in serial code reads SERIAL");
    long idle_as_ibar = count_in(P_BETWEEN, 1, TEAM - 1, THR_IBAR_STATE);
    check(idle_as_ibar * 10 <= count_in(P_BETWEEN, 1, TEAM - 1, THR_IDLE_STATE),
          "workers between regions do not read IBAR");
    expect_state(P_WORK, THR_WORK_STATE, 0, "threads running user code read WORK");
    static const int lock_states[] = {THR_CTWT_STATE, THR_LKWT_STATE};
    static const int lock_phases[] = {P_CRITICAL, P_LOCK};
    int same_ids = 1;
    for (int i = 0; i < 2; i++)
        same_ids &= atomic_load(&wait_id_mismatch[lock_phases[i]][lock_states[i]]) == 0
                    && atomic_load(&first_wait_id[lock_phases[i]][lock_states[i]]) != 0;
    check(same_ids, "all threads waiting on one critical or lock read the same nonzero wait id");
    omp_destroy_lock(&lock);
    return failures != 0;
}
