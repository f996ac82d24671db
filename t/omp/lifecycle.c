/* lifecycle.c - the shim over a process's life on real libomp: 1000 START/REGISTER/STOP cycles (leak-checked in ASan builds), fork, exec, dlclose; prints TAP lines (unnumbered). */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Modes (argv[1]):
 *   cycles         LIFECYCLE_CYCLES (default 1000) sessions, each START,
 *                  REGISTER of all 22 events, a region, STOP; in an ASan
 *                  build LeakSanitizer then checks the process.
 *   fork           a session, then fork(): parent and child both keep
 *                  running regions, get events and answer STATE.
 *   exec           a session, then exec of this program as exec-child,
 *                  which runs a session of its own under the same shim.
 *   dlclose SHIM   dlopen the shim from main (no preload), START, a
 *                  region, STOP, dlclose, more regions, a normal exit.
 * main holds no OpenMP construct: clang enters libomp in the prologue of a
 * function that does, and the dlclose mode's dlopen must come first.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN 1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#define TEAM 2
#define EVENTS OMP_EVENT_THR_END_ATWT

static int failures;
static const char *who = ""; /* "child: " in a forked child */
static _Atomic long forks, events;
static _Atomic long region_samples, bad_region_samples;

/* One TAP line (unnumbered), prefixed in a forked child. */
static void check(int passed, const char *what)
{
    printf("%s - %s%s\n", passed ? "ok" : "not ok", who, what);
    failures += !passed;
}

/* Counts FORK events. */
static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    if (event == OMP_EVENT_FORK)
        atomic_fetch_add(&forks, 1);
}

/* Counts every other event. */
static void on_any(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    atomic_fetch_add(&events, 1);
}

/* A region with a critical and a barrier; every thread samples itself inside it. */
static __attribute__((noinline)) void team_region(void)
{
#pragma omp parallel num_threads(TEAM)
    {
#pragma omp critical
        atomic_fetch_add(&region_samples, 1);
        uint64_t wait_id, region = 0;
        int state = collector_state(&wait_id);
        int ec = collector_prid(OMP_REQ_CURRENT_PRID, &region);
        if (state != THR_WORK_STATE || ec != OMP_ERRCODE_OK || region == 0)
            atomic_fetch_add(&bad_region_samples, 1);
#pragma omp barrier
    }
}

/* REGISTERs every event in one batch, odd ones packed (28 bytes), even ones aligned (32). */
static int register_all(void)
{
    int32_t batch[EVENTS * 8 + 1];
    int words = 0;
    for (int event = 1; event <= EVENTS; event++) {
        omp_collector_callback_t callback = event == OMP_EVENT_FORK ? on_fork : on_any;
        int size = event % 2 ? 28 : 32;
        int32_t *entry = &batch[words];
        memset(entry, 0, (size_t)size);
        entry[0] = size;
        entry[1] = OMP_REQ_REGISTER;
        entry[4] = event;
        memcpy(&entry[size == 28 ? 5 : 6], &callback, sizeof callback);
        words += size / 4;
    }
    batch[words] = 0;
    int (*api)(void *) = collector_lookup();
    if (api == NULL || api(batch) != 0)
        return 0;
    for (int i = 0, event = 1; event <= EVENTS; event++) {
        if (batch[i + 2] != OMP_ERRCODE_OK && batch[i + 2] != OMP_ERRCODE_UNSUPPORTED)
            return 0;
        i += batch[i] / 4;
    }
    return 1;
}

/* STATE and CURRENT_PRID from serial code: SERIAL and 0. */
static int serial_answers_right(void)
{
    uint64_t wait_id, region = 1;
    int state = collector_state(&wait_id);
    int ec = collector_prid(OMP_REQ_CURRENT_PRID, &region);
    return state == THR_SERIAL_STATE && ec == OMP_ERRCODE_OK && region == 0;
}

/* LIFECYCLE_CYCLES sessions back to back, then the leak check. */
static int cycles(void)
{
    long count = 1000;
    const char *text = getenv("LIFECYCLE_CYCLES");
    if (text != NULL && atol(text) > 0)
        count = atol(text);
    long started = 0, registered = 0, stopped = 0, delivered = 0;
    for (long i = 0; i < count; i++) {
        long before = atomic_load(&forks);
        started += collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK;
        registered += register_all();
        team_region();
        delivered += atomic_load(&forks) == before + 1;
        stopped += collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK;
    }
    printf("# %ld cycles, %ld events delivered\n", count, atomic_load(&events) + atomic_load(&forks));
    check(started == count, "every START after STOP succeeds");
    check(registered == count, "every REGISTER batch of all 22 events is answered OK or UNSUPPORTED");
    check(delivered == count, "every session delivers its region's FORK, once");
    check(stopped == count, "every STOP succeeds");
    check(atomic_load(&bad_region_samples) == 0, "threads in each region read WORK and its id");
#ifdef HAVE_LSAN
    check(__lsan_do_recoverable_leak_check() == 0,
          "LeakSanitizer finds no leak after the cycles");
#else
    printf("ok - LeakSanitizer finds no leak after the cycles # SKIP not an AddressSanitizer build\n");
#endif
    return failures != 0;
}

/* A session that works: REGISTER, a region delivers FORK, threads answer inside it and outside. */
static void session_works(const char *what)
{
    char line[256];
    long before = atomic_load(&forks);
    long bad_before = atomic_load(&bad_region_samples);
    snprintf(line, sizeof line, "%s: REGISTER of all 22 events is answered", what);
    check(register_all(), line);
    team_region();
    team_region();
    snprintf(line, sizeof line, "%s: FORK is delivered for each region", what);
    check(atomic_load(&forks) == before + 2, line);
    snprintf(line, sizeof line, "%s: threads in a region read WORK and its id", what);
    check(atomic_load(&bad_region_samples) == bad_before, line);
    snprintf(line, sizeof line, "%s: serial code reads SERIAL and region 0", what);
    check(serial_answers_right(), line);
}

/* A session across fork(): both processes keep working. */
static int forked(void)
{
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    session_works("before fork");
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        check(0, "fork succeeds");
        return 1;
    }
    if (child == 0) {
        who = "child: ";
        session_works("after fork");
        check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds");
        check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START again succeeds");
        session_works("a new session");
        fflush(stdout);
        /*
         * _exit: libomp re-initialises itself in a forked child and drops
         * what the parent's runtime had allocated, which LeakSanitizer's
         * exit-time check would report as leaks of libomp's.
         */
        _exit(failures != 0);
    }
    session_works("parent after fork");
    int status = 0;
    check(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "the child exits 0");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        printf("# child: wait status %#x\n", (unsigned)status);
    return failures != 0;
}

/* A session, then exec of this same program as exec-child. */
static int exec_parent(const char *self)
{
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    session_works("before exec");
    fflush(stdout);
    execl(self, self, "exec-child", (char *)NULL);
    check(0, "exec of the program succeeds");
    return 1;
}

/* The exec'd program: a session of its own under the inherited shim. */
static int exec_child(void)
{
    who = "exec'd: ";
    failures += !collector_report_runtime();
    check(collector_lookup() != NULL, "the exec'd program finds the shim");
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    session_works("exec'd session");
    check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds");
    return failures != 0;
}

/* dlopen from main, a session, dlclose, then regions and a normal exit. */
static int dlclosed(const char *shim)
{
    void *handle = dlopen(shim, RTLD_NOW | RTLD_GLOBAL);
    check(handle != NULL, "dlopen(RTLD_NOW | RTLD_GLOBAL) of the shim from main succeeds");
    if (handle == NULL) {
        printf("# %s\n", dlerror());
        return 1;
    }
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    session_works("dlopened session");
    check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds");
    check(dlclose(handle) == 0, "dlclose of the shim succeeds");
    void *still = dlopen(shim, RTLD_NOW | RTLD_NOLOAD);
    printf("# after dlclose the shim is %s\n", still != NULL ? "still mapped" : "unmapped");
    if (still != NULL)
        dlclose(still);
    long before = atomic_load(&forks);
    team_region();
    team_region();
    check(atomic_load(&forks) == before, "regions run on after dlclose, delivering nothing");
    fflush(stdout);
    return failures != 0; /* the runtime shuts down at exit: that must not crash either */
}

/* Picks the mode. */
int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *mode = argc > 1 ? argv[1] : "cycles";
    if (strcmp(mode, "exec-child") == 0)
        return exec_child();
    if (strcmp(mode, "dlclose") == 0 && argc > 2)
        return dlclosed(argv[2]);
    failures += !collector_report_runtime();
    if (collector_lookup_reported() == NULL)
        return 1;
    if (strcmp(mode, "cycles") == 0)
        return cycles();
    if (strcmp(mode, "fork") == 0)
        return forked();
    if (strcmp(mode, "exec") == 0)
        return exec_parent("/proc/self/exe");
    fprintf(stderr, "usage: %s cycles|fork|exec|dlclose SHIM\n", argv[0]);
    return 2;
}
