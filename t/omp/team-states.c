/* team-states.c - STATE sampled next to the runtime's own ompt_get_state and team membership: inner teams of nested regions and the teams of other root threads wait in IBAR, not IDLE; a reduction's combine reads REDUC. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "chain.h"
#include "sampler.h"

/*
 * This program is an OMPT tool too, in front of the shim (see chain.h),
 * keeping libomp's lookup function for itself, so a sample can ask the
 * runtime what it says next to what the shim answers.
 */
static ompt_get_state_t runtime_state;
static ompt_get_parallel_info_t runtime_parallel_info;

/* The shim gets libomp's own lookup function; the runtime's state and parallel info are kept for the samples. */
ompt_function_lookup_t chain_shim_lookup(ompt_function_lookup_t runtime)
{
    runtime_state = (ompt_get_state_t)runtime("ompt_get_state");
    runtime_parallel_info = (ompt_get_parallel_info_t)runtime("ompt_get_parallel_info");
    return runtime;
}

enum phase { P_NONE, P_NESTED, P_ROOTS, P_REDUCTION, P_COUNT };
static const char *const phase_names[P_COUNT] = {"none", "nested teams", "other root threads' teams",
                                                 "a reduction's combine"};
static _Atomic int phase;
static int failures;

/* Region ids JOIN has been delivered for: their teams are over. */
#define MAX_REGIONS (1 << 20)
static _Atomic unsigned char joined[MAX_REGIONS];

static void on_join(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    uint64_t region = 0;
    collector_prid(OMP_REQ_CURRENT_PRID, &region);
    if (region < MAX_REGIONS)
        atomic_store(&joined[region], 1);
}

/* Per phase: samples where the runtime said a barrier wait in a live team, and how many we agreed with. */
static _Atomic long team_waits[P_COUNT], team_waits_ibar[P_COUNT], team_waits_prid[P_COUNT],
    team_waits_wait_id[P_COUNT], idle_samples[P_COUNT], idle_outside_team[P_COUNT],
    combining[P_COUNT], combining_reduc[P_COUNT], runtime_says_reduction[P_COUNT],
    samples[P_COUNT];
static _Atomic long combining_as[THR_LAST_STATE + 1];
static __thread volatile int in_combiner;

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* The sample: STATE and CURRENT_PRID from the shim, state and team from the runtime, one after the other. */
static void on_sample(int signo)
{
    (void)signo;
    int p = atomic_load(&phase);
    if (p == P_NONE || runtime_state == NULL)
        return;
    int32_t batch[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    collector_lookup()(batch);
    int ours = batch[4];
    uint64_t wait_id, prid;
    memcpy(&wait_id, &batch[5], sizeof wait_id);
    memcpy(&prid, &batch[11], sizeof prid);
    int theirs = runtime_state(NULL);
    ompt_data_t *parallel_data = NULL;
    int team_size = 0;
    int in_team = runtime_parallel_info(0, &parallel_data, &team_size) == 2 && parallel_data != NULL
                  && team_size > 1;
    uint64_t team_region = in_team ? parallel_data->value : 0;
    int live = in_team && team_region != 0 && team_region < MAX_REGIONS
               && !atomic_load(&joined[team_region]);
    atomic_fetch_add(&samples[p], 1);
    if (live && (theirs == ompt_state_wait_barrier_implicit_parallel || theirs == 0x13)) {
        atomic_fetch_add(&team_waits[p], 1);
        if (ours == THR_IBAR_STATE) {
            atomic_fetch_add(&team_waits_ibar[p], 1);
            atomic_fetch_add(&team_waits_prid[p], prid == team_region);
            atomic_fetch_add(&team_waits_wait_id[p], wait_id != 0 && wait_id >> 24 == team_region);
        }
    }
    if (ours == THR_IDLE_STATE) {
        atomic_fetch_add(&idle_samples[p], 1);
        atomic_fetch_add(&idle_outside_team[p], !live);
    }
    if (in_combiner) {
        atomic_fetch_add(&combining[p], 1);
        atomic_fetch_add(&combining_reduc[p], ours == THR_REDUC_STATE);
        if (ours >= 0 && ours <= THR_LAST_STATE)
            atomic_fetch_add(&combining_as[ours], 1);
        atomic_fetch_add(&runtime_says_reduction[p], theirs == ompt_state_work_reduction);
    }
}

/* A 2 kHz sampling timer per thread. */
#define SAMPLE_PERIOD_NS 500000

static double seconds;

/* One team of two: its master computes 2 ms, its worker 0.2 ms and then waits at the region's end. */
static void imbalanced_team(void)
{
#pragma omp parallel num_threads(2)
    {
        sampler_arm_thread(SAMPLE_PERIOD_NS);
        sampler_spin_for(omp_get_thread_num() == 0 ? 0.002 : 0.0002);
    }
}

/* The phase runs `seconds`, and on until its teams' waits were sampled 200 times (ten times as long at most). */
static int phase_done(int p, double start)
{
    double elapsed = sampler_now() - start;
    return elapsed >= seconds && (atomic_load(&team_waits[p]) >= 200 || elapsed >= 10 * seconds);
}

/* Two outer threads, each forking inner teams of two. */
static void nested(void)
{
    omp_set_max_active_levels(2);
    atomic_store(&phase, P_NESTED);
    double start = sampler_now();
    _Atomic int done = 0;
#pragma omp parallel num_threads(2)
    {
        sampler_arm_thread(SAMPLE_PERIOD_NS);
        while (!atomic_load(&done)) {
            imbalanced_team();
            if (omp_get_thread_num() == 0 && phase_done(P_NESTED, start))
                atomic_store(&done, 1);
        }
    }
    atomic_store(&phase, P_NONE);
}

static _Atomic int roots_done;

/* A root thread of its own, forking teams of two until told to stop. */
static void *root(void *unused)
{
    (void)unused;
    sampler_arm_thread(SAMPLE_PERIOD_NS);
    while (!atomic_load(&roots_done))
        imbalanced_team();
    return NULL;
}

/* Two pthreads, each the master of its own teams. */
static void roots(void)
{
    pthread_t threads[2];
    atomic_store(&phase, P_ROOTS);
    double start = sampler_now();
    for (int i = 0; i < 2; i++)
        if (pthread_create(&threads[i], NULL, root, NULL) != 0)
            return;
    while (!phase_done(P_ROOTS, start))
        usleep(1000);
    atomic_store(&roots_done, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&phase, P_NONE);
}

/* A combiner that takes its time, so samples land in it. */
static long slow_add(long a, long b)
{
    in_combiner = 1;
    sampler_spin_for(0.001);
    in_combiner = 0;
    return a + b;
}
#pragma omp declare reduction(slow_sum : long : omp_out = slow_add(omp_out, omp_in)) initializer(omp_priv = 0)

/*
 * A user-defined reduction over a team of four, which main has libomp
 * combine with its critical method (KMP_FORCE_REDUCTION=critical): every
 * thread combines inside the reduction callback's bracket then.  By
 * default libomp picks a method that reports no bracket for teams of four
 * or fewer, and the tree method for larger teams, where only the master's
 * part is bracketed; gcc code combines by itself.
 */
static long reduction(void)
{
    long total = 0;
    atomic_store(&phase, P_REDUCTION);
    double start = sampler_now();
    while (sampler_now() - start < seconds
           || (atomic_load(&combining[P_REDUCTION]) < 100 && sampler_now() - start < 10 * seconds)) {
        long sum = 0;
#pragma omp parallel for reduction(slow_sum : sum) num_threads(4)
        for (int i = 0; i < 60; i++) {
            sampler_arm_thread(SAMPLE_PERIOD_NS);
            sum += i;
        }
        total += sum;
    }
    atomic_store(&phase, P_NONE);
    return total;
}

/* Agreement with the runtime in one phase: IBAR where it says the thread waits in a live team. */
static void judge_teams(int p)
{
    long waits = atomic_load(&team_waits[p]), ibar = atomic_load(&team_waits_ibar[p]);
    long prid = atomic_load(&team_waits_prid[p]), wait_id = atomic_load(&team_waits_wait_id[p]);
    long idle = atomic_load(&idle_samples[p]), idle_ok = atomic_load(&idle_outside_team[p]);
    printf("# %s: %ld samples; the runtime says wait_barrier_implicit in a live team %ld times, we "
           "said IBAR %ld times (CURRENT_PRID that team's %ld, wait id its barrier's %ld); IDLE %ld "
           "times, %ld of them outside any live team\n",
           phase_names[p], atomic_load(&samples[p]), waits, ibar, prid, wait_id, idle, idle_ok);
    char what[200];
    snprintf(what, sizeof what,
             "%s: where the runtime says a thread waits in an implicit barrier of a live team, "
             "STATE says IBAR (>= 98%%)",
             phase_names[p]);
    check(waits >= 100 && ibar * 100 >= waits * 98, what);
    snprintf(what, sizeof what, "%s: those IBAR samples name that team's region (CURRENT_PRID) and one of its barriers (wait id)",
             phase_names[p]);
    check(ibar > 0 && prid * 100 >= ibar * 98 && wait_id * 100 >= ibar * 98, what);
    /*
     * Counted against the samples the runtime has in a live team's wait: a
     * team's end reaches the shim (parallel_end) a moment before it reaches
     * this program (JOIN), and a sample between reads IDLE rightly.
     */
    snprintf(what, sizeof what,
             "%s: IDLE where the runtime has the thread in a live team: at most 2%% of the samples "
             "waiting in one",
             phase_names[p]);
    check((idle - idle_ok) * 100 <= waits * 2, what);
}

int main(void)
{
    const char *duration = getenv("TEAM_STATES_SECONDS");
    seconds = duration != NULL ? atof(duration) : 0.2;
    /* Before START, which starts the runtime: it reads its settings once. */
    setenv("KMP_FORCE_REDUCTION", "critical", 1);
    if (collector_lookup_reported() == NULL || !collector_report_runtime())
        return 1;
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    check(chain_active() && runtime_state != NULL && runtime_parallel_info != NULL,
          "the program's own ompt_start_tool sits in front of the shim and sees the runtime's entry points");
    if (runtime_state == NULL || runtime_parallel_info == NULL)
        return 1;
    check(collector_register(OMP_EVENT_JOIN, on_join) == OMP_ERRCODE_OK, "JOIN registers");
    sampler_install(SIGPROF, on_sample);

    nested();
    judge_teams(P_NESTED);
    roots();
    judge_teams(P_ROOTS);

    long total = reduction();
    long combined = atomic_load(&combining[P_REDUCTION]);
    long reduc = atomic_load(&combining_reduc[P_REDUCTION]);
    printf("# %s: sum %ld; %ld samples in the combiner, %ld read REDUC; the runtime said work_reduction "
           "%ld times\n",
           phase_names[P_REDUCTION], total, combined, reduc,
           atomic_load(&runtime_says_reduction[P_REDUCTION]));
    printf("# in the combiner, by state:");
    for (int state = 1; state <= THR_LAST_STATE; state++)
        if (atomic_load(&combining_as[state]) != 0)
            printf(" %d: %ld", state, atomic_load(&combining_as[state]));
    printf("\n");
    if (getenv("WORKLOAD_IS_GCC") != NULL)
        printf("ok - a thread combining a reduction reads REDUC # SKIP gcc code combines reductions "
               "itself: libomp reports no reduction to bracket\n");
    else
        check(combined >= 50 && reduc * 100 >= combined * 95,
              "a thread combining a reduction reads REDUC (>= 95% of the samples in the combiner), "
              "though the runtime never says work_reduction");
    return failures != 0;
}
