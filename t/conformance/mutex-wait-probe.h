/* mutex-wait-probe.h - the scaffolding of the mutex-wait checks: one thread holds a lock or a critical section, the other blocks on it and is probed once its mutex_acquire announced it. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Included by a check after check.h, with MUTEX_LOCK (1: an omp_lock_t is held,
 * 0: a critical section; a number, for the preprocessor) and MUTEX_HOLDS (what the check
 * asserts of `state`, `state_wait_id` and `acquire_wait_id`) defined; it
 * supplies check_setup and main.
 */

#if MUTEX_LOCK
#define MUTEX_KIND ompt_mutex_lock
#else
#define MUTEX_KIND ompt_mutex_critical
#endif

static _Atomic pid_t blocked;
static _Atomic uint64_t acquire_wait_id;
static _Atomic int holding, announced;

static void on_acquire(ompt_mutex_t kind, unsigned int h, unsigned int i, ompt_wait_id_t wait_id, const void *c)
{
    (void)h, (void)i, (void)c;
    if (kind == MUTEX_KIND && atomic_load(&holding) && !atomic_load(&announced)) {
        atomic_store(&blocked, ck_tid());
        atomic_store(&acquire_wait_id, (uint64_t)wait_id);
        atomic_store(&announced, 1);
    }
}

static void check_setup(void)
{
    ck_set(ompt_callback_mutex_acquire, (ompt_callback_t)on_acquire);
}

static _Atomic int state = -1;
static uint64_t state_wait_id;

/* The holder: the other thread announces from its acquire, then is probed. */
static void probe_blocked(void)
{
    atomic_store(&holding, 1);
    ck_await(&announced);
    atomic_store(&state, ck_settled_state(atomic_load(&blocked), &state_wait_id));
}

/* The other thread, once the holder holds it. */
static void await_holder(void)
{
    while (!atomic_load(&holding))
        ck_pause_us(20);
}

int main(void)
{
#if MUTEX_LOCK
    omp_lock_t lock;
    omp_init_lock(&lock);
#else
    (void)omp_get_max_threads();
#endif
    ck_require_tool();
#pragma omp parallel num_threads(2)
    {
#if MUTEX_LOCK
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&lock);
            probe_blocked();
            omp_unset_lock(&lock);
        } else {
            await_holder();
            omp_set_lock(&lock);
            omp_unset_lock(&lock);
        }
#else
        if (omp_get_thread_num() == 0) {
#pragma omp critical
            probe_blocked();
        } else {
            await_holder();
#pragma omp critical
            (void)0;
        }
#endif
    }
#if MUTEX_LOCK
    omp_destroy_lock(&lock);
#endif
    ck_result(MUTEX_HOLDS, "the blocked thread settled in 0x%x, wait id %#llx (acquire's %#llx)", (unsigned)state,
              (unsigned long long)state_wait_id, (unsigned long long)acquire_wait_id);
}
