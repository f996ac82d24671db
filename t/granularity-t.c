/* granularity-t.c - the task granularity check (tools/report/analysis/granularity.c) on models made by hand, whose scheduling estimate, mean task and verdict are known by construction. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "granularity.h"
#include "omp_collector_api.h"
#include "lib/tap.h"

#include <math.h>
#include <string.h>

#define INTERVAL_NS 1000000 /* 1 ms */
#define THREADS 3

/* A model of THREADS threads and two task constructs, and its located rows. */
struct fixture {
    struct ompc_model_thread threads[THREADS];
    struct ompc_model_task_construct sites[2];
    struct ompc_task_construct_row rows[2];
    struct ompc_model_process process;
    struct ompc_locations locations;
};

/* Thread `i` ran `runs` tasks, `undeferred` of them created undeferred, waited `waiting` samples (IBAR, EBAR) and worked `work`. */
static void thread_ran(struct fixture *f, int i, uint64_t runs, uint64_t undeferred, uint64_t waiting, uint64_t work,
                       uint64_t exec_ns)
{
    struct ompc_model_thread *thread = &f->threads[i];
    thread->task_events[OMP_EVENT_THR_BEGIN_EXEC_TASK - OMPC_TASK_EVENT_FIRST] = runs;
    thread->task_events[OMP_EVENT_THR_END_CREATE_TASK_IMM - OMPC_TASK_EVENT_FIRST] = undeferred;
    thread->state_ticks[THR_IBAR_STATE] = waiting / 2;
    thread->state_ticks[THR_EBAR_STATE] = waiting - waiting / 2;
    thread->state_ticks[THR_WORK_STATE] = work;
    thread->task_exec_ns = exec_ns;
}

/*
 * Thread 0 ran 1000 tasks from a queue and waited 100 ms (100 us a run);
 * thread 1 ran 2000, 1000 of them undeferred, and waited 20 ms (20 us per
 * queued run, the least); thread 2 ran 10 and waited nothing, but has no
 * samples to say so.  Half their task execution was WORK.  Construct 0:
 * 3000 tasks of 4 us runs, 2 us mean task, created in 1 us each: too fine
 * (2 < 10 x (1 + 1)).  Construct 1: 10 tasks of 1 ms runs, 0.5 ms mean.
 */
static void build(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    thread_ran(f, 0, 1000, 0, 100, 150, 300000000);
    thread_ran(f, 1, 2000, 1000, 20, 150, 300000000);
    thread_ran(f, 2, 10, 0, 0, 0, 0);
    f->sites[0] = (struct ompc_model_task_construct){.codeptr = 0x1000, .created = 3000, .create_ns = 3000000,
                                                      .runs = 3000, .undeferred = 1000, .timed_runs = 3000,
                                                      .exec_ns = 12000000};
    f->sites[1] = (struct ompc_model_task_construct){.codeptr = 0x2000, .created = 10, .create_ns = 10000,
                                                      .runs = 10, .timed_runs = 10, .exec_ns = 10000000};
    f->rows[0].sum = f->sites[0];
    f->rows[1].sum = f->sites[1];
    f->process.threads = f->threads;
    f->process.thread_count = THREADS;
    f->process.has_task_info = 1;
    f->locations.task_constructs = f->rows;
    f->locations.task_construct_count = 2;
}

/* Whether two reals agree to a part in a million. */
static int near(double got, double expected)
{
    return fabs(got - expected) <= 1e-6 * fabs(expected) + 1e-9;
}

int main(void)
{
    struct fixture f;
    struct ompc_task_granularity g;
    tap_plan(15);

    build(&f);
    tap_ok(ompc_task_granularity_build(&f.process, &f.locations, INTERVAL_NS, &g) == 0 && g.known,
           "a model with sampled task threads gives an estimate");
    tap_ok(g.sched_thread == 1 && near(g.sched_ns, 20000),
           "scheduling: the least waiting per queued run, 20 us on thread 1 (got %.1f ns on thread %d)", g.sched_ns,
           g.sched_thread);
    tap_is_int((long long)ompc_task_dispatched(&f.threads[1]), 1000, "runs of undeferred tasks are not queued runs");
    tap_ok(near(g.work_share, 0.5), "work share: WORK over task execution, 0.5 (got %.3f)", g.work_share);
    tap_ok(near(g.constructs[0].mean_ns, 2000) && near(g.constructs[0].create_ns, 1000),
           "construct 0: mean task 2 us, creation 1 us (got %.1f, %.1f ns)", g.constructs[0].mean_ns,
           g.constructs[0].create_ns);
    tap_ok(near(g.constructs[0].sched_ns, 1000) && near(g.constructs[0].overhead_ns, 2000),
           "construct 0: scheduling counted at most as creation, overhead 2 us (got %.1f, %.1f ns)",
           g.constructs[0].sched_ns, g.constructs[0].overhead_ns);
    tap_ok(g.constructs[0].too_fine && !g.constructs[1].too_fine,
           "construct 0 (2 us tasks) is too fine, construct 1 (0.5 ms tasks) is not");
    tap_ok(near(g.constructs[0].cost_ns, 3000000 + 2000 * 20000.0),
           "construct 0's cost: its creation and 20 us for each of its 2000 queued runs (got %.0f ns)",
           g.constructs[0].cost_ns);
    tap_ok(ompc_task_sched_ns(&g, &f.threads[1]) == 20000000 && ompc_task_sched_ns(&g, &f.threads[2]) == 0,
           "a thread is charged its queued runs times the estimate, at most its own waiting (none on thread 2)");
    ompc_task_granularity_free(&g);

    /* The busiest thread hardly waits: real waiting on another thread does not make tasks fine. */
    build(&f);
    f.threads[0].state_ticks[THR_IBAR_STATE] = 100000;
    f.rows[0].sum.exec_ns = 3000 * 200000ull; /* 100 us mean task */
    ompc_task_granularity_build(&f.process, &f.locations, INTERVAL_NS, &g);
    tap_ok(g.sched_thread == 1 && !g.constructs[0].too_fine,
           "100 s of waiting on thread 0 leaves the estimate to thread 1, and 100 us tasks are not too fine");
    ompc_task_granularity_free(&g);

    build(&f);
    f.rows[0].sum.create_ns = 0;
    ompc_task_granularity_build(&f.process, &f.locations, INTERVAL_NS, &g);
    tap_ok(!g.constructs[0].too_fine, "without creation times no construct is too fine");
    ompc_task_granularity_free(&g);

    build(&f);
    tap_ok(ompc_task_granularity_build(&f.process, &f.locations, 0, &g) == 0 && !g.known && g.constructs == NULL,
           "without sampling nothing is known");
    ompc_task_granularity_free(&g);

    /*
     * The runtime's work sampled in its code (all of both threads' WORK,
     * 300 ms) is creation no task event timed, the same for each of the
     * 3010 tasks: construct 0 pays its share in creation and in its cost.
     */
    build(&f);
    f.threads[0].runtime_work_ticks = 150;
    f.threads[1].runtime_work_ticks = 150;
    ompc_task_granularity_build(&f.process, &f.locations, INTERVAL_NS, &g);
    double runtime = 300e6 / 3010;
    tap_ok(near(g.runtime_per_task_ns, runtime) && near(g.constructs[0].create_ns, 1000 + runtime)
               && near(g.constructs[0].cost_ns, 3000 * (1000 + runtime) + 2000 * 20000.0)
               && near(g.constructs[0].cost_per_task_ns * 3000, g.constructs[0].cost_ns),
           "the runtime's sampled work, %.1f ns a task, is creation: construct 0 creates in %.1f ns, costs %.0f ns",
           g.runtime_per_task_ns, g.constructs[0].create_ns, g.constructs[0].cost_ns);
    tap_ok(ompc_task_runtime_ns(&g, &f.threads[0]) == 150000000 && ompc_task_runtime_ns(&g, &f.threads[2]) == 0,
           "a thread's part: its own samples in the runtime's code");
    ompc_task_granularity_free(&g);

    build(&f);
    thread_ran(&f, 1, 2000, 1000, 4, 1, 300000000);
    ompc_task_granularity_build(&f.process, &f.locations, INTERVAL_NS, &g);
    tap_ok(g.sched_thread == 0 && near(g.sched_ns, 100000),
           "a thread with fewer than %d samples gives no estimate: thread 1 with 5 leaves it to thread 0's 100 us",
           OMPC_SCHED_MIN_SAMPLES);
    ompc_task_granularity_free(&g);
    return tap_done();
}
