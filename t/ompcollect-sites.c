/* ompcollect-sites.c - waits and constructs whose runtime call the compiler makes a tail call (a taskwait closing a function, a task body calling it last, an orphaned loop's barrier), and a region with a lock in a function that is only ever inlined, each wait made certain, for t/ompcollect-sites.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * At -O2 a runtime call that ends a function is a jump, and the return
 * address the runtime reports is then the caller's: a line calling the
 * function, or the runtime's own code when the runtime called it (a task
 * body).  The script finds the places by the @markers and checks that the
 * report names each wait there, in the function it is written in.  Each
 * wait is made certain, whatever the machine's speed: a thread holds
 * what the other needs until the other has announced that it waits.
 */
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile double sink;

/* Works for `seconds`. */
static void work(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        sink += 1;
}

/* Waits until `flag` is set, yielding: not OpenMP, so it reads as work. */
static void await(_Atomic int *flag)
{
    while (!atomic_load(flag))
        sched_yield();
}

static _Atomic int child_started, parent_waits;
static omp_lock_t lk;
static _Atomic int lock_wanted, lock_held;
static _Atomic int loop_arrived;

/* The child runs on the other thread (its creator waits for it to start), and works on until its creator waits. */
static void child(double slice)
{
    atomic_store(&child_started, 1);
    await(&parent_waits);
    work(slice);
}

/*
 * A task the other thread runs (its creator waits for it to start, then
 * tells it that it waits), then the taskwait that ends the function: -O2
 * jumps to the runtime's taskwait.  Alone (a team of one), the child runs
 * in the taskwait.
 */
__attribute__((noinline)) void waiter(double slice)
{
    atomic_store(&child_started, 0);
    atomic_store(&parent_waits, 0);
#pragma omp task
    child(slice);
    if (omp_get_num_threads() == 2)
        await(&child_started);
    atomic_store(&parent_waits, 1);
#pragma omp taskwait /* @tail-taskwait */
}

/* The same, then more work after the taskwait: a plain call, in a function that holds a task body (GCC's nesting). */
__attribute__((noinline)) void held(double slice)
{
    atomic_store(&child_started, 0);
    atomic_store(&parent_waits, 0);
#pragma omp task
    child(slice);
    if (omp_get_num_threads() == 2)
        await(&child_started);
    atomic_store(&parent_waits, 1);
#pragma omp taskwait /* @held-taskwait */
    sink += 1;
}

/* A task whose body's last call is waiter (the runtime's call of the body is then the taskwait's return address), then calls of waiter and held. */
__attribute__((noinline)) void tasks(double slice)
{
#pragma omp parallel num_threads(2) /* @tasks-parallel */
#pragma omp single
    {
#pragma omp task
        waiter(slice);
        /* One handshake at a time: a thread spinning in one holds no scheduling point for another's child. */
#pragma omp taskwait /* @single-taskwait */
        waiter(slice);
        held(slice);
        sink += 1;
    }
}

/* An orphaned loop: its closing barrier is the function's last call (GCC puts it on the function's closing brace).  Thread 0 works on until thread 1 has done its part. */
__attribute__((noinline)) void share(double slice)
{
#pragma omp for schedule(static, 1) /* @orphan-for */
    for (int i = 0; i < 2; i++) {
        if (i == 1)
            atomic_store(&loop_arrived, 1);
        else if (omp_get_num_threads() == 2)
            await(&loop_arrived);
        work(i == 0 ? slice : 0);
    }
} /* @share-end */

__attribute__((noinline)) void loops(double slice)
{
    atomic_store(&loop_arrived, 0);
#pragma omp parallel num_threads(2) /* @loops-parallel */
    {
        share(slice);
        sink += 1;
    }
}

/* The same loop, called last in its region's body: the jumps leave the runtime's call of the body as the return address. */
__attribute__((noinline)) void share_last(double slice)
{
#pragma omp for schedule(static, 1) /* @last-for */
    for (int i = 0; i < 2; i++) {
        if (i == 1)
            atomic_store(&loop_arrived, 1);
        else if (omp_get_num_threads() == 2)
            await(&loop_arrived);
        work(i == 0 ? slice : 0);
    }
} /* @last-end */

__attribute__((noinline)) void loops_last(double slice)
{
    atomic_store(&loop_arrived, 0);
#pragma omp parallel num_threads(2) /* @loops-last-parallel */
    share_last(slice);
}

/* Only ever inlined (static, one caller): clang's outlined body has no function of its own to name it. */
static inline void locked(double slice)
{
    atomic_store(&lock_wanted, 0);
    atomic_store(&lock_held, 0);
#pragma omp parallel num_threads(2) /* @locked-parallel */
    {
        atomic_fetch_add(&lock_wanted, 1);
        omp_set_lock(&lk); /* @lock */
        if (atomic_fetch_add(&lock_held, 1) == 0)
            while (atomic_load(&lock_wanted) < omp_get_num_threads())
                sched_yield();
        work(slice);
        omp_unset_lock(&lk);
    }
}

int main(int argc, char **argv)
{
    double end = now() + (argc > 1 ? atof(argv[1]) : 0.3);
    int rounds = 0;
    omp_init_lock(&lk);
    while (now() < end) {
        tasks(0.002);
        loops(0.002);
        loops_last(0.002);
        locked(0.002);
        rounds++;
    }
    omp_destroy_lock(&lk);
    printf("sites: %d rounds\n", rounds);
    return 0;
}
