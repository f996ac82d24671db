/* constructs.c - explicit barriers, master and ordered as each compiler's code reports them: EBAR events and state with the user's call site, a gcc single's closing barrier left implicit, and REGISTER answers held against what fires. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
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
#include "chain.h"
#include "sampler.h"

/*
 * This program puts an OMPT tool of its own in front of the shim (see
 * chain.h), and hands the shim an ompt_set_callback that wraps the
 * sync_region_wait handler: the wrapper sees the codeptr_ra libomp reports
 * for each barrier before the shim does.  When the runtime loads the shim itself
 * (OMP_TOOL_LIBRARIES), this tool finds no shim to chain to and stays out.
 */
static ompt_set_callback_t runtime_set_callback;
static ompt_callback_sync_region_t shim_sync_region_wait;
static ompt_function_lookup_t runtime_lookup;

#define TEAM 2
#define BARRIERS 8
static _Atomic(const void *) barrier_codeptr[TEAM * BARRIERS + 16];
static _Atomic int barrier_codeptrs;
static __thread volatile int in_explicit_barrier;

static void watching_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                      ompt_data_t *parallel_data, ompt_data_t *task_data,
                                      const void *codeptr_ra)
{
    if (endpoint == ompt_scope_begin && in_explicit_barrier) {
        int slot = atomic_fetch_add(&barrier_codeptrs, 1);
        if (slot < TEAM * BARRIERS + 16)
            atomic_store(&barrier_codeptr[slot], codeptr_ra);
    }
    ompt_callback_sync_region_t shim = shim_sync_region_wait;
    if (shim != NULL)
        shim(kind, endpoint, parallel_data, task_data, codeptr_ra);
}

static ompt_set_result_t wrapping_set_callback(ompt_callbacks_t event, ompt_callback_t callback)
{
    if (event == ompt_callback_sync_region_wait && callback != NULL) {
        shim_sync_region_wait = (ompt_callback_sync_region_t)callback;
        return runtime_set_callback(event, (ompt_callback_t)watching_sync_region_wait);
    }
    return runtime_set_callback(event, callback);
}

static ompt_interface_fn_t wrapping_lookup(const char *name)
{
    if (strcmp(name, "ompt_set_callback") == 0)
        return (ompt_interface_fn_t)wrapping_set_callback;
    return runtime_lookup(name);
}

/* The shim gets a lookup function that wraps ompt_set_callback. */
ompt_function_lookup_t chain_shim_lookup(ompt_function_lookup_t runtime)
{
    runtime_lookup = runtime;
    runtime_set_callback = (ompt_set_callback_t)runtime("ompt_set_callback");
    return wrapping_lookup;
}

static _Atomic long delivered[OMP_EVENT_THR_END_ATWT + 1];
static _Atomic long in_barrier_samples, in_barrier_ebar;
static int failures;

/*
 * Set from the EBAR pair the shim delivers: the runtime has begun the wait.
 * Between the program reaching its barrier and this, the thread runs the
 * runtime's barrier entry and the callbacks, where it still reads WORK; a
 * sample lands there more often the busier the machine, so those instants
 * are not what the check below is about.
 */
static __thread volatile int runtime_waiting;

static void count(OMP_COLLECTORAPI_EVENT event)
{
    if (event >= 0 && event <= OMP_EVENT_THR_END_ATWT)
        atomic_fetch_add(&delivered[event], 1);
    if (event == OMP_EVENT_THR_BEGIN_EBAR)
        runtime_waiting = 1;
    else if (event == OMP_EVENT_THR_END_EBAR)
        runtime_waiting = 0;
}

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* Samples taken while this thread waits at the explicit barrier (its EBAR pair open), for the state they read. */
static void on_sample(int signo)
{
    (void)signo;
    if (!in_explicit_barrier || !runtime_waiting)
        return;
    uint64_t wait_id;
    int state = collector_state(&wait_id);
    atomic_fetch_add(&in_barrier_samples, 1);
    atomic_fetch_add(&in_barrier_ebar, state == THR_EBAR_STATE);
}

/* A 5 kHz sampling timer per thread. */
#define SAMPLE_PERIOD_NS 200000

static volatile long sink;

/* Whether `address` lies in this program's own code, not in a library. */
static int in_program(const void *address)
{
    Dl_info here, there;
    return address != NULL && dladdr((void *)in_program, &here) != 0
           && dladdr(address, &there) != 0 && here.dli_fbase == there.dli_fbase;
}

/* Explicit barriers: thread 0 arrives late at each, thread 1 waits for it there. */
static void explicit_barriers(void)
{
#pragma omp parallel num_threads(TEAM)
    {
        sampler_arm_thread(SAMPLE_PERIOD_NS);
        for (int i = 0; i < BARRIERS; i++) {
            if (omp_get_thread_num() == 0)
                sampler_spin_for(0.03);
            in_explicit_barrier = 1;
#pragma omp barrier
            in_explicit_barrier = 0;
        }
    }
}

/* A single without nowait: gcc closes it with a GOMP_barrier call, an implicit barrier all the same. */
static void single_construct(void)
{
#pragma omp parallel num_threads(TEAM)
    {
#pragma omp single
        sampler_spin_for(0.005);
        sink++; /* code after the single, so its closing barrier is not folded into the region's */
    }
}

/* A statically scheduled loop: gcc inlines it and closes it with a GOMP_barrier call. */
static void static_loop(void)
{
#pragma omp parallel num_threads(TEAM)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < TEAM; i++)
            sampler_spin_for(i == 0 ? 0.005 : 0.0005);
        sink++; /* code after the loop, so its closing barrier is not folded into the region's */
    }
}

/* Master constructs, and an ordered loop where each iteration waits for the one before. */
static void master_and_ordered(int *iterations)
{
#pragma omp parallel num_threads(TEAM)
    {
        for (int i = 0; i < 4; i++) {
#pragma omp master
            sink++;
        }
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 8; i++) {
            sampler_spin_for(0.001);
#pragma omp ordered
            {
                sampler_spin_for(0.002);
                atomic_fetch_add((_Atomic int *)iterations, 1);
            }
        }
    }
}

int main(void)
{
    /* Enter the runtime first: where it loads the shim itself, the API exists only after that. */
    (void)omp_get_max_threads();
    int is_gcc = getenv("WORKLOAD_IS_GCC") != NULL;
    const char *ebar_env = getenv("EXPECT_GCC_EBAR");
    int gcc_ebar = ebar_env != NULL && strcmp(ebar_env, "1") == 0;
    if (collector_lookup_reported() == NULL || !collector_report_runtime())
        return 1;
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START succeeds");
    sampler_install(SIGPROF, on_sample);

    static const int events[] = {OMP_EVENT_THR_BEGIN_EBAR, OMP_EVENT_THR_END_EBAR,
                                 OMP_EVENT_THR_BEGIN_IBAR, OMP_EVENT_THR_END_IBAR,
                                 OMP_EVENT_THR_BEGIN_MASTER, OMP_EVENT_THR_END_MASTER,
                                 OMP_EVENT_THR_BEGIN_ORDERED, OMP_EVENT_THR_END_ORDERED,
                                 OMP_EVENT_THR_BEGIN_ODWT, OMP_EVENT_THR_END_ODWT};
    int answer[OMP_EVENT_THR_END_ATWT + 1] = {0};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        answer[events[i]] = collector_register(events[i], count);

    explicit_barriers();
    long explicit_ebar = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_EBAR]);
    long explicit_ebar_end = atomic_load(&delivered[OMP_EVENT_THR_END_EBAR]);
    long ebar_before = explicit_ebar;
    long ibar_before = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_IBAR]);
    single_construct();
    long single_ebar = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_EBAR]) - ebar_before;
    long single_ibar = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_IBAR]) - ibar_before;
    ebar_before += single_ebar;
    ibar_before += single_ibar;
    static_loop();
    long loop_ebar = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_EBAR]) - ebar_before;
    long loop_ibar = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_IBAR]) - ibar_before;
    int ordered_iterations = 0;
    master_and_ordered(&ordered_iterations);
    collector_simple(OMP_REQ_PAUSE);

    long ebar = atomic_load(&delivered[OMP_EVENT_THR_BEGIN_EBAR]);
    long ebar_end = atomic_load(&delivered[OMP_EVENT_THR_END_EBAR]);
    printf("# EBAR %ld/%ld, IBAR %ld/%ld, MASTER %ld/%ld, ORDERED %ld/%ld, ODWT %ld/%ld; REGISTER EBAR %d, "
           "MASTER %d, ORDERED %d; %s\n",
           ebar, ebar_end, atomic_load(&delivered[OMP_EVENT_THR_BEGIN_IBAR]),
           atomic_load(&delivered[OMP_EVENT_THR_END_IBAR]),
           atomic_load(&delivered[OMP_EVENT_THR_BEGIN_MASTER]),
           atomic_load(&delivered[OMP_EVENT_THR_END_MASTER]),
           atomic_load(&delivered[OMP_EVENT_THR_BEGIN_ORDERED]),
           atomic_load(&delivered[OMP_EVENT_THR_END_ORDERED]),
           atomic_load(&delivered[OMP_EVENT_THR_BEGIN_ODWT]),
           atomic_load(&delivered[OMP_EVENT_THR_END_ODWT]), answer[OMP_EVENT_THR_BEGIN_EBAR],
           answer[OMP_EVENT_THR_BEGIN_MASTER], answer[OMP_EVENT_THR_BEGIN_ORDERED],
           chain_active() ? "this program's tool is in front of the shim" : "the runtime loaded the shim itself");

    /* Explicit barriers. */
    if (!is_gcc || gcc_ebar) {
        check(answer[OMP_EVENT_THR_BEGIN_EBAR] == OMP_ERRCODE_OK && answer[OMP_EVENT_THR_END_EBAR] == OMP_ERRCODE_OK,
              "REGISTER of EBAR answers OK");
        check(explicit_ebar == TEAM * BARRIERS && explicit_ebar_end == TEAM * BARRIERS,
              "every thread gets one EBAR pair per explicit barrier");
        long samples = atomic_load(&in_barrier_samples), as_ebar = atomic_load(&in_barrier_ebar);
        printf("# %ld samples at an explicit barrier, %ld read EBAR\n", samples, as_ebar);
        check(samples >= 20 && as_ebar * 100 >= samples * 95,
              "a thread waiting at an explicit barrier (inside its EBAR pair) reads THR_EBAR_STATE (>= 95% of its samples)");
    } else {
        check(answer[OMP_EVENT_THR_BEGIN_EBAR] == OMP_ERRCODE_UNSUPPORTED
                  && answer[OMP_EVENT_THR_END_EBAR] == OMP_ERRCODE_UNSUPPORTED && ebar == 0,
              "gcc code whose GOMP_barrier calls are not taken for explicit barriers: REGISTER of EBAR answers UNSUPPORTED, and none fires");
    }
    check(single_ebar == 0 && single_ibar >= 2 * TEAM,
          "a single's closing barrier (a GOMP_barrier call in gcc code) delivers IBAR, not EBAR");
    printf("# a static loop's closing barrier delivered EBAR %ld and IBAR %ld times%s\n", loop_ebar, loop_ibar,
           is_gcc && gcc_ebar ? " (gcc: a GOMP_barrier call no different from an explicit barrier's; doc/mapping.md)" : "");
    if (!is_gcc || !gcc_ebar)
        check(loop_ebar == 0 && loop_ibar >= 2 * TEAM, "a static loop's closing barrier delivers IBAR, not EBAR");
    if (chain_active()) {
        int codeptrs = atomic_load(&barrier_codeptrs), all_in_program = codeptrs == TEAM * BARRIERS;
        for (int i = 0; i < codeptrs && i < TEAM * BARRIERS + 16; i++)
            all_in_program &= in_program(atomic_load(&barrier_codeptr[i]));
        check(all_in_program, "the codeptr_ra libomp reports for each explicit barrier is the call site in the program");
    } else {
        printf("ok - the codeptr_ra of explicit barriers # SKIP the runtime loaded the shim privately: no tool of this program in front of it\n");
    }

    /* Master: gcc inlines it as a test of the thread number; nothing reaches the runtime. */
    if (is_gcc) {
        check(answer[OMP_EVENT_THR_BEGIN_MASTER] == OMP_ERRCODE_UNSUPPORTED
                  && atomic_load(&delivered[OMP_EVENT_THR_BEGIN_MASTER]) == 0,
              "gcc code: REGISTER of MASTER answers UNSUPPORTED (gcc inlines master), and none fires");
    } else {
        check(answer[OMP_EVENT_THR_BEGIN_MASTER] == OMP_ERRCODE_OK
                  && atomic_load(&delivered[OMP_EVENT_THR_BEGIN_MASTER]) == 4
                  && atomic_load(&delivered[OMP_EVENT_THR_END_MASTER]) == 4,
              "clang code: REGISTER of MASTER answers OK and each master construct delivers one pair");
    }

    /* Ordered: both compilers call the runtime (GOMP_ordered_start, __kmpc_ordered). */
    check(answer[OMP_EVENT_THR_BEGIN_ORDERED] == OMP_ERRCODE_OK
              && atomic_load(&delivered[OMP_EVENT_THR_BEGIN_ORDERED]) == ordered_iterations
              && atomic_load(&delivered[OMP_EVENT_THR_END_ORDERED]) == ordered_iterations
              && ordered_iterations == 8,
          "REGISTER of ORDERED answers OK and each ordered region delivers one pair");
    check(answer[OMP_EVENT_THR_BEGIN_ODWT] == OMP_ERRCODE_OK
              && atomic_load(&delivered[OMP_EVENT_THR_BEGIN_ODWT]) >= 1
              && atomic_load(&delivered[OMP_EVENT_THR_BEGIN_ODWT])
                     == atomic_load(&delivered[OMP_EVENT_THR_END_ODWT]),
          "REGISTER of ODWT answers OK and waits for an ordered turn deliver ODWT pairs");
    return failures != 0;
}
