/* tasks.c - the OpenUH task extension on real libomp: a TAU-style client registers all 35 events over recursive, undeferred, final, taskgroup, taskloop and dependent tasks, and checks counts, nesting, threads and task ids. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

#define TEAM 2
#define MAX_THREADS 16
#define EVENTS 35

/* One delivered event, with what TASK_ID and TASK_PID said inside it. */
struct record {
    int event;
    int64_t task;
    int64_t parent;
};

static struct {
    struct record *records;
    int count, capacity, overflow;
} threads[MAX_THREADS];
static _Atomic int thread_count;
static __thread int my_index = -1;
static int failures;

/* What each task body saw: its own id and parent, its creator's id, the thread it ran on. */
enum kind { K_DEFERRED, K_UNDEFERRED };
struct body {
    int64_t task, parent, creator;
    int thread;
    enum kind kind;
};
static struct body *bodies;
static _Atomic int body_count;
static int body_capacity;
static _Atomic int made[2]; /* tasks the program created, by kind */

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

static int thread_index(void)
{
    if (my_index < 0)
        my_index = atomic_fetch_add(&thread_count, 1);
    return my_index;
}

/* TASK_ID or TASK_PID as a 64-bit answer; -99 when it did not answer OK with 8 bytes. */
static int64_t ask_task(int request)
{
    int32_t entry[7] = {24, request, 0, 0, 0, 0, 0};
    int (*api)(void *) = collector_lookup();
    int64_t id = -99;
    api(entry);
    if (entry[2] == OMP_ERRCODE_OK && entry[3] == 8)
        memcpy(&id, &entry[4], sizeof id);
    return id;
}

/* TASK_ID as OpenUH's clients read it: a 4-byte int. */
static int32_t ask_task_narrow(void)
{
    int32_t entry[6] = {20, OMP_REQ_TASK_ID, 0, 0, 0, 0};
    collector_lookup()(entry);
    return entry[2] == OMP_ERRCODE_OK && entry[3] == 4 ? entry[4] : -99;
}

/* Every event, as TAU's callback takes it: CURRENT_PRID first, then the task ids. */
static void record_event(OMP_COLLECTORAPI_EVENT event)
{
    uint64_t region;
    collector_prid(OMP_REQ_CURRENT_PRID, &region);
    int me = thread_index();
    if (me >= MAX_THREADS)
        return;
    if (threads[me].count == threads[me].capacity) {
        threads[me].overflow = 1;
        return;
    }
    struct record *r = &threads[me].records[threads[me].count];
    r->event = event;
    r->task = ask_task(OMP_REQ_TASK_ID);
    r->parent = ask_task(OMP_REQ_TASK_PID);
    threads[me].count++;
}

/* A task body notes who it is; `creator` is the creating task's TASK_ID, captured at creation. */
static void note_body(int64_t creator, enum kind kind)
{
    int slot = atomic_fetch_add(&body_count, 1);
    if (slot >= body_capacity)
        return;
    bodies[slot].task = ask_task(OMP_REQ_TASK_ID);
    bodies[slot].parent = ask_task(OMP_REQ_TASK_PID);
    bodies[slot].creator = creator;
    bodies[slot].thread = thread_index();
    bodies[slot].kind = kind;
}

static volatile long sink;

static long serial_fib(int n)
{
    return n < 2 ? n : serial_fib(n - 1) + serial_fib(n - 2);
}

/* fib with tasks and taskwait above the cut-off, serial below it. */
static long fib(int n, int cutoff)
{
    if (n < cutoff)
        return serial_fib(n);
    long x, y;
    int64_t me = ask_task(OMP_REQ_TASK_ID);
    atomic_fetch_add(&made[K_DEFERRED], 2);
#pragma omp task shared(x) firstprivate(me)
    {
        note_body(me, K_DEFERRED);
        x = fib(n - 1, cutoff);
    }
#pragma omp task shared(y) firstprivate(me)
    {
        note_body(me, K_DEFERRED);
        y = fib(n - 2, cutoff);
    }
#pragma omp taskwait
    return x + y;
}

/* Every kind of task the extension tells apart, made by one thread of a team of two. */
static void make_tasks(int fib_n, int cutoff)
{
#pragma omp parallel num_threads(TEAM)
#pragma omp single
    {
        int64_t me = ask_task(OMP_REQ_TASK_ID);
        sink = fib(fib_n, cutoff);
        /* Undeferred: if(0) runs at once, on this thread. */
        for (int i = 0; i < 4; i++) {
            atomic_fetch_add(&made[K_UNDEFERRED], 1);
#pragma omp task if (0) firstprivate(me)
            {
                note_body(me, K_UNDEFERRED);
                sink += serial_fib(12);
            }
        }
        /* A final task is deferred; the tasks it makes are included: undeferred. */
        atomic_fetch_add(&made[K_DEFERRED], 1);
#pragma omp task final(1) firstprivate(me)
        {
            note_body(me, K_DEFERRED);
            int64_t inner = ask_task(OMP_REQ_TASK_ID);
            for (int i = 0; i < 3; i++) {
                atomic_fetch_add(&made[K_UNDEFERRED], 1);
#pragma omp task firstprivate(inner)
                {
                    note_body(inner, K_UNDEFERRED);
                    sink += serial_fib(10);
                }
            }
        }
        /* A taskgroup waits for its tasks. */
#pragma omp taskgroup
        {
            for (int i = 0; i < 6; i++) {
                atomic_fetch_add(&made[K_DEFERRED], 1);
#pragma omp task firstprivate(me)
                {
                    note_body(me, K_DEFERRED);
                    sink += serial_fib(16);
                }
            }
        }
        /* A taskloop of 8 tasks, below the count where libomp splits recursively. */
        atomic_fetch_add(&made[K_DEFERRED], 8);
#pragma omp taskloop num_tasks(8) firstprivate(me)
        for (int i = 0; i < 64; i++)
            if (i % 8 == 0) {
                note_body(me, K_DEFERRED);
                sink += serial_fib(14);
            }
        /* A chain of dependent tasks. */
        int token = 0;
        for (int i = 0; i < 5; i++) {
            atomic_fetch_add(&made[K_DEFERRED], 1);
#pragma omp task depend(inout : token) firstprivate(me)
            {
                note_body(me, K_DEFERRED);
                token++;
            }
        }
#pragma omp taskwait
        sink += token;
    }
}

/*
 * TAU's timers, per thread: each BEGIN starts a timer, each END stops the
 * current one, BEGIN_FINISH_TASK stops an open "execute" first.  A stop
 * that would stop another timer than its own, or a timer left running that
 * should not be, is what would break TAU's profile.
 */
static int tau_timers_nest(int thread, int is_master, char *why, size_t size)
{
    int stack[512], depth = 0;
    for (int i = 0; i < threads[thread].count; i++) {
        int e = threads[thread].records[i].event;
        int begins = (e >= OMP_EVENT_THR_BEGIN_IDLE && e <= OMP_EVENT_THR_END_ATWT && e % 2 == 1)
                     || e == OMP_EVENT_FORK || e == OMP_EVENT_THR_BEGIN_CREATE_TASK
                     || e == OMP_EVENT_THR_BEGIN_SCHD_TASK || e == OMP_EVENT_THR_BEGIN_SUSPEND_TASK
                     || e == OMP_EVENT_THR_BEGIN_STEAL_TASK || e == OMP_EVENT_THR_BEGIN_EXEC_TASK;
        int opener = e == OMP_EVENT_JOIN                      ? OMP_EVENT_FORK
                     : e >= OMP_EVENT_THR_BEGIN_IDLE && e <= OMP_EVENT_THR_END_ATWT && e % 2 == 0
                         ? e - 1
                     : e == OMP_EVENT_THR_END_CREATE_TASK_IMM || e == OMP_EVENT_THR_END_CREATE_TASK_DEL
                         ? OMP_EVENT_THR_BEGIN_CREATE_TASK
                     : e == OMP_EVENT_THR_END_SCHD_TASK    ? OMP_EVENT_THR_BEGIN_SCHD_TASK
                     : e == OMP_EVENT_THR_END_SUSPEND_TASK ? OMP_EVENT_THR_BEGIN_SUSPEND_TASK
                     : e == OMP_EVENT_THR_END_STEAL_TASK   ? OMP_EVENT_THR_BEGIN_STEAL_TASK
                     : e == OMP_EVENT_THR_BEGIN_FINISH_TASK ? OMP_EVENT_THR_BEGIN_EXEC_TASK
                     : e == OMP_EVENT_THR_END_FINISH_TASK   ? OMP_EVENT_THR_BEGIN_FINISH_TASK
                                                            : 0;
        if (opener != 0) {
            if (depth == 0 || stack[depth - 1] != opener) {
                snprintf(why, size, "thread %d, record %d: event %d stops timer %d", thread, i, e,
                         depth > 0 ? stack[depth - 1] : 0);
                return 0;
            }
            depth--;
        }
        if ((begins || e == OMP_EVENT_THR_BEGIN_FINISH_TASK) && depth < 512)
            stack[depth++] = e;
    }
    /*
     * A worker's last implicit barrier ends only when it is next released,
     * unless libomp let it go at once (after tasks it may): then it is idle.
     */
    if (!is_master && depth == 1
        && (stack[0] == OMP_EVENT_THR_BEGIN_IBAR || stack[0] == OMP_EVENT_THR_BEGIN_IDLE))
        depth = 0;
    if (depth != 0) {
        snprintf(why, size, "thread %d: %d timers left running, innermost %d", thread, depth,
                 stack[depth - 1]);
        return 0;
    }
    return 1;
}

/* The records of `thread` holding `event` for task `task`, counted. */
static int count_on(int thread, int event, int64_t task)
{
    int n = 0;
    for (int i = 0; i < threads[thread].count; i++)
        n += threads[thread].records[i].event == event && threads[thread].records[i].task == task;
    return n;
}

static int count_events(int event)
{
    int n = 0;
    for (int t = 0; t < MAX_THREADS && t < atomic_load(&thread_count); t++)
        for (int i = 0; i < threads[t].count; i++)
            n += threads[t].records[i].event == event;
    return n;
}

/* The thread whose END_CREATE made `task`, or -1. */
static int creating_thread(int64_t task, int *imm)
{
    for (int t = 0; t < MAX_THREADS && t < atomic_load(&thread_count); t++)
        for (int i = 0; i < threads[t].count; i++) {
            const struct record *r = &threads[t].records[i];
            if (r->task == task
                && (r->event == OMP_EVENT_THR_END_CREATE_TASK_IMM
                    || r->event == OMP_EVENT_THR_END_CREATE_TASK_DEL)) {
                *imm = r->event == OMP_EVENT_THR_END_CREATE_TASK_IMM;
                return t;
            }
        }
    return -1;
}

static int compare_ids(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const char *size = getenv("TASKS_FIB");
    int fib_n = size != NULL ? atoi(size) : 20;
    int cutoff = fib_n > 8 ? fib_n - 8 : 2;
    body_capacity = 1 << 16;
    bodies = calloc((size_t)body_capacity, sizeof *bodies);
    for (int t = 0; t < MAX_THREADS; t++) {
        threads[t].capacity = 1 << 18;
        threads[t].records = calloc((size_t)threads[t].capacity, sizeof(struct record));
    }
    if (collector_lookup_reported() == NULL || bodies == NULL)
        return 1;
    if (!collector_report_runtime())
        return 1;
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");

    /* TAU's REGISTER: all 35 events in one batch of packed 28-byte entries. */
    int32_t batch[EVENTS * 7 + 1];
    omp_collector_callback_t callback = record_event;
    for (int e = 1; e <= EVENTS; e++) {
        int32_t *entry = &batch[(e - 1) * 7];
        entry[0] = 28, entry[1] = OMP_REQ_REGISTER, entry[2] = -1, entry[3] = -1, entry[4] = e;
        memcpy(&entry[5], &callback, sizeof callback);
    }
    batch[EVENTS * 7] = 0;
    int returned = collector_lookup()(batch);
    int all_ok = returned == 0;
    for (int e = 1; e <= EVENTS; e++)
        if (batch[(e - 1) * 7 + 2] != OMP_ERRCODE_OK) {
            if (e >= OMP_EVENT_THR_BEGIN_CREATE_TASK)
                all_ok = 0;
            printf("# REGISTER %d answered %d\n", e, batch[(e - 1) * 7 + 2]);
        }
    check(all_ok, "TAU's batch registers the 13 task events 23..35 OK");
    check(ask_task(OMP_REQ_TASK_ID) == -1 && ask_task_narrow() == -1,
          "serial code runs no task: TASK_ID -1 as an 8-byte and a 4-byte answer");

    make_tasks(fib_n, cutoff);
    collector_simple(OMP_REQ_PAUSE);

    int threads_seen = atomic_load(&thread_count);
    int overflow = 0;
    for (int t = 0; t < threads_seen && t < MAX_THREADS; t++)
        overflow |= threads[t].overflow;
    check(!overflow && atomic_load(&body_count) <= body_capacity, "every event and task body was recorded");
    int bodies_seen = atomic_load(&body_count);
    int deferred = atomic_load(&made[K_DEFERRED]), undeferred = atomic_load(&made[K_UNDEFERRED]);
    printf("# fib(%d) cut off below %d: %d deferred and %d undeferred tasks, %d bodies, %d threads\n",
           fib_n, cutoff, deferred, undeferred, bodies_seen, threads_seen);

    check(count_events(OMP_EVENT_THR_BEGIN_CREATE_TASK) == deferred + undeferred,
          "BEGIN_CREATE_TASK counts every task the program made");
    check(count_events(OMP_EVENT_THR_END_CREATE_TASK_DEL) == deferred,
          "END_CREATE_TASK_DEL counts the deferred tasks");
    check(count_events(OMP_EVENT_THR_END_CREATE_TASK_IMM) == undeferred,
          "END_CREATE_TASK_IMM counts the undeferred ones (if(0), and those a final task made)");
    check(bodies_seen == deferred + undeferred && count_events(OMP_EVENT_THR_BEGIN_EXEC_TASK) == bodies_seen
              && count_events(OMP_EVENT_THR_BEGIN_FINISH_TASK) == bodies_seen
              && count_events(OMP_EVENT_THR_END_FINISH_TASK) == bodies_seen,
          "one EXEC, BEGIN_FINISH and END_FINISH per task run");
    check(count_events(OMP_EVENT_THR_BEGIN_SCHD_TASK) == deferred
              && count_events(OMP_EVENT_THR_END_SCHD_TASK) == deferred
              && count_events(OMP_EVENT_THR_FETCHED_TASK) == deferred,
          "one SCHD pair and one FETCHED per deferred task, none for undeferred ones");
    check(count_events(OMP_EVENT_THR_BEGIN_SUSPEND_TASK) == count_events(OMP_EVENT_THR_END_SUSPEND_TASK)
              && count_events(OMP_EVENT_THR_BEGIN_SUSPEND_TASK) > 0,
          "every SUSPEND has its END");

    char why[256] = "";
    int nest = 1;
    for (int t = 0; t < threads_seen && t < MAX_THREADS && nest; t++) {
        int is_master = 0;
        for (int i = 0; i < threads[t].count; i++)
            is_master |= threads[t].records[i].event == OMP_EVENT_FORK;
        nest = tau_timers_nest(t, is_master, why, sizeof why);
    }
    check(nest, "per thread, TAU's timer stack: every END stops its own BEGIN, none left running");
    if (!nest)
        printf("# %s\n", why);

    /* Ids, parents and threads, task by task. */
    int ids_ok = 1, parents_ok = 1, threads_ok = 1, kinds_ok = 1, steal_ok = 1, narrow_ok = 1;
    int64_t *ids = calloc((size_t)bodies_seen + 1, sizeof *ids);
    int stolen = 0;
    for (int b = 0; b < bodies_seen && b < body_capacity; b++) {
        const struct body *body = &bodies[b];
        ids_ok &= body->task > 0;
        if (ids != NULL)
            ids[b] = body->task;
        if (body->parent != body->creator) {
            if (parents_ok)
                printf("# task %lld: TASK_PID %lld, its creator's TASK_ID %lld\n", (long long)body->task,
                       (long long)body->parent, (long long)body->creator);
            parents_ok = 0;
        }
        int imm = -1;
        int creator = creating_thread(body->task, &imm);
        int ran_here = body->thread < MAX_THREADS
                       && count_on(body->thread, OMP_EVENT_THR_BEGIN_EXEC_TASK, body->task) == 1
                       && count_on(body->thread, OMP_EVENT_THR_END_FINISH_TASK, body->task) == 1;
        threads_ok &= creator >= 0 && ran_here;
        kinds_ok &= imm == (body->kind == K_UNDEFERRED);
        if (creator >= 0 && body->thread < MAX_THREADS && body->kind == K_DEFERRED) {
            int steals = count_on(body->thread, OMP_EVENT_THR_BEGIN_STEAL_TASK, body->task);
            stolen += body->thread != creator;
            steal_ok &= steals == (body->thread != creator);
        }
        narrow_ok &= body->task <= INT32_MAX;
    }
    int unique = ids != NULL;
    if (ids != NULL) {
        qsort(ids, (size_t)bodies_seen, sizeof *ids, compare_ids);
        for (int b = 1; b < bodies_seen; b++)
            unique &= ids[b] != ids[b - 1];
    }
    free(ids);
    check(ids_ok && unique, "every task has its own positive TASK_ID");
    check(parents_ok, "every task's TASK_PID is the TASK_ID its creator had when it made it");
    check(threads_ok, "END_CREATE comes on the creating thread, EXEC and FINISH once each on the running one");
    check(kinds_ok, "IMM for if(0) and included tasks, DEL for deferred ones");
    check(steal_ok, "STEAL exactly for the deferred tasks that ran on another thread than their creator");
    printf("# %d of the deferred tasks ran on another thread than their creator\n", stolen);
    check(narrow_ok, "ids stay below 2^31, so OpenUH's 4-byte TASK_ID holds them");
    return failures != 0;
}
