/* task-wait-probe.h - the scaffolding of the task-wait state checks: a creator waits for a child another thread runs, which probes it. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Included by a check after check.h, with WAIT_KIND the sync region kind of the wait. */

static _Atomic pid_t waiter;
static _Atomic int announced;

/* The creator announces from its wait's begin; only then may the child probe it. */
static void on_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *p, ompt_data_t *t,
                    const void *c)
{
    (void)p, (void)t, (void)c;
    if (kind == WAIT_KIND && endpoint == ompt_scope_begin && ck_tid() == atomic_load(&waiter))
        atomic_store(&announced, 1);
}

static void check_setup(void)
{
    ck_set(ompt_callback_sync_region_wait, (ompt_callback_t)on_wait);
}

static _Atomic int child_started, state = -2;

/* The child: runs on the other thread, probes the creator once it announced its wait. */
static void child(void)
{
    atomic_store(&child_started, 1);
    ck_await(&announced);
    atomic_store(&state, ck_settled_state(atomic_load(&waiter), NULL));
}

/*
 * The creator makes one child and spins in user code -- not a task
 * scheduling point -- until the other thread, stealing from the region's
 * ending barrier, has started it; only then does it wait, so the wait
 * cannot run the child itself.  Returns the settled state.
 */
static int probe_task_wait(int in_taskgroup)
{
    (void)omp_get_max_threads();
    ck_require_tool();
#pragma omp parallel num_threads(2)
#pragma omp master
    {
        atomic_store(&waiter, ck_tid());
        if (in_taskgroup) {
#pragma omp taskgroup
            {
#pragma omp task
                child();
                ck_await(&child_started);
            }
        } else {
#pragma omp task
            child();
            ck_await(&child_started);
#pragma omp taskwait
        }
    }
    return atomic_load(&state);
}
