/* extension.c - ompcollector's SAMPLE and TASK_FRAMES requests on real libomp: code addresses named back to the program's functions and objects, task frames ordered on the stack. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
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

static int failures;
static int (*api)(void *);

/* One unnumbered TAP line; the script numbers them. */
static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* OMPCOLLECTOR_REQ_SAMPLE for the calling thread; the ec, and the answer in `out`. */
static int sample(ompcollector_sample_t *out)
{
    int32_t entry[4 + 12 + 1] = {16 + 48, OMPCOLLECTOR_REQ_SAMPLE};
    api(entry);
    memcpy(out, &entry[4], sizeof *out);
    return entry[2];
}

/* The function (or object) of this program `address` lies in, or "?". */
static const char *symbol_of(uint64_t address)
{
    Dl_info info;
    if (address == 0 || dladdr((void *)(uintptr_t)address, &info) == 0 || info.dli_sname == NULL)
        return "?";
    return info.dli_sname;
}

/* Whether `address` lies in the function named `name` (a return address: the byte before it does). */
static int code_in(uint64_t address, const char *name)
{
    return address != 0 && strcmp(symbol_of(address - 1), name) == 0;
}

static pid_t my_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static void pause_us(long microseconds)
{
    struct timespec delay = {0, microseconds * 1000L};
    nanosleep(&delay, NULL);
}

/* A probed thread's answer, published by `answers` moving on. */
static ompcollector_sample_t probed;
static _Atomic int probed_ec;
static _Atomic unsigned answers;

static void on_probe(int signo)
{
    (void)signo;
    int saved_errno = errno;
    ompcollector_sample_t s;
    int ec = sample(&s);
    probed = s;
    atomic_store(&probed_ec, ec);
    atomic_fetch_add(&answers, 1);
    errno = saved_errno;
}

/* Signals thread `tid` until its SAMPLE reads `state` (5 s at most); the last answer in `out`. */
static int probe_until(pid_t tid, int state, ompcollector_sample_t *out)
{
    for (int tries = 0; tries < 5000; tries++) {
        unsigned before = atomic_load(&answers);
        if (syscall(SYS_tgkill, getpid(), tid, SIGUSR1) != 0)
            return 0;
        for (int wait = 0; wait < 2000 && atomic_load(&answers) == before; wait++)
            pause_us(10);
        if (atomic_load(&answers) != before) {
            *out = probed;
            if (atomic_load(&probed_ec) == OMP_ERRCODE_OK && out->state == state)
                return 1;
        }
        pause_us(1000);
    }
    return 0;
}

static _Atomic int fork_sampled;
static ompcollector_sample_t at_fork;

/* FORK callback: the region's construct is known before any team thread runs. */
static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    if (!atomic_load(&fork_sampled)) {
        sample(&at_fork);
        atomic_store(&fork_sampled, 1);
    }
}

static ompcollector_sample_t in_region[2];

/* A parallel construct of its own: its threads must name it. */
__attribute__((noinline)) void solve_region(void)
{
#pragma omp parallel num_threads(2)
    sample(&in_region[omp_get_thread_num()]);
}

static _Atomic int step;
static _Atomic pid_t waiter_tid;
static ompcollector_sample_t critical_wait, lock_wait, barrier_wait;

/* The contended named critical lives here. */
__attribute__((noinline)) void update(int me)
{
    if (me == 0) {
        /* Hold it until the other thread has been seen waiting for it. */
#pragma omp critical(accum)
        {
            atomic_store(&step, 1);
            while (atomic_load(&waiter_tid) == 0)
                pause_us(50);
            probe_until(atomic_load(&waiter_tid), THR_CTWT_STATE, &critical_wait);
        }
    } else {
        while (atomic_load(&step) < 1)
            pause_us(50);
        atomic_store(&waiter_tid, my_tid());
#pragma omp critical(accum)
        atomic_fetch_add(&step, 0);
    }
}

omp_lock_t lk;

/* The contended lock call lives here. */
__attribute__((noinline)) void take_lock(void)
{
    omp_set_lock(&lk);
    omp_unset_lock(&lk);
}

/* The explicit barrier lives here. */
__attribute__((noinline)) void meet(void)
{
#pragma omp barrier
}

/* One team: a critical, a lock and a barrier, each held by thread 0 while thread 1 is probed. */
__attribute__((noinline)) void contended(void)
{
    atomic_store(&step, 0);
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        update(me);
#pragma omp barrier
        if (me == 0) {
            atomic_store(&waiter_tid, 0);
            omp_set_lock(&lk);
            atomic_store(&step, 2);
            while (atomic_load(&waiter_tid) == 0)
                pause_us(50);
            probe_until(atomic_load(&waiter_tid), THR_LKWT_STATE, &lock_wait);
            omp_unset_lock(&lk);
        } else {
            while (atomic_load(&step) < 2)
                pause_us(50);
            atomic_store(&waiter_tid, my_tid());
            take_lock();
        }
#pragma omp barrier
        if (me == 0) {
            atomic_store(&waiter_tid, 0);
            atomic_store(&step, 3);
            while (atomic_load(&waiter_tid) == 0)
                pause_us(50);
#ifdef __clang__
            int barrier_state = THR_EBAR_STATE;
#else
            int barrier_state = THR_IBAR_STATE; /* gcc's GOMP_barrier reaches OMPT as an implementation barrier */
#endif
            probe_until(atomic_load(&waiter_tid), barrier_state, &barrier_wait);
            meet();
        } else {
            while (atomic_load(&step) < 3)
                pause_us(50);
            atomic_store(&waiter_tid, my_tid());
            meet();
        }
    }
}

/* Room for 16 levels after the 8-byte header. */
static int32_t frames_entry[4 + (8 + 16 * 48) / 4 + 1];
static _Atomic int frames_ec;
static uint64_t task_local_address, task_prid;

/* Runs inside an explicit task, inside a nested region: the deepest chain this test builds. */
__attribute__((noinline)) void deep_task_body(void)
{
    volatile int local = 0;
    task_local_address = (uint64_t)(uintptr_t)&local;
    collector_prid(OMP_REQ_CURRENT_PRID, &task_prid);
    frames_entry[0] = (int32_t)sizeof frames_entry - 4;
    frames_entry[1] = OMPCOLLECTOR_REQ_TASK_FRAMES;
    api(frames_entry);
    atomic_store(&frames_ec, frames_entry[2]);
    (void)local;
}

/* The inner parallel construct whose implicit task creates the task. */
__attribute__((noinline)) void inner_region(void)
{
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            /* Undeferred, so the task runs on this thread's stack, above its creator's frames. */
#pragma omp task if (0)
            deep_task_body();
#pragma omp taskwait
        }
    }
}

__attribute__((noinline)) void nested_tasks(void)
{
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            inner_region();
    }
    omp_set_max_active_levels(1);
}

/* The frames of TASK_FRAMES against the stack and the task kinds OMPT defines. */
static void check_frames(void)
{
    ompcollector_task_frames_t head;
    memcpy(&head, &frames_entry[4], sizeof head);
    printf("# TASK_FRAMES: ec %d rsz %d, %d of %d levels\n", frames_entry[2], frames_entry[3],
           head.count, head.levels);
    ompcollector_task_frame_t level[16];
    int count = head.count > 16 ? 16 : (head.count < 0 ? 0 : head.count);
    for (int i = 0; i < count; i++) {
        memcpy(&level[i], (unsigned char *)&frames_entry[4] + 8 + i * 48, sizeof level[i]);
        printf("# level %d: flags %#x thread %d exit %#llx enter %#llx region %llu at %s\n", i,
               level[i].task_flags, level[i].thread_num, level[i].exit_frame,
               level[i].enter_frame, level[i].region_id, symbol_of(level[i].region_codeptr - 1));
    }
    check(atomic_load(&frames_ec) == OMP_ERRCODE_OK && head.count == head.levels
              && frames_entry[3] == 8 + 48 * head.levels,
          "TASK_FRAMES answers every level, rsz covering them");
    /* explicit task, inner implicit task, outer implicit task, initial task */
    check(count >= 4 && (level[0].task_flags & 0x4) && (level[1].task_flags & 0x2)
              && (level[count - 1].task_flags & 0x1),
          "TASK_FRAMES: an explicit task first, implicit tasks next, the initial task last");
    check(count >= 1 && level[0].region_id == task_prid && task_prid != 0
              && code_in(level[0].region_codeptr, "inner_region"),
          "TASK_FRAMES: the task's region is CURRENT_PRID's, forked in inner_region");
    int ordered = count >= 2 && level[0].exit_frame != 0 && task_local_address < level[0].exit_frame;
    uint64_t last = level[0].exit_frame;
    for (int i = 1; i < count; i++) {
        uint64_t marks[2] = {level[i].enter_frame, level[i].exit_frame};
        for (int m = 0; m < 2; m++) {
            if (marks[m] == 0)
                continue;
            ordered &= marks[m] >= last;
            last = marks[m];
        }
    }
    check(ordered, "TASK_FRAMES: the task's locals lie below its exit frame, and each ancestor's "
                   "frames lie above its child's (one stack, growing down)");
}

int main(void)
{
    if ((api = collector_lookup_reported()) == NULL)
        return 1;
    failures += !collector_report_runtime();
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_probe;
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &action, NULL);
    omp_init_lock(&lk);

    if (collector_simple(OMP_REQ_START) != OMP_ERRCODE_OK) {
        check(0, "START succeeds");
        return 1;
    }
    ompcollector_sample_t serial;
    check(sample(&serial) == OMP_ERRCODE_OK && serial.state == THR_SERIAL_STATE
              && serial.region_id == 0 && serial.region_codeptr == 0 && serial.wait_codeptr == 0,
          "SAMPLE in serial code: SERIAL, region 0, no code addresses");
    check(collector_register(OMP_EVENT_FORK, on_fork) == OMP_ERRCODE_OK, "REGISTER FORK");

    solve_region();
    check(atomic_load(&fork_sampled) && code_in(at_fork.region_codeptr, "solve_region")
              && at_fork.region_id != 0,
          "SAMPLE inside FORK names the construct being forked: solve_region");
    check(in_region[0].state == THR_WORK_STATE && in_region[1].state == THR_WORK_STATE
              && in_region[0].region_id == at_fork.region_id
              && in_region[1].region_id == at_fork.region_id
              && in_region[0].region_codeptr == at_fork.region_codeptr
              && in_region[1].region_codeptr == at_fork.region_codeptr,
          "SAMPLE on master and worker: WORK, the forked region and its construct");
    printf("# region construct at %s (%#llx)\n", symbol_of(at_fork.region_codeptr - 1),
           at_fork.region_codeptr);

    contended();
    printf("# critical wait: state %d at %s, object %#llx, wait id %#llx; lock wait: state %d at %s, object %#llx "
           "(&lk %p); barrier wait: state %d at %s\n",
           critical_wait.state, symbol_of(critical_wait.wait_codeptr - 1),
           critical_wait.wait_object, critical_wait.wait_id, lock_wait.state,
           symbol_of(lock_wait.wait_codeptr - 1), lock_wait.wait_object, (void *)&lk,
           barrier_wait.state, symbol_of(barrier_wait.wait_codeptr - 1));
    check(critical_wait.state == THR_CTWT_STATE && code_in(critical_wait.wait_codeptr, "update")
              && critical_wait.wait_object != 0 && critical_wait.wait_object == critical_wait.wait_id
              && code_in(critical_wait.region_codeptr, "contended"),
          "a thread waiting for critical(accum): CTWT, the call site in update(), the runtime's "
          "lock object as its wait id, the region in contended()");
    check(lock_wait.state == THR_LKWT_STATE && code_in(lock_wait.wait_codeptr, "take_lock")
              && lock_wait.wait_object == (uint64_t)(uintptr_t)&lk,
          "a thread waiting in omp_set_lock: LKWT, the call in take_lock(), the object &lk");
    check(barrier_wait.wait_id != 0 && code_in(barrier_wait.wait_codeptr, "meet")
              && barrier_wait.wait_object == 0,
          "a thread waiting at an explicit barrier: its wait id and the barrier in meet()");

    nested_tasks();
    check_frames();

    check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP");
    omp_destroy_lock(&lk);
    return failures != 0;
}
