/* set-callback-race.c - unsetting a callback while other threads dispatch it must not make them call NULL. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "ompt_set_callback(mutex_acquire, NULL/handler) toggled while two threads take locks never makes a thread call NULL"
#define KNOWN_BUG "libomp dispatches by testing an enabled flag, then loading the pointer, and set_callback stores the NULL pointer before clearing the flag (lib/tool.c: oc_apply_callbacks never unsets)"
#include "check.h"

#define TOGGLES 200000

static _Atomic long dispatched;
static _Atomic int done;

static void on_acquire(ompt_mutex_t kind, unsigned int h, unsigned int i, ompt_wait_id_t w, const void *c)
{
    (void)kind, (void)h, (void)i, (void)w, (void)c;
    atomic_fetch_add_explicit(&dispatched, 1, memory_order_relaxed);
}

static void check_setup(void)
{
    ck_set(ompt_callback_mutex_acquire, (ompt_callback_t)on_acquire);
}

/* The crash is the verdict: a handler that can only write() says so and leaves. */
static char crash_line[600];
static void on_crash(int signo)
{
    (void)signo;
    if (write(STDOUT_FILENO, crash_line, strlen(crash_line)) < 0)
        _exit(1);
    _exit(0);
}

int main(void)
{
    (void)omp_get_max_threads();
    ck_require_tool();
    snprintf(crash_line, sizeof crash_line,
             "# a thread jumped through a NULL callback (SIGSEGV)\n1..1\nnot ok 1 - %s: %s # TODO %s\n", CHECK_NAME,
             CHECK_MEANING, KNOWN_BUG);
    signal(SIGSEGV, on_crash);
    /* No thread is inside the runtime yet: the setting above was safe; from here on each toggle races. */
#pragma omp parallel num_threads(3)
    {
        if (omp_get_thread_num() == 0) {
            for (int i = 0; i < TOGGLES; i++) {
                ck_set_callback(ompt_callback_mutex_acquire, NULL);
                ck_set_callback(ompt_callback_mutex_acquire, (ompt_callback_t)on_acquire);
            }
            atomic_store(&done, 1);
        } else {
            omp_lock_t lock;
            omp_init_lock(&lock);
            while (!atomic_load(&done)) {
                omp_set_lock(&lock);
                omp_unset_lock(&lock);
            }
            omp_destroy_lock(&lock);
        }
    }
    /* Not seeing the crash proves nothing about the race: not applicable rather than passed. */
    printf("# %ld dispatches across %d toggles without a crash\n", (long)dispatched, TOGGLES);
    ck_skip("the race did not show in this run (it is a race: no verdict)");
}
