/* ompcollect-jobs.c - an OpenMP program for ompcollect's tests of real jobs: it crashes, waits to be killed, forks OpenMP children, owns signals, blocks the sampling signal or runs threads of its own, as told. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>

/* A value the program's own sigqueue carries, so its handler can tell its signals from anyone's. */
#define OWN_VALUE 0x5eed

/* Seconds on the monotonic clock. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Busy for `seconds` of wall-clock time. */
static void work(double seconds)
{
    double end = now() + seconds;
    while (now() < end)
        continue;
}

/*
 * Two threads working `blocked + after` seconds; thread 1 has the sampling
 * signal blocked for the first `blocked`, and says how long by its clock:
 * at least from the block's return to the unblock's call, at most from the
 * block's call to the unblock's return.
 */
static void blocked_pair(double blocked, double after)
{
    double inner = 0, outer = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            sigset_t only;
            sigemptyset(&only);
            sigaddset(&only, SIGRTMAX);
            double before = now();
            pthread_sigmask(SIG_BLOCK, &only, NULL);
            double begin = now();
            work(blocked);
            double end = now();
            pthread_sigmask(SIG_UNBLOCK, &only, NULL);
            outer = now() - before;
            inner = end - begin;
            work(after);
        } else {
            work(blocked + after);
        }
    }
    printf("blocked: thread 1 had SIGRTMAX blocked for %.6f to %.6f s\n", inner, outer);
}


/* One 2-thread region, each thread busy for `seconds`. */
static void region(double seconds)
{
#pragma omp parallel num_threads(2)
    work(seconds);
}

static _Atomic int seen_total, seen_own, own_code;

/* The program's own handler: counts every delivery, and those that are its own (by code and value). */
static void own_handler(int signal_number, siginfo_t *info, void *context)
{
    (void)signal_number;
    (void)context;
    atomic_fetch_add(&seen_total, 1);
    if (info->si_code == atomic_load(&own_code)
        && (info->si_code != SI_QUEUE || info->si_value.sival_int == OWN_VALUE)
        && info->si_pid == getpid())
        atomic_fetch_add(&seen_own, 1);
}

/* Installs own_handler for `signal_number` through the C library, as programs do. */
static void install(int signal_number)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = own_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(signal_number, &action, NULL) != 0) {
        perror("sigaction");
        exit(2);
    }
}

/*
 * A region during which thread 0 sends the process `count` signals of its
 * own while the sampling timers run; returns 0 when the handler saw exactly
 * those, 3 otherwise.
 */
static int own_signals(int signal_number, int code, int count)
{
    atomic_store(&own_code, code);
    install(signal_number);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            for (int i = 0; i < count; i++) {
                if (code == SI_QUEUE)
                    sigqueue(getpid(), signal_number, (union sigval){.sival_int = OWN_VALUE});
                else
                    kill(getpid(), signal_number);
                work(0.001);
            }
        }
        work(0.05);
    }
    /* A signal sent to the process may still be on its way to a thread. */
    for (int i = 0; i < 100 && atomic_load(&seen_total) < count; i++)
        work(0.001);
    printf("own signals: handler saw %d, %d of them the program's own, of %d sent\n",
           atomic_load(&seen_total), atomic_load(&seen_own), count);
    return atomic_load(&seen_total) == count && atomic_load(&seen_own) == count ? 0 : 3;
}

/* Installs own_handler behind the C library's back, as a runtime with its own system calls would. */
static int raw_handler(int signal_number)
{
    struct {
        void (*handler)(int, siginfo_t *, void *);
        unsigned long flags;
        void (*restorer)(void);
        unsigned long mask;
    } action = {own_handler, SA_SIGINFO | SA_RESTART | 0x04000000 /* SA_RESTORER */, NULL, 0};
    /* The kernel needs a restorer; borrow the C library's, read back from the current action. */
    struct {
        void *handler;
        unsigned long flags;
        void (*restorer)(void);
        unsigned long mask;
    } current;
    if (syscall(SYS_rt_sigaction, signal_number, NULL, &current, 8) != 0 || current.restorer == NULL)
        return -1;
    action.restorer = current.restorer;
    return (int)syscall(SYS_rt_sigaction, signal_number, &action, NULL, 8);
}

/* A thread of the program's own, not OpenMP's: serial work. */
static void *own_thread(void *seconds)
{
    work(*(double *)seconds);
    return NULL;
}

static _Atomic int churning, churn_stop;

/* A new root thread's one OpenMP region: the runtime starts it as a thread of its own. */
static void *churn_one(void *unused)
{
    (void)unused;
#pragma omp parallel num_threads(1)
    work(0.0001);
    return NULL;
}

/* Starts short-lived OpenMP root threads one after another, until told to stop. */
static void *churn(void *unused)
{
    (void)unused;
    atomic_store(&churning, 1);
    while (!atomic_load(&churn_stop)) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, churn_one, NULL) == 0)
            pthread_join(thread, NULL);
    }
    return NULL;
}

/*
 * Each of the C library's sleeps on thread 1 of a region, 1.25 s in all;
 * the number of sleeps that failed or ended early (a handled signal ends
 * them with EINTR), plus 1 when the whole took less.
 */
static int sleeps(void)
{
    int failed = 0;
#pragma omp parallel num_threads(2) reduction(+ : failed)
    {
        if (omp_get_thread_num() == 1) {
            double start = now();
            struct timespec tenth = {0, 100000000};
            failed += nanosleep(&tenth, NULL) != 0;
            failed += clock_nanosleep(CLOCK_MONOTONIC, 0, &tenth, NULL) != 0;
            failed += usleep(50000) != 0;
            failed += sleep(1) != 0;
            double slept = now() - start;
            failed += slept < 1.25;
            printf("sleep: %.3f s of 1.25 slept, %d sleeps cut short\n", slept, failed);
        } else {
            work(0.05);
        }
    }
    return failed != 0;
}

/* Writes this process's pid to `path` (complete or not at all), so a test knows it is running. */
static void announce(const char *path)
{
    char temp[4096];
    snprintf(temp, sizeof temp, "%s.tmp", path);
    FILE *file = fopen(temp, "w");
    if (file == NULL || fprintf(file, "%ld\n", (long)getpid()) < 0 || fclose(file) != 0
        || rename(temp, path) != 0) {
        perror(path);
        exit(2);
    }
}

/* A region, then `count` children one after another, each with three regions (each a chance to look for a record slot), then a region. */
static int fork_many(int count)
{
    region(0.01);
    int failed = 0;
    for (int i = 0; i < count; i++) {
        fflush(NULL);
        pid_t child = fork();
        if (child < 0) {
            perror("fork");
            return 2;
        }
        if (child == 0) {
            for (int k = 0; k < 3; k++)
                region(0.002);
            _exit(0);
        }
        int status;
        failed |= waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    region(0.01);
    return failed;
}

/*
 * Usage: ompcollect-jobs MODE [ARGUMENT]; MODE is
 *   segv, abort          a region, then that crash
 *   wait MARKER          a region whose threads run until killed (60 s at most);
 *                        the pid goes to MARKER once samples are being taken
 *   fork2                a region, then two children with a region each
 *                        (one leaves with exit, one with _exit), then a region
 *   sigurg N, rtsig N    a handler of its own for SIGURG or SIGRTMAX, and N
 *                        signals to itself during a region; exit 0 when the
 *                        handler saw exactly those
 *   rawsig               a SIGRTMAX handler installed by a raw system call
 *   block                thread 1 blocks SIGRTMAX for 0.15 s of a region
 *   halfblock SECONDS    a region of SECONDS in which thread 1 blocks
 *                        SIGRTMAX for the first half, then exit
 *   serialinit SECONDS   SECONDS of serial work before the first region
 *   pthread              a thread of its own working through a region
 *   churn                0.1 s of short-lived OpenMP threads started one
 *                        after another, then a region
 *   sleep                nanosleep, clock_nanosleep, usleep and sleep on
 *                        thread 1 of a region; exit 0 when all slept whole
 *   stubborn MARKER      as wait, ignoring SIGTERM (only SIGKILL ends it)
 *   forkmany N           a region, then N children one after another, each
 *                        with three regions, then a region
 */
int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *argument = argc > 2 ? argv[2] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "segv") == 0 || strcmp(mode, "abort") == 0) {
        region(0.05);
        if (mode[0] == 'a')
            abort();
        raise(SIGSEGV);
        return 1;
    }
    if (strcmp(mode, "stubborn") == 0 && argument[0] != '\0') {
        signal(SIGTERM, SIG_IGN);
        mode = "wait";
    }
    if (strcmp(mode, "forkmany") == 0 && atoi(argument) > 0)
        return fork_many(atoi(argument));
    if (strcmp(mode, "wait") == 0 && argument[0] != '\0') {
        double start = now();
#pragma omp parallel num_threads(2)
        {
            work(0.1);
#pragma omp master
            announce(argument);
            while (now() - start < 60)
                work(0.01);
        }
        fprintf(stderr, "ompcollect-jobs: nobody killed me\n");
        return 1;
    }
    if (strcmp(mode, "fork2") == 0) {
        region(0.02);
        fflush(NULL);
        pid_t children[2];
        for (int i = 0; i < 2; i++) {
            children[i] = fork();
            if (children[i] < 0) {
                perror("fork");
                return 2;
            }
            if (children[i] == 0) {
                region(0.05);
                if (i == 0)
                    exit(0);
                _exit(0);
            }
        }
        int failed = 0;
        for (int i = 0; i < 2; i++) {
            int status;
            failed |= waitpid(children[i], &status, 0) != children[i] || !WIFEXITED(status)
                      || WEXITSTATUS(status) != 0;
        }
        region(0.02);
        printf("fork2: parent %ld, children %ld %ld\n", (long)getpid(), (long)children[0],
               (long)children[1]);
        return failed;
    }
    if (strcmp(mode, "sigurg") == 0)
        return own_signals(SIGURG, SI_USER, atoi(argument));
    if (strcmp(mode, "rtsig") == 0)
        return own_signals(SIGRTMAX, SI_QUEUE, atoi(argument));
    if (strcmp(mode, "rawsig") == 0) {
        region(0.02);
        if (raw_handler(SIGRTMAX) != 0) {
            perror("rt_sigaction");
            return 2;
        }
        region(0.2);
        printf("rawsig: the handler saw %d signals\n", atomic_load(&seen_total));
        return 0;
    }
    if (strcmp(mode, "block") == 0) {
        blocked_pair(0.15, 0.05);
        return 0;
    }
    if (strcmp(mode, "halfblock") == 0 && atof(argument) > 0) {
        blocked_pair(atof(argument) / 2, atof(argument) / 2);
        return 0;
    }
    if (strcmp(mode, "serialinit") == 0 && atof(argument) > 0) {
        work(atof(argument));
        region(0.05);
        return 0;
    }
    if (strcmp(mode, "pthread") == 0) {
        pthread_t thread;
        double seconds = 0.15;
        if (pthread_create(&thread, NULL, own_thread, &seconds) != 0)
            return 2;
        region(0.1);
        pthread_join(thread, NULL);
        return 0;
    }
    if (strcmp(mode, "sleep") == 0)
        return sleeps();
    if (strcmp(mode, "churn") == 0) {
        pthread_t thread;
        region(0.02);
        if (pthread_create(&thread, NULL, churn, NULL) != 0)
            return 2;
        while (!atomic_load(&churning))
            work(0.001);
        work(0.1);
        atomic_store(&churn_stop, 1);
        pthread_join(thread, NULL);
        region(0.02);
        return 0;
    }
    fprintf(stderr, "usage: %s segv|abort|wait MARKER|fork2|sigurg N|rtsig N|rawsig|block|halfblock S|serialinit S|pthread|churn|sleep|stubborn MARKER|forkmany N\n",
            argv[0]);
    return 2;
}
#else
/* Built without OpenMP: say so, and exit 77 (automake's "skip"). */
int main(void)
{
    fprintf(stderr, "ompcollect-jobs: built without OpenMP\n");
    return 77;
}
#endif
