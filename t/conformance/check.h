/* check.h - what every conformance check shares: an OMPT tool inside the test program, an event log, a state probe and the one TAP line. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header-only on purpose: `t/conformance/run -r NAME` pastes it in front of
 * a check to make a stand-alone reproducer a runtime developer can attach
 * to a bug report.  A check defines CHECK_MEANING (one line: what holds),
 * optionally KNOWN_BUG (why a runtime is known to fail it: the TAP line
 * then carries "# TODO"), and check_setup() (sets its callbacks).  The
 * build defines CHECK_NAME.  clang code finds libomp's ompt_start_tool
 * lookup by this definition in the program itself.
 */
#ifndef CHECK_H
#define CHECK_H
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <errno.h>
#include <omp-tools.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef CHECK_NAME
#define CHECK_NAME "reproducer"
#endif

static ompt_set_callback_t ck_set_callback;
static ompt_get_state_t ck_get_state;
static ompt_get_parallel_info_t ck_get_parallel_info;
static ompt_get_task_info_t ck_get_task_info;
static ompt_get_thread_data_t ck_get_thread_data;
static ompt_finalize_tool_t ck_finalize_tool;
static _Atomic int ck_started, ck_finalized;
/* The first callback the runtime refused (answered below ompt_set_sometimes), 0 if none. */
static int ck_refused;

static void check_setup(void);
static int ck_me(void);

/* Sets a callback; remembers a refusal so that the check can skip. */
static int ck_set(ompt_callbacks_t which, ompt_callback_t handler)
{
    int answer = (int)ck_set_callback(which, handler);
    if (answer < (int)ompt_set_sometimes && ck_refused == 0)
        ck_refused = (int)which;
    return answer;
}

static int ck_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ck_set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
    ck_get_state = (ompt_get_state_t)lookup("ompt_get_state");
    ck_get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    ck_get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
    ck_get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
    ck_finalize_tool = (ompt_finalize_tool_t)lookup("ompt_finalize_tool");
    if (ck_set_callback == NULL || ck_get_state == NULL)
        return 0;
    atomic_store(&ck_started, 1);
    (void)ck_me(); /* the initial thread is thread 0 of the log */
    check_setup();
    return 1;
}

#ifdef CHECK_ON_FINALIZE
static void CHECK_ON_FINALIZE(void);
#endif
static void ck_finalize(ompt_data_t *data)
{
    (void)data;
    atomic_store(&ck_finalized, 1);
#ifdef CHECK_ON_FINALIZE
    CHECK_ON_FINALIZE();
#endif
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
    (void)version, (void)runtime;
    static ompt_start_tool_result_t result = {ck_initialize, ck_finalize, {0}};
    return &result;
}

/* ---- The one TAP line. ---- */

static _Atomic int ck_reported;

/* The runtime the program really runs on must be the one under test (EXPECT_LIBOMP), or the verdict is about another. */
static const char *ck_wrong_runtime(void)
{
    static char why[600];
    const char *expected = getenv("EXPECT_LIBOMP");
    Dl_info info;
    if (expected == NULL || *expected == '\0')
        return NULL;
    if (dladdr((void *)(uintptr_t)omp_get_num_threads, &info) == 0 || info.dli_fname == NULL)
        return "cannot tell which runtime is loaded";
    char *real = realpath(info.dli_fname, NULL);
    int same = real != NULL && strcmp(real, expected) == 0;
    snprintf(why, sizeof why, "runs on %s, not %s", real ? real : info.dli_fname, expected);
    free(real);
    return same ? NULL : why;
}

static void ck_line(const char *verdict, const char *directive)
{
    if (atomic_exchange(&ck_reported, 1))
        return;
    printf("1..1\n%s 1 - %s: %s%s\n", verdict, CHECK_NAME, CHECK_MEANING, directive);
    fflush(stdout);
}

/* Prints the check's verdict with a diagnostic; exits. */
__attribute__((format(printf, 2, 3))) static void ck_result(int passed, const char *format, ...)
{
    const char *wrong = ck_wrong_runtime();
    va_list args;
    va_start(args, format);
    printf("# ");
    vprintf(format, args);
    printf("\n");
    va_end(args);
    if (wrong != NULL) {
        printf("# %s\n", wrong);
        passed = 0;
    }
#ifdef KNOWN_BUG
    ck_line(passed ? "ok" : "not ok", wrong ? "" : " # TODO " KNOWN_BUG);
#else
    ck_line(passed ? "ok" : "not ok", "");
#endif
    exit(0);
}

/* The check does not apply to this runtime or program; exits. */
static void ck_skip(const char *why)
{
    char directive[300];
    snprintf(directive, sizeof directive, " # SKIP %s", why);
    ck_line("ok", directive);
    exit(0);
}

/* Skips unless the tool started and every callback it asked for was granted. */
static void ck_require_tool(void)
{
    static char why[80];
    if (!atomic_load(&ck_started))
        ck_skip("the runtime did not start the tool (OMPT disabled?)");
    if (ck_refused != 0) {
        snprintf(why, sizeof why, "the runtime refused callback %d", ck_refused);
        ck_skip(why);
    }
}

/* ---- An event log: callbacks append, the check reads after the fact. ---- */

enum ck_what {
    EV_THREAD_BEGIN = 1, EV_THREAD_END, EV_PARALLEL_BEGIN, EV_PARALLEL_END, EV_IMPLICIT_TASK,
    EV_SYNC_REGION, EV_SYNC_WAIT, EV_MUTEX_ACQUIRE, EV_MUTEX_ACQUIRED, EV_MUTEX_RELEASED,
    EV_NEST_LOCK, EV_LOCK_INIT, EV_LOCK_DESTROY, EV_WORK, EV_MASKED, EV_TASK_CREATE,
    EV_TASK_SCHEDULE, EV_DEPENDENCES, EV_TASK_DEPENDENCE, EV_REDUCTION, EV_MARK
};

struct ck_event {
    int thread;     /* order of the thread's first record, 0 for the first */
    int what;       /* enum ck_what */
    int kind;       /* construct kind, flags or status */
    int endpoint;   /* ompt_scope_begin/end, or 0 */
    uint64_t a, b;  /* per event: wait id, data pointers, counts */
    const void *codeptr;
};

#define CK_EVENTS 8192
static struct ck_event ck_log[CK_EVENTS];
static _Atomic int ck_logged;
static _Atomic int ck_threads;
static __thread int ck_thread = -1;

/* This thread's number in the log: threads are numbered as they first record. */
static int ck_me(void)
{
    if (ck_thread < 0)
        ck_thread = atomic_fetch_add(&ck_threads, 1);
    return ck_thread;
}

static void ck_record(int what, int kind, int endpoint, uint64_t a, uint64_t b, const void *codeptr)
{
    int i = atomic_fetch_add(&ck_logged, 1);
    if (i >= CK_EVENTS)
        return;
    ck_log[i] = (struct ck_event){ck_me(), what, kind, endpoint, a, b, codeptr};
}

/* Index of the first event after `from` on `thread` (-1: any) matching what/kind/endpoint (-1: any); -1 if none. */
static int ck_find(int from, int thread, int what, int kind, int endpoint)
{
    int n = atomic_load(&ck_logged);
    if (n > CK_EVENTS)
        n = CK_EVENTS;
    for (int i = from + 1; i < n; i++) {
        const struct ck_event *e = &ck_log[i];
        if ((thread < 0 || e->thread == thread) && e->what == what && (kind < 0 || e->kind == kind)
            && (endpoint < 0 || e->endpoint == endpoint))
            return i;
    }
    return -1;
}

/* How many events match (thread -1, kind -1, endpoint -1: any). */
static int ck_count(int thread, int what, int kind, int endpoint)
{
    int count = 0;
    for (int i = ck_find(-1, thread, what, kind, endpoint); i >= 0; i = ck_find(i, thread, what, kind, endpoint))
        count++;
    return count;
}


/* ---- Recording handlers, set by ck_follow: each appends one event. ---- */

#define CK_PTR(p) ((uint64_t)(uintptr_t)(p))
/* What a data object holds: the tool numbers regions and tasks at their begin, the runtime must hand the same object back. */
#define CK_VAL(d) ((d) != NULL ? (d)->value : 0)
static _Atomic uint64_t ck_next_id = 1;

static void ck_on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
    data->value = atomic_fetch_add(&ck_next_id, 1);
    ck_record(EV_THREAD_BEGIN, (int)type, 0, CK_VAL(data), 0, NULL);
}

static void ck_on_thread_end(ompt_data_t *data)
{
    ck_record(EV_THREAD_END, 0, 0, CK_VAL(data), 0, NULL);
}

static void ck_on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                                 unsigned int requested, int flags, const void *codeptr)
{
    (void)task, (void)frame;
    parallel->value = atomic_fetch_add(&ck_next_id, 1);
    ck_record(EV_PARALLEL_BEGIN, flags, 0, CK_VAL(parallel), requested, codeptr);
}

static void ck_on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *codeptr)
{
    (void)task;
    ck_record(EV_PARALLEL_END, flags, 0, CK_VAL(parallel), 0, codeptr);
}

/* b: actual parallelism in the high half, index in the low half. */
static void ck_on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                                unsigned int actual, unsigned int index, int flags)
{
    if (endpoint == ompt_scope_begin && task != NULL)
        task->value = atomic_fetch_add(&ck_next_id, 1);
    ck_record(EV_IMPLICIT_TASK, flags, (int)endpoint, CK_VAL(parallel), ((uint64_t)actual << 32) | index,
              NULL);
}

static void ck_on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                              ompt_data_t *task, const void *codeptr)
{
    ck_record(EV_SYNC_REGION, (int)kind, (int)endpoint, CK_VAL(parallel), CK_VAL(task), codeptr);
}

static void ck_on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                            ompt_data_t *task, const void *codeptr)
{
    ck_record(EV_SYNC_WAIT, (int)kind, (int)endpoint, CK_VAL(parallel), CK_VAL(task), codeptr);
}

static void ck_on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                            ompt_data_t *task, const void *codeptr)
{
    ck_record(EV_REDUCTION, (int)kind, (int)endpoint, CK_VAL(parallel), CK_VAL(task), codeptr);
}

static void ck_on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                                const void *codeptr)
{
    (void)hint, (void)impl;
    ck_record(EV_MUTEX_ACQUIRE, (int)kind, 0, wait_id, 0, codeptr);
}

static void ck_on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    ck_record(EV_MUTEX_ACQUIRED, (int)kind, 0, wait_id, 0, codeptr);
}

static void ck_on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    ck_record(EV_MUTEX_RELEASED, (int)kind, 0, wait_id, 0, codeptr);
}

static void ck_on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr)
{
    ck_record(EV_NEST_LOCK, 0, (int)endpoint, wait_id, 0, codeptr);
}

static void ck_on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                            const void *codeptr)
{
    (void)hint, (void)impl;
    ck_record(EV_LOCK_INIT, (int)kind, 0, wait_id, 0, codeptr);
}

static void ck_on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr)
{
    ck_record(EV_LOCK_DESTROY, (int)kind, 0, wait_id, 0, codeptr);
}

static void ck_on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                       uint64_t count, const void *codeptr)
{
    (void)task;
    ck_record(EV_WORK, (int)kind, (int)endpoint, CK_VAL(parallel), count, codeptr);
}

static void ck_on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel, ompt_data_t *task,
                         const void *codeptr)
{
    (void)task;
    ck_record(EV_MASKED, 0, (int)endpoint, CK_VAL(parallel), 0, codeptr);
}

static void ck_on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task, int flags,
                              int has_dependences, const void *codeptr)
{
    (void)task, (void)frame;
    new_task->value = atomic_fetch_add(&ck_next_id, 1);
    ck_record(EV_TASK_CREATE, flags, 0, CK_VAL(new_task), (uint64_t)has_dependences, codeptr);
}

static void ck_on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    ck_record(EV_TASK_SCHEDULE, (int)status, 0, CK_VAL(prior), CK_VAL(next), NULL);
}

/* The first dependences reported, for the checks that look at them. */
static ompt_dependence_t ck_deps[4];
static _Atomic int ck_ndeps = -1;

static void ck_on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int ndeps)
{
    int expected = -1;
    if (atomic_compare_exchange_strong(&ck_ndeps, &expected, ndeps))
        memcpy(ck_deps, deps, sizeof deps[0] * (size_t)(ndeps < 4 ? ndeps : 4));
    ck_record(EV_DEPENDENCES, ndeps, 0, CK_VAL(task), 0, NULL);
}

static void ck_on_task_dependence(ompt_data_t *source, ompt_data_t *sink)
{
    ck_record(EV_TASK_DEPENDENCE, 0, 0, CK_VAL(source), CK_VAL(sink), NULL);
}

/* Sets the recording handler of `which` (a refusal makes ck_require_tool skip). */
static void ck_follow(ompt_callbacks_t which)
{
    ompt_callback_t handler = NULL;
    switch (which) {
#define CK_CASE(name) case ompt_callback_##name: handler = (ompt_callback_t)ck_on_##name; break;
        CK_CASE(thread_begin) CK_CASE(thread_end) CK_CASE(parallel_begin) CK_CASE(parallel_end)
        CK_CASE(implicit_task) CK_CASE(sync_region) CK_CASE(reduction) CK_CASE(mutex_acquire)
        CK_CASE(mutex_acquired) CK_CASE(mutex_released) CK_CASE(nest_lock) CK_CASE(lock_init)
        CK_CASE(lock_destroy) CK_CASE(work) CK_CASE(masked) CK_CASE(task_create) CK_CASE(task_schedule)
        CK_CASE(dependences) CK_CASE(task_dependence)
#undef CK_CASE
    case ompt_callback_sync_region_wait: handler = (ompt_callback_t)ck_on_sync_wait; break;
    default: break;
    }
    if (handler != NULL)
        ck_set(which, handler);
}

/* ---- Which function a return address lies in (the program links with -rdynamic). ---- */

static const char *ck_function_of(const void *codeptr)
{
    Dl_info info;
    if (codeptr == NULL)
        return "(null)";
    if (dladdr(codeptr, &info) == 0 || info.dli_sname == NULL)
        return "(unknown)";
    return info.dli_sname;
}

/* ---- A state probe: another thread's ompt_get_state, read by a signal handler on it. ---- */

static _Atomic int ck_probed_state;
static _Atomic uint64_t ck_probed_wait;
static _Atomic unsigned ck_answers;

/* ompt_get_state is async-signal-safe (OpenMP 5.0, 4.6.1.2), which is what profilers rely on. */
static void ck_on_probe(int signo)
{
    (void)signo;
    int saved = errno;
    ompt_wait_id_t wait_id = 0;
    int state = ck_get_state(&wait_id);
    atomic_store(&ck_probed_wait, (uint64_t)wait_id);
    atomic_store(&ck_probed_state, state);
    atomic_fetch_add(&ck_answers, 1);
    errno = saved;
}

static pid_t ck_tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static void ck_pause_us(long us)
{
    struct timespec delay = {0, us * 1000L};
    nanosleep(&delay, NULL);
}

/*
 * The state thread `tid` settles in: probed until five answers in a row
 * agree.  Callers probe only once the thread has announced (from a
 * callback) that it is inside the construct, so a settled answer is the
 * construct's.  The 10 s limit is not a timing assertion: it only stops
 * a thread that never answers from hanging the check.  -1: no answer.
 */
static int ck_settled_state(pid_t tid, uint64_t *wait_id)
{
    static int installed;
    if (!installed) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = ck_on_probe;
        action.sa_flags = SA_RESTART;
        sigaction(SIGUSR1, &action, NULL);
        installed = 1;
    }
    int last = -1, same = 0;
    for (int tries = 0; tries < 20000 && same < 5; tries++) {
        unsigned before = atomic_load(&ck_answers);
        if (syscall(SYS_tgkill, getpid(), tid, SIGUSR1) != 0)
            return -1;
        for (int waits = 0; atomic_load(&ck_answers) == before; waits++) {
            if (waits == 200000)
                return -1; /* 10 s without an answer: the thread is gone or blocks signals */
            ck_pause_us(50);
        }
        int state = atomic_load(&ck_probed_state);
        same = state == last ? same + 1 : 1;
        last = state;
        ck_pause_us(200);
    }
    if (wait_id != NULL)
        *wait_id = atomic_load(&ck_probed_wait);
    return same >= 5 ? last : -1;
}

/* Spins (yielding) until *flag is nonzero. */
static void ck_await(_Atomic int *flag)
{
    while (!atomic_load(flag))
        ck_pause_us(20);
}

#endif
