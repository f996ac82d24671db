/* states.c - deterministic STATE checks: a monitor thread signals threads parked in known constructs, and the handler's STATE and CURRENT_PRID answers are held against the construct. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <errno.h>
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
#include "sampler.h"

#define TEAM 4
#define PROBE_SIGNAL SIGUSR1
#define STABLE_PROBES 5         /* readings that must agree once a thread is parked */
#define ARRIVAL_LIMIT_MS 5000   /* how long a thread may take to reach its construct */
#define ANSWER_LIMIT_MS 2000    /* how long a signalled thread may take to answer */

static int failures;
static int (*api)(void *);

/* One unnumbered TAP line; the script numbers them. */
static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* A TAP line for a state this compiler's code can never put a thread in. */
static void skip(const char *what, const char *why)
{
    printf("ok - %s # SKIP %s\n", what, why);
}

/* The kernel's thread id: tgkill names threads by it, and libomp's threads have no pthread_t the test knows. */
static pid_t my_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Monotonic milliseconds, for the arrival and answer limits. */
static long now_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000L + now.tv_nsec / 1000000L;
}

/* Sleeps rather than spins, so a waiting thread leaves the CPUs to the threads under test. */
static void pause_us(long microseconds)
{
    struct timespec delay = {0, microseconds * 1000L};
    nanosleep(&delay, NULL);
}

/* What one signalled thread answered. */
struct sample {
    int answered;
    int state, state_ec, prid_ec;
    uint64_t wait_id, prid;
};

/* The handler's answer, published by `answers` moving on. */
static _Atomic int got_state, got_state_ec, got_prid_ec;
static _Atomic uint64_t got_wait_id, got_prid;
static _Atomic unsigned answers;

/* The probe: STATE and CURRENT_PRID in one batch, as a profiler's signal handler sends them. */
static void on_probe(int signo)
{
    (void)signo;
    int saved_errno = errno;
    int32_t batch[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    uint64_t wait_id, prid;
    api(batch);
    memcpy(&wait_id, &batch[5], sizeof wait_id);
    memcpy(&prid, &batch[11], sizeof prid);
    atomic_store(&got_state, batch[4]);
    atomic_store(&got_state_ec, batch[2]);
    atomic_store(&got_prid_ec, batch[9]);
    atomic_store(&got_wait_id, wait_id);
    atomic_store(&got_prid, prid);
    atomic_fetch_add(&answers, 1);
    errno = saved_errno;
}

/* The monitor's mailbox: one probe request at a time, served in order. */
static pthread_mutex_t probe_mutex = PTHREAD_MUTEX_INITIALIZER;
static _Atomic pid_t request_tid;
static _Atomic unsigned requests, replies;
static _Atomic int monitor_quit;
static struct sample reply;

/*
 * The monitor: a thread the runtime does not own, which signals the thread
 * named in the mailbox with tgkill and waits for its handler's answer.
 */
static void *monitor(void *arg)
{
    (void)arg;
    unsigned served = 0;
    while (!atomic_load(&monitor_quit)) {
        if (atomic_load(&requests) == served) {
            pause_us(20);
            continue;
        }
        served = atomic_load(&requests);
        struct sample s = {0};
        unsigned before = atomic_load(&answers);
        if (syscall(SYS_tgkill, getpid(), atomic_load(&request_tid), PROBE_SIGNAL) == 0) {
            long limit = now_ms() + ANSWER_LIMIT_MS;
            while (atomic_load(&answers) == before && now_ms() < limit)
                pause_us(10);
            if (atomic_load(&answers) != before) {
                s.answered = 1;
                s.state = atomic_load(&got_state);
                s.state_ec = atomic_load(&got_state_ec);
                s.prid_ec = atomic_load(&got_prid_ec);
                s.wait_id = atomic_load(&got_wait_id);
                s.prid = atomic_load(&got_prid);
            }
        }
        reply = s;
        atomic_store(&replies, served);
    }
    return NULL;
}

/* Has the monitor signal `tid` and returns what its handler answered; any thread may ask, itself included. */
static struct sample observe(pid_t tid)
{
    pthread_mutex_lock(&probe_mutex);
    atomic_store(&request_tid, tid);
    unsigned ticket = atomic_fetch_add(&requests, 1) + 1;
    while (atomic_load(&replies) != ticket)
        pause_us(20);
    struct sample s = reply;
    pthread_mutex_unlock(&probe_mutex);
    return s;
}

/* A state's legacy name, for diagnostics. */
static const char *state_name(int state)
{
    static const char *const names[] = {"0?",   "OVHD",   "WORK",  "IBAR", "EBAR", "IDLE", "SERIAL",
                                        "REDUC", "LKWT", "CTWT", "ODWT", "ATWT", "12"};
    return state >= 0 && state <= 12 ? names[state] : "out of range";
}

/*
 * Waits for thread `tid` to be parked in `state`: it may still be on its
 * way into the construct, or not yet scheduled, so readings before the
 * first one of `state` are only reported.  From then on it cannot leave
 * until the test lets it, so STABLE_PROBES more readings must agree on
 * state, wait id and region id, with both requests answering OK.
 */
static int parked_in(pid_t tid, int state, struct sample *out, const char *who)
{
    struct sample s = {0};
    int on_the_way[16] = {0};
    long limit = now_ms() + ARRIVAL_LIMIT_MS;
    for (;;) {
        s = observe(tid);
        if (s.answered && s.state == state)
            break;
        if (s.answered && s.state >= 0 && s.state < 16)
            on_the_way[s.state]++;
        if (now_ms() >= limit)
            break;
        pause_us(1000);
    }
    *out = s;
    if (!s.answered || s.state != state) {
        printf("# %s: never read %s in %d ms; last %s%s (wait id %#llx, region %llu)\n", who,
               state_name(state), ARRIVAL_LIMIT_MS, s.answered ? "read " : "probe unanswered",
               s.answered ? state_name(s.state) : "", (unsigned long long)s.wait_id,
               (unsigned long long)s.prid);
        return 0;
    }
    for (int i = 0; i < 16; i++)
        if (on_the_way[i] != 0)
            printf("# %s: read %s %d times on its way in\n", who, state_name(i), on_the_way[i]);
    if (s.state_ec != OMP_ERRCODE_OK || s.prid_ec != OMP_ERRCODE_OK) {
        printf("# %s: STATE answered ec %d, CURRENT_PRID ec %d\n", who, s.state_ec, s.prid_ec);
        return 0;
    }
    for (int i = 0; i < STABLE_PROBES; i++) {
        pause_us(2000);
        struct sample again = observe(tid);
        if (!again.answered || again.state != s.state || again.wait_id != s.wait_id
            || again.prid != s.prid || again.state_ec != OMP_ERRCODE_OK
            || again.prid_ec != OMP_ERRCODE_OK) {
            printf("# %s: reading %d of a parked thread: %s wait id %#llx region %llu (ec %d/%d), "
                   "first %s wait id %#llx region %llu\n",
                   who, i + 2, again.answered ? state_name(again.state) : "unanswered",
                   (unsigned long long)again.wait_id, (unsigned long long)again.prid,
                   again.state_ec, again.prid_ec, state_name(s.state),
                   (unsigned long long)s.wait_id, (unsigned long long)s.prid);
            return 0;
        }
    }
    return 1;
}

/*
 * The construct each team thread last announced it is about to enter.  A
 * thread is probed only after its announcement: until then it may still be
 * in the previous construct, which can read the same state (one barrier
 * after another) and would pass for the one under test.
 */
enum phase {
    PH_NONE, PH_WORK, PH_CRITICAL, PH_LOCK, PH_NEST_LOCK, PH_BARRIER, PH_BARRIER2, PH_LOOP,
    PH_ORDERED, PH_CLOSING, PH_TASK_WAIT, PH_ATOMIC
};
static _Atomic int arrived[TEAM];

/* Announces that the calling thread, number `me` of its team, is about to enter `phase`. */
static void entering(int me, enum phase phase)
{
    atomic_store(&arrived[me], phase);
}

/* Waits for team thread `me` to announce `phase`; 0 if it never does. */
static int wait_for_arrival(int me, enum phase phase, const char *what)
{
    long limit = now_ms() + ARRIVAL_LIMIT_MS;
    while (atomic_load(&arrived[me]) < (int)phase) {
        if (now_ms() >= limit) {
            printf("# %s: thread %d never announced it got there\n", what, me);
            return 0;
        }
        pause_us(100);
    }
    return 1;
}

/* Team threads `members` (thread numbers, their tids in `tids`) announced `phase` and are parked in `state`. */
static int team_parked_in(const pid_t *tids, const int *members, int count, enum phase phase,
                          int state, struct sample *out, const char *what)
{
    int all = 1;
    char who[200];
    for (int i = 0; i < count; i++) {
        snprintf(who, sizeof who, "%s, thread %d", what, members[i]);
        if (!wait_for_arrival(members[i], phase, what)) {
            memset(&out[i], 0, sizeof out[i]);
            all = 0;
            continue;
        }
        all &= parked_in(tids[members[i]], state, &out[i], who);
    }
    return all;
}

/* Threads `tids` parked in `state`, for threads known to be in place already. */
static int all_parked_in(const pid_t *tids, int count, int state, struct sample *out,
                         const char *what)
{
    int all = 1;
    char who[200];
    for (int i = 0; i < count; i++) {
        snprintf(who, sizeof who, "%s, thread %d", what, i);
        all &= parked_in(tids[i], state, &out[i], who);
    }
    return all;
}

/* Whether the samples agree on one nonzero wait id, saying which did not. */
static int same_wait_id(const struct sample *s, int count, const char *what)
{
    int same = s[0].wait_id != 0;
    for (int i = 1; i < count; i++)
        same &= s[i].wait_id == s[0].wait_id;
    if (!same)
        for (int i = 0; i < count; i++)
            printf("# %s: thread %d wait id %#llx\n", what, i, (unsigned long long)s[i].wait_id);
    return same;
}

/* Whether every sample reads region `region` (nonzero). */
static int all_in_region(const struct sample *s, int count, uint64_t region)
{
    int all = region != 0;
    for (int i = 0; i < count; i++)
        all &= s[i].prid == region;
    return all;
}

/* Waits in user code (state WORK) until the holder has taken what this thread will wait for. */
static void spin_until(_Atomic int *flag, int value)
{
    while (atomic_load(flag) < value)
        pause_us(50);
}

#ifdef __clang__
#define BARRIER_CODE_STATE THR_EBAR_STATE
#else
/* gcc code reaches libomp's barriers through GOMP_barrier, reported as barrier_implementation. */
#define BARRIER_CODE_STATE THR_IBAR_STATE
/* What gcc's code calls around an atomic the hardware cannot do; the test holds it to park others. */
extern void GOMP_atomic_start(void);
extern void GOMP_atomic_end(void);
#endif

/* Before an explicit barrier: thread `prober` probes the three `waiters` parked in it; the others say they are entering. */
static void before_probed_barrier(int me, int prober, const pid_t *tids, const int *waiters, enum phase phase,
                                  struct sample *out, const char *what, int *ok)
{
    if (me == prober)
        *ok = team_parked_in(tids, waiters, 3, phase, BARRIER_CODE_STATE, out, what);
    else
        entering(me, phase);
}

static omp_lock_t lock_a, lock_b;
static omp_nest_lock_t nest_lock;
#ifndef __clang__
static volatile long double atomic_target;
#endif

/* Results of the team phases, checked once the region is over. */
static struct {
    int team;
    uint64_t region;
    pid_t tids[TEAM];
    int work_ok, critical_ok, lock_ok, nest_ok, barrier_ok, barrier2_ok, loop_ok, ordered_ok, end_ok;
    struct sample work[TEAM], critical[3], lock[3], nest, barrier[3], barrier2[3], loop[3],
        ordered[3], end[3];
} team;

static _Atomic int step;

/* Forgets the last region's announcements, which would otherwise count as arrivals in the next. */
static void reset_arrivals(void)
{
    for (int t = 0; t < TEAM; t++)
        atomic_store(&arrived[t], PH_NONE);
}

/*
 * One region walking through the constructs a thread can be parked in.  In
 * each, thread 0 (thread 1 for the second barrier) holds the construct and
 * has the others probed; a step counter makes sure it holds before they try.
 */
static __attribute__((noinline)) void team_phases(void)
{
    static const int everyone[TEAM] = {0, 1, 2, 3}, others[3] = {1, 2, 3}, not_1[3] = {0, 2, 3};
    atomic_store(&step, 0);
    reset_arrivals();
#pragma omp parallel num_threads(TEAM)
    {
        int me = omp_get_thread_num();
        team.tids[me] = my_tid();
        if (me == 0) {
            team.team = omp_get_num_threads();
            collector_prid(OMP_REQ_CURRENT_PRID, &team.region);
        }
#pragma omp barrier
        const pid_t *tids = team.tids;

        /* User code: every thread spins until all have been probed. */
        entering(me, PH_WORK);
        if (me == 0) {
            team.work_ok = team_parked_in(tids, everyone, TEAM, PH_WORK, THR_WORK_STATE, team.work,
                                          "user code");
            atomic_store(&step, 1);
        } else {
            spin_until(&step, 1);
        }

        /* critical(a) with two waiters, critical(b) with one, both held by thread 0. */
        if (me == 0) {
#pragma omp critical(held_a)
            {
#pragma omp critical(held_b)
                {
                    atomic_store(&step, 2);
                    team.critical_ok = team_parked_in(tids, others, 3, PH_CRITICAL, THR_CTWT_STATE,
                                                      team.critical, "waiting for a held critical");
                }
            }
        } else {
            spin_until(&step, 2);
            entering(me, PH_CRITICAL);
            if (me == 3) {
#pragma omp critical(held_b)
                atomic_fetch_add(&step, 0);
            } else {
#pragma omp critical(held_a)
                atomic_fetch_add(&step, 0);
            }
        }
#pragma omp barrier

        /* Locks the same way, then a nest lock taken twice by its holder. */
        if (me == 0) {
            omp_set_lock(&lock_a);
            omp_set_lock(&lock_b);
            atomic_store(&step, 3);
            team.lock_ok = team_parked_in(tids, others, 3, PH_LOCK, THR_LKWT_STATE, team.lock,
                                          "in omp_set_lock");
            omp_unset_lock(&lock_b);
            omp_unset_lock(&lock_a);
        } else {
            spin_until(&step, 3);
            omp_lock_t *mine = me == 3 ? &lock_b : &lock_a;
            entering(me, PH_LOCK);
            omp_set_lock(mine);
            omp_unset_lock(mine);
        }
#pragma omp barrier
        if (me == 0) {
            omp_set_nest_lock(&nest_lock);
            omp_set_nest_lock(&nest_lock);
            atomic_store(&step, 4);
            team.nest_ok = team_parked_in(tids, others, 1, PH_NEST_LOCK, THR_LKWT_STATE, &team.nest,
                                          "in omp_set_nest_lock");
            omp_unset_nest_lock(&nest_lock);
            omp_unset_nest_lock(&nest_lock);
        } else if (me == 1) {
            spin_until(&step, 4);
            entering(me, PH_NEST_LOCK);
            omp_set_nest_lock(&nest_lock);
            omp_unset_nest_lock(&nest_lock);
        }

        /* An explicit barrier thread 0 stays out of, then one thread 1 stays out of. */
        before_probed_barrier(me, 0, tids, others, PH_BARRIER, team.barrier, "in an explicit barrier",
                              &team.barrier_ok);
#pragma omp barrier
        before_probed_barrier(me, 1, tids, not_1, PH_BARRIER2, team.barrier2,
                              "in a second explicit barrier", &team.barrier2_ok);
#pragma omp barrier

        /* A loop whose iteration 0 (thread 0) lasts until the others are seen at its barrier. */
#pragma omp for schedule(static)
        for (int i = 0; i < TEAM; i++) {
            if (i == 0)
                team.loop_ok = team_parked_in(tids, others, 3, PH_LOOP, THR_IBAR_STATE, team.loop,
                                              "at a worksharing loop's barrier");
            else
                entering(me, PH_LOOP);
        }

        /* An ordered loop: iteration 0 holds its turn. */
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < TEAM; i++) {
            if (i != 0)
                entering(me, PH_ORDERED);
#pragma omp ordered
            if (i == 0)
                team.ordered_ok = team_parked_in(tids, others, 3, PH_ORDERED, THR_ODWT_STATE,
                                                 team.ordered, "waiting their ordered turn");
        }

        /* Thread 0 holds the region open while the others wait at its end. */
        if (me == 0)
            team.end_ok = team_parked_in(tids, others, 3, PH_CLOSING, THR_IBAR_STATE, team.end,
                                         "at the region's closing barrier");
        else
            entering(me, PH_CLOSING);
    }
}

/* Runs the team phases and holds each sample against its construct. */
static void check_team_phases(void)
{
    team_phases();
    if (team.team != TEAM) {
        printf("# a team of %d threads, asked for %d\n", team.team, TEAM);
        check(0, "the runtime gives a team of 4");
        return;
    }
    uint64_t region = team.region;
    int work_ids = 1;
    for (int t = 0; t < TEAM; t++)
        work_ids &= team.work[t].wait_id == 0;
    check(team.work_ok && work_ids && all_in_region(team.work, TEAM, region),
          "threads in user code read WORK, wait id 0, CURRENT_PRID the region's id");

    check(team.critical_ok, "threads waiting to enter a held critical read CTWT");
    check(team.critical_ok && same_wait_id(team.critical, 2, "critical(held_a)")
              && team.critical[2].wait_id != 0 && team.critical[2].wait_id != team.critical[0].wait_id,
          "waiters on one critical share a nonzero wait id; another critical's waiter reads another");
    check(team.critical_ok && all_in_region(team.critical, 3, region),
          "threads waiting for a critical read their region's id");

    check(team.lock_ok, "threads waiting in omp_set_lock read LKWT");
    check(team.lock_ok && same_wait_id(team.lock, 2, "lock_a") && team.lock[2].wait_id != 0
              && team.lock[2].wait_id != team.lock[0].wait_id,
          "waiters on one lock share a nonzero wait id; another lock's waiter reads another");
    check(team.lock_ok && all_in_region(team.lock, 3, region),
          "threads waiting for a lock read their region's id");
    check(team.nest_ok && team.nest.wait_id != 0 && team.nest.prid == region,
          "a thread waiting for a nest lock another thread holds reads LKWT and a nonzero wait id");

#ifdef __clang__
    check(team.barrier_ok && team.barrier2_ok, "threads in an explicit barrier read EBAR");
#else
    skip("threads in an explicit barrier read EBAR",
         "gcc code reports every barrier to libomp as barrier_implementation");
    check(team.barrier_ok && team.barrier2_ok,
          "gcc code: threads in an explicit barrier read IBAR, as its barriers are reported");
#endif
    int first_same = team.barrier_ok && same_wait_id(team.barrier, 3, "first explicit barrier");
    int second_same = team.barrier2_ok && same_wait_id(team.barrier2, 3, "second explicit barrier");
    check(first_same && second_same && team.barrier[0].wait_id != team.barrier2[0].wait_id,
          "all threads in one barrier read one nonzero wait id, and the next barrier another "
          "(the master among the waiters the second time)");
    check(team.barrier_ok && team.barrier2_ok && all_in_region(team.barrier, 3, region)
              && all_in_region(team.barrier2, 3, region),
          "threads in a barrier read their region's id");

    check(team.loop_ok, "threads done with their share of a loop read IBAR at its barrier");
    check(team.loop_ok && same_wait_id(team.loop, 3, "loop barrier")
              && team.loop[0].wait_id != team.barrier[0].wait_id
              && team.loop[0].wait_id != team.barrier2[0].wait_id
              && all_in_region(team.loop, 3, region),
          "the loop's barrier has one wait id of its own, and the region's id");

    check(team.ordered_ok, "threads waiting their ordered turn read ODWT");
    check(team.ordered_ok && same_wait_id(team.ordered, 3, "ordered")
              && all_in_region(team.ordered, 3, region),
          "threads waiting their ordered turn share a nonzero wait id and read their region's id");

    check(team.end_ok, "workers at the closing barrier of a region that has not ended read IBAR, not IDLE");
    check(team.end_ok && same_wait_id(team.end, 3, "closing barrier")
              && team.end[0].wait_id != team.loop[0].wait_id && all_in_region(team.end, 3, region),
          "the closing barrier has one wait id of its own, and the region's id");
}

/* Once a region is over its workers are idle: IDLE, wait id 0, CURRENT_PRID 0. */
static void check_idle_between_regions(void)
{
    static const int others[3] = {1, 2, 3};
    struct sample idle[3];
    /* Every worker announced the closing barrier before the region could end. */
    int ok = team_parked_in(team.tids, others, 3, PH_CLOSING, THR_IDLE_STATE, idle,
                            "between regions");
    int zero = 1;
    for (int i = 0; i < 3; i++)
        zero &= idle[i].wait_id == 0 && idle[i].prid == 0;
    check(ok, "workers between regions read IDLE");
    check(ok && zero, "workers between regions read wait id 0 and CURRENT_PRID 0");
}

/*
 * After a region that ran explicit tasks, libomp ends its workers' implicit
 * tasks as soon as the task team is done and reports them in its own idle
 * state, not in the barrier's: the other road to IDLE.
 */
static void check_idle_after_tasks(void)
{
    static const int others[3] = {1, 2, 3};
    _Atomic int tasks_run = 0;
    pid_t tids[TEAM] = {0};
    int team_size = 0;
    reset_arrivals();
#pragma omp parallel num_threads(TEAM)
    {
        int me = omp_get_thread_num();
        tids[me] = my_tid();
        if (me == 0) {
            team_size = omp_get_num_threads();
            for (int i = 0; i < TEAM * 2; i++) {
#pragma omp task shared(tasks_run)
                atomic_fetch_add(&tasks_run, 1);
            }
        }
        entering(me, PH_CLOSING);
    }
    struct sample idle[3];
    int ok = team_size == TEAM && atomic_load(&tasks_run) == TEAM * 2
             && team_parked_in(tids, others, 3, PH_CLOSING, THR_IDLE_STATE, idle,
                               "between regions, after tasks");
    int zero = ok;
    for (int i = 0; ok && i < 3; i++)
        zero &= idle[i].wait_id == 0 && idle[i].prid == 0;
    check(ok && zero, "workers between regions, after a region that ran tasks, read IDLE, wait id 0, "
                      "CURRENT_PRID 0");
}

/* The initial thread in serial code, and a thread the runtime never saw. */
static pthread_mutex_t bystander_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bystander_cond = PTHREAD_COND_INITIALIZER;
static int bystander_done;
static _Atomic pid_t bystander_tid;

/* A plain thread that only waits to be told to finish. */
static void *bystander(void *arg)
{
    (void)arg;
    atomic_store(&bystander_tid, my_tid());
    pthread_mutex_lock(&bystander_mutex);
    while (!bystander_done)
        pthread_cond_wait(&bystander_cond, &bystander_mutex);
    pthread_mutex_unlock(&bystander_mutex);
    return NULL;
}

/* Serial code reads SERIAL whether the thread is the initial one or one the runtime never saw. */
static void check_serial(void)
{
    struct sample serial;
    int ok = parked_in(my_tid(), THR_SERIAL_STATE, &serial, "the initial thread in serial code");
    check(ok && serial.wait_id == 0 && serial.prid == 0,
          "the initial thread in serial code reads SERIAL, wait id 0, CURRENT_PRID 0");

    pthread_t thread;
    if (pthread_create(&thread, NULL, bystander, NULL) != 0) {
        check(0, "a plain thread can be created");
        return;
    }
    while (atomic_load(&bystander_tid) == 0)
        pause_us(100);
    struct sample foreign;
    int foreign_ok = 0;
    /* Probed while a team runs, so the runtime is busy elsewhere. */
#pragma omp parallel num_threads(2)
    {
#pragma omp master
        foreign_ok = parked_in(atomic_load(&bystander_tid), THR_SERIAL_STATE, &foreign,
                               "a thread the runtime does not own");
    }
    pthread_mutex_lock(&bystander_mutex);
    bystander_done = 1;
    pthread_cond_signal(&bystander_cond);
    pthread_mutex_unlock(&bystander_mutex);
    pthread_join(thread, NULL);
    check(foreign_ok && foreign.wait_id == 0 && foreign.prid == 0,
          "a thread the runtime does not own reads SERIAL, wait id 0, CURRENT_PRID 0 while a team runs");
}

/* After a team of 4, a team of 2: the two left out (idle since the last region) are idle, not in a barrier. */
static void check_team_shrinks(void)
{
    pid_t small[2] = {0, 0};
    pid_t left_out[TEAM];
    int left = 0, team_size = 0, ok = 0;
    struct sample idle[TEAM];
    atomic_store(&step, 0);
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        small[me] = my_tid();
        team_size = omp_get_num_threads();
#pragma omp barrier
        if (me == 0) {
            for (int t = 0; t < TEAM; t++)
                if (team.tids[t] != small[0] && team.tids[t] != small[1])
                    left_out[left++] = team.tids[t];
            ok = left == 2 && all_parked_in(left_out, 2, THR_IDLE_STATE, idle, "left out of a smaller team");
        }
    }
    if (team_size != 2 || left != 2)
        printf("# team of %d, %d threads of the first team left out\n", team_size, left);
    int zero = ok;
    for (int i = 0; ok && i < 2; i++)
        zero &= idle[i].prid == 0 && idle[i].wait_id == 0;
    check(ok && zero, "threads left out of a smaller team read IDLE, wait id 0, CURRENT_PRID 0");
}

/*
 * Thread 0 waits in a taskwait (or at the end of a taskgroup) for a task
 * that ends only once thread 0 has been probed.  Thread 1 runs the task
 * and does the probing: thread 0 enters its wait only once the task has
 * started there, so it has nothing to run in the wait and is waiting (a
 * thread that runs a task inside its wait works: tasks-t.sh tests that).
 * First, thread 1 has thread 0 probed in a barrier, for its wait id.
 */
static void task_wait(int use_taskgroup, int expected, struct sample *barrier_sample,
                      int *barrier_ok, struct sample *wait_sample, uint64_t *region, int *ok)
{
    static const int master[1] = {0};
    _Atomic int released = 0, started = 0;
    pid_t tids[2] = {0, 0};
    *ok = 0;
    *barrier_ok = 0;
    *region = 0;
    reset_arrivals();
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        tids[me] = my_tid();
        if (me == 0)
            collector_prid(OMP_REQ_CURRENT_PRID, region);
        if (me == 1)
            *barrier_ok = team_parked_in(tids, master, 1, PH_BARRIER, BARRIER_CODE_STATE,
                                         barrier_sample, "in the barrier before a task wait");
        else
            entering(me, PH_BARRIER);
#pragma omp barrier
        if (me == 0) {
            if (use_taskgroup) {
#pragma omp taskgroup
                {
#pragma omp task shared(released, started, tids)
                    {
                        atomic_store(&started, 1);
                        *ok = team_parked_in(tids, master, 1, PH_TASK_WAIT, expected, wait_sample,
                                             "at the end of a taskgroup");
                        atomic_store(&released, 1);
                    }
                    while (!atomic_load(&started))
                        pause_us(100);
                    entering(me, PH_TASK_WAIT);
                }
            } else {
#pragma omp task shared(released, started, tids)
                {
                    atomic_store(&started, 1);
                    *ok = team_parked_in(tids, master, 1, PH_TASK_WAIT, expected, wait_sample,
                                         "in a taskwait");
                    atomic_store(&released, 1);
                }
                while (!atomic_load(&started))
                    pause_us(100);
                entering(me, PH_TASK_WAIT);
#pragma omp taskwait
            }
        }
    }
    if (!atomic_load(&released))
        *ok = 0;
}

/* The task-wait state in both numberings, and what its wait id must not be. */
static void check_task_waits(void)
{
    struct sample barrier, wait;
    uint64_t region;
    int ok, barrier_ok;
    task_wait(0, THR_EBAR_STATE, &barrier, &barrier_ok, &wait, &region, &ok);
    check(ok, "a thread in a taskwait reads THR_EBAR_STATE, the default task-wait state");
    check(ok && region != 0 && wait.prid == region, "a thread in a taskwait reads its region's id");
    check(ok && barrier_ok && wait.wait_id != barrier.wait_id,
          "a taskwait's wait id does not name the barrier the thread waited at before it");
    printf("# taskwait: wait id %#llx; the barrier before it: %#llx\n",
           (unsigned long long)wait.wait_id, (unsigned long long)barrier.wait_id);
    task_wait(1, THR_EBAR_STATE, &barrier, &barrier_ok, &wait, &region, &ok);
    check(ok, "a thread at the end of a taskgroup reads THR_EBAR_STATE");

    /* The numbering is read at START: a new session picks the variable up. */
    collector_simple(OMP_REQ_STOP);
    setenv("OMPCOLLECTOR_TASKWAIT_STATE", "12", 1);
    int restarted = collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK;
    task_wait(0, 12, &barrier, &barrier_ok, &wait, &region, &ok);
    check(restarted && ok, "with OMPCOLLECTOR_TASKWAIT_STATE=12, a thread in a taskwait reads 12");
    collector_simple(OMP_REQ_STOP);
    unsetenv("OMPCOLLECTOR_TASKWAIT_STATE");
    if (collector_simple(OMP_REQ_START) != OMP_ERRCODE_OK)
        check(0, "START again after the task-wait session");
}

/* Threads queued behind the runtime's atomic lock, held the way gcc's code takes it. */
static void check_atomic_wait(void)
{
#ifdef __clang__
    skip("threads waiting for an atomic the runtime serialises read ATWT",
         "clang code does atomics inline or through libatomic: no thread ever waits in the runtime");
#else
    static const int waiters[2] = {1, 2};
    pid_t tids[3] = {0, 0, 0};
    struct sample waiting[2];
    int ok = 0;
    atomic_store(&step, 0);
    reset_arrivals();
#pragma omp parallel num_threads(3)
    {
        int me = omp_get_thread_num();
        tids[me] = my_tid();
        if (me == 0) {
            GOMP_atomic_start();
            atomic_store(&step, 1);
            ok = team_parked_in(tids, waiters, 2, PH_ATOMIC, THR_ATWT_STATE, waiting,
                                "waiting for an atomic");
            GOMP_atomic_end();
        } else {
            spin_until(&step, 1);
            entering(me, PH_ATOMIC);
#pragma omp atomic
            atomic_target += 1.0L;
        }
    }
    check(ok, "threads waiting for a long double atomic the runtime serialises read ATWT");
    check(ok && same_wait_id(waiting, 2, "atomic") && waiting[0].prid != 0,
          "threads waiting for the runtime's atomic lock share a nonzero wait id and read their region's id");
#endif
}

/*
 * Two levels: the inner master (two regions deep) is probed in an inner
 * barrier, then the inner worker at the inner region's closing barrier and
 * the outer worker at the outer one's.  Each reads its own region's id, and
 * the three barriers three wait ids.  Each thread publishes its tid as it
 * heads for the barrier it is probed in.
 */
static void check_nested_barriers(void)
{
    uint64_t outer = 0, inner = 0;
    _Atomic pid_t inner_master = 0, inner_worker = 0, outer_worker = 0;
    struct sample master_sample = {0}, worker_sample = {0}, outer_sample = {0};
    int master_ok = 0, worker_ok = 0, outer_ok = 0;
    _Atomic int teams_ok = 1;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_num_threads() != 2)
            atomic_store(&teams_ok, 0);
        if (omp_get_thread_num() == 0) {
            collector_prid(OMP_REQ_CURRENT_PRID, &outer);
#pragma omp parallel num_threads(2)
            {
                int me = omp_get_thread_num();
                if (omp_get_num_threads() != 2)
                    atomic_store(&teams_ok, 0);
                if (me == 0) {
                    collector_prid(OMP_REQ_CURRENT_PRID, &inner);
                    atomic_store(&inner_master, my_tid());
                } else {
                    while (atomic_load(&inner_master) == 0 || atomic_load(&outer_worker) == 0)
                        pause_us(100);
                    master_ok = parked_in(atomic_load(&inner_master), BARRIER_CODE_STATE,
                                          &master_sample, "a nested region's master in its barrier");
                    outer_ok = parked_in(atomic_load(&outer_worker), THR_IBAR_STATE, &outer_sample,
                                         "at the enclosing region's closing barrier");
                }
#pragma omp barrier
                if (me == 1) {
                    atomic_store(&inner_worker, my_tid());
                } else {
                    while (atomic_load(&inner_worker) == 0)
                        pause_us(100);
                    worker_ok = parked_in(atomic_load(&inner_worker), THR_IBAR_STATE, &worker_sample,
                                          "at a nested region's closing barrier");
                }
            }
        } else {
            atomic_store(&outer_worker, my_tid());
        }
    }
    omp_set_max_active_levels(1);
    if (!atomic_load(&teams_ok)) {
        check(0, "nested regions get teams of 2");
        return;
    }
    check(master_ok && inner != 0 && inner != outer && master_sample.prid == inner,
          "a nested region's master waiting in its barrier reads a barrier state and the nested region's id");
    check(worker_ok && worker_sample.prid == inner,
          "a worker at a nested region's closing barrier reads IBAR and the nested region's id");
    check(outer_ok && outer != 0 && outer_sample.prid == outer,
          "the enclosing region's worker at its closing barrier reads IBAR and the outer region's id");
    check(master_ok && worker_ok && outer_ok && master_sample.wait_id != 0
              && master_sample.wait_id != worker_sample.wait_id
              && master_sample.wait_id != outer_sample.wait_id
              && worker_sample.wait_id != outer_sample.wait_id,
          "the three barriers, two of them nested, have three wait ids");
}

int main(void)
{
    if ((api = collector_lookup_reported()) == NULL)
        return 1;
    failures += !collector_report_runtime();
    if (collector_simple(OMP_REQ_START) != OMP_ERRCODE_OK)
        return printf("not ok - START succeeds\n"), 1;
    omp_init_lock(&lock_a);
    omp_init_lock(&lock_b);
    omp_init_nest_lock(&nest_lock);
    sampler_install(PROBE_SIGNAL, on_probe);
    pthread_t monitor_thread;
    if (pthread_create(&monitor_thread, NULL, monitor, NULL) != 0)
        return printf("not ok - the monitor thread starts\n"), 1;

    check_team_phases();
    check_idle_between_regions();
    check_team_shrinks();
    check_idle_after_tasks();
    check_serial();
    check_task_waits();
    check_atomic_wait();
    check_nested_barriers();
    skip("a thread combining a reduction reads REDUC",
         "libomp reports work_reduction only under KMP_FORCE_REDUCTION, and no thread can be held "
         "inside the combining step for a probe");

    atomic_store(&monitor_quit, 1);
    pthread_join(monitor_thread, NULL);
    collector_simple(OMP_REQ_STOP);
    omp_destroy_nest_lock(&nest_lock);
    omp_destroy_lock(&lock_b);
    omp_destroy_lock(&lock_a);
    return failures != 0;
}
