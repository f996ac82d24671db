/* fork-t.c - a child forked while another thread was inside a delivery can still STOP, START and receive events. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fork() copies only the calling thread.  A thread that was inside a
 * callback at that moment left its in-flight mark set in the child, where
 * nothing will ever clear it; a control request that waits for marks to
 * clear would wait for ever.  The child here runs under alarm() so that a
 * hang shows as a failed test rather than a stuck suite.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/fake-ompt.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

static _Atomic int inside, release_it, forks_seen;
static pthread_t blocker_thread;

/* FORK's callback: on the blocker thread it stays inside until the test lets it go. */
static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    atomic_fetch_add(&forks_seen, 1);
    if (!pthread_equal(pthread_self(), blocker_thread))
        return;
    atomic_store(&inside, 1);
    while (!atomic_load(&release_it))
        usleep(1000);
}

/* One request without mem (START, STOP); its ec. */
static int request(int request_number)
{
    int32_t entry[5] = {16, request_number, -1, -1, 0};
    if (__omp_collector_api(entry) != 0)
        return -1;
    return entry[2];
}

/* REGISTER of FORK with on_fork; its ec. */
static int register_fork(void)
{
    int32_t entry[9] = {28, OMP_REQ_REGISTER, -1, -1, OMP_EVENT_FORK};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = on_fork;
    memcpy(&entry[5], &callback, sizeof callback);
    entry[7] = 0;
    if (__omp_collector_api(entry) != 0)
        return -1;
    return entry[2];
}

/* A thread that forks a region and so enters on_fork, where it waits. */
static void *blocker(void *unused)
{
    (void)unused;
    ompt_data_t region = {0};
    fake_fire_thread_begin(ompt_thread_worker);
    fake_fire_parallel_begin(&region);
    fake_fire_parallel_end(&region);
    fake_fire_thread_end();
    return NULL;
}

/*
 * The child: STOP, START, REGISTER and one delivery on its only thread.
 * Exit status: 0 all well, 1..4 the step that answered wrongly; a hang is
 * ended by SIGALRM.
 */
static void child_main(void)
{
    alarm(10);
    if (request(OMP_REQ_STOP) != OMP_ERRCODE_OK)
        _exit(1);
    if (request(OMP_REQ_START) != OMP_ERRCODE_OK)
        _exit(2);
    if (register_fork() != OMP_ERRCODE_OK)
        _exit(3);
    int before = atomic_load(&forks_seen);
    ompt_data_t region = {0};
    fake_fire_parallel_begin(&region);
    fake_fire_parallel_end(&region);
    if (atomic_load(&forks_seen) != before + 1)
        _exit(4);
    if (request(OMP_REQ_STOP) != OMP_ERRCODE_OK)
        _exit(5);
    _exit(0);
}

int main(void)
{
    tap_plan(4);
    if (fake_ompt_attach() != 1 || request(OMP_REQ_START) != OMP_ERRCODE_OK
        || register_fork() != OMP_ERRCODE_OK)
        tap_bail("cannot start a session on the fake runtime");
    /* This thread delivers once first, so that it has a delivery slot of its own as well. */
    ompt_data_t region = {0};
    fake_fire_parallel_begin(&region);
    fake_fire_parallel_end(&region);

    if (pthread_create(&blocker_thread, NULL, blocker, NULL) != 0)
        tap_bail("pthread_create failed");
    while (!atomic_load(&inside))
        usleep(1000);
    pid_t pid = fork();
    if (pid < 0)
        tap_bail("fork failed");
    if (pid == 0)
        child_main();
    int status = 0;
    pid_t waited = waitpid(pid, &status, 0);
    atomic_store(&release_it, 1);
    pthread_join(blocker_thread, NULL);

    tap_ok(waited == pid && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM),
           "a child forked while another thread was inside a callback does not hang in STOP");
    tap_is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
               "in that child STOP, START, REGISTER and a delivery all work (exit status names the failed step)");
    tap_is_int(request(OMP_REQ_STOP), OMP_ERRCODE_OK, "the parent's STOP still works once the callback returned");
    tap_is_int(fake_ompt_null_dispatches(), 0, "no dispatch found a NULL handler");
    return tap_done();
}
