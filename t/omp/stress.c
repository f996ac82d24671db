/* stress.c - control requests (REGISTER, UNREGISTER, PAUSE, RESUME, STOP, START) race events, samples and an optional signal storm on real libomp; prints TAP lines (unnumbered). */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Modes (argv[1]):
 *   stress      4-thread teams run every construct while a controller
 *               thread cycles every control request and sampler threads
 *               ask STATE + CURRENT_PRID; STRESS_SECONDS long (default 3).
 *   storm       the same, with a per-thread timer at 10 kHz on every
 *               OpenMP thread whose signal handler samples; STORM_SECONDS
 *               long (default 2).
 *   reproducer  the crash of issue 11 as first reported: 2 threads in
 *               critical + barrier regions, one thread cycling REGISTER x22
 *               and UNREGISTER, one cycling START, REGISTER, STOP;
 *               REPRODUCER_SECONDS long (default 2).
 * The oracle lives in the callbacks and the sample checks: the controller
 * publishes, around each request, what may be delivered (which callback of
 * which event, whether STOP or PAUSE has returned), and every callback
 * checks it on entry and on exit.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "sampler.h"

#define TEAM 4
#define INNER_TEAM 2
#define EVENTS OMP_EVENT_THR_END_ATWT
#define MAX_TIMERS 256
#define SENTINEL 0x5a5a5a5a

/* The two callbacks a controller alternates between, as bits of `allowed`. */
enum { VARIANT_A = 1, VARIANT_B = 2 };

static int (*api)(void *);
static int failures;
static int mode_storm, mode_reproducer;
static double run_seconds;

/* What the controller says may be delivered right now. */
static _Atomic int allowed[EVENTS + 1];
static _Atomic int stopped_returned = 1; /* STOP returned and START not yet sent */
static _Atomic int paused_returned;      /* PAUSE returned and RESUME not yet sent */
/* Even while a session has run uninterrupted; odd from STOP until START returns. */
static _Atomic unsigned session_seq = 1;
static _Atomic int running = 1;

/* Findings, counted wherever they happen (signal handlers included). */
static _Atomic long delivered[EVENTS + 1];
static _Atomic long bad_event, not_registered, after_stop, after_pause, bad_reply_in_callback;
static _Atomic long fork_join_without_id;
static _Atomic long samples, signal_samples, bad_replies, inconsistent, sequence_errs;
static _Atomic long foreign_not_serial;
static _Atomic long parent_checked, parent_wrong;
static _Atomic long cycles, sessions, control_requests, bad_control_replies, regions;
/* The first finding of each kind, for the diagnostics. */
static _Atomic int first_unregistered_event = -1, first_unregistered_variant;
static _Atomic long first_bad_sample[6];
static _Atomic int first_bad_sample_taken;
static _Atomic long first_bad_control[4];
static _Atomic int first_bad_control_taken;
static _Atomic long first_parent[3];
static _Atomic int first_parent_taken;

/* One TAP line (unnumbered; the script numbers them). */
static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* Monotonic time in seconds. */
static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A positive number of seconds from the environment, or `fallback`. */
static double env_seconds(const char *name, double fallback)
{
    const char *text = getenv(name);
    char *end;
    double value = text != NULL ? strtod(text, &end) : fallback;
    if (text != NULL && (end == text || *end != '\0' || value <= 0))
        value = fallback;
    return value;
}

/* A small per-thread generator: the controller's choices need only be varied. */
static unsigned next_random(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Sleeps rather than spins: the OpenMP threads need the cores more. */
static void pause_us(long microseconds)
{
    struct timespec wait = {0, microseconds * 1000};
    nanosleep(&wait, NULL);
}

/* ---- the oracle inside the callbacks ---- */

/* Whether a delivery of `event` to callback `variant` is allowed at this instant. */
static void check_delivery(int event, int variant)
{
    if (event < OMP_EVENT_FORK || event > EVENTS) {
        atomic_fetch_add(&bad_event, 1);
        return;
    }
    if (!(atomic_load(&allowed[event]) & variant)) {
        if (atomic_fetch_add(&not_registered, 1) == 0) {
            atomic_store(&first_unregistered_event, event);
            atomic_store(&first_unregistered_variant, variant);
        }
    }
    if (atomic_load(&stopped_returned))
        atomic_fetch_add(&after_stop, 1);
    if (atomic_load(&paused_returned))
        atomic_fetch_add(&after_pause, 1);
}

/* A callback as TAU writes one: it asks CURRENT_PRID first (24-byte entry). */
static void on_event(int event, int variant)
{
    check_delivery(event, variant);
    int32_t request[7] = {24, OMP_REQ_CURRENT_PRID, -1, -1, SENTINEL, SENTINEL, 0};
    int status = api(request);
    uint64_t region;
    memcpy(&region, &request[4], sizeof region);
    if (status != 0 || !((request[2] == OMP_ERRCODE_OK && request[3] == 8)
                         || (request[2] == OMP_ERRCODE_SEQUENCE_ERR && request[3] == 0
                             && request[4] == SENTINEL && request[5] == SENTINEL)))
        atomic_fetch_add(&bad_reply_in_callback, 1);
    /* FORK and JOIN name the region being forked or joined. */
    if ((event == OMP_EVENT_FORK || event == OMP_EVENT_JOIN) && request[2] == OMP_ERRCODE_OK
        && region == 0)
        atomic_fetch_add(&fork_join_without_id, 1);
    if (event >= OMP_EVENT_FORK && event <= EVENTS)
        atomic_fetch_add(&delivered[event], 1);
    check_delivery(event, variant);
}

/*
 * OMPCOLLECTOR_EVENT_TASK, registered by the controller beside the legacy
 * events: no phase unregistered or after PAUSE or STOP returned, and on
 * each thread no END without its BEGIN nor RESUME without its SUSPEND (a
 * pair cut by PAUSE or STOP stays open: only a close too many is wrong).
 */
static void note_bad_control(int request, int event, const int32_t *entry);
static _Atomic int phases_allowed;
static _Atomic long phases, phases_unregistered, phases_after_stop, phases_after_pause, phases_unbalanced;
static __thread long phase_runs, phase_suspends;

/* A payload event's phase delivered: counted when no session or registration allowed it. */
static void phase_allowed_now(void)
{
    if (!atomic_load(&phases_allowed))
        atomic_fetch_add(&phases_unregistered, 1);
    if (atomic_load(&stopped_returned))
        atomic_fetch_add(&phases_after_stop, 1);
    if (atomic_load(&paused_returned))
        atomic_fetch_add(&phases_after_pause, 1);
}

/* One step of a pair on this thread: `opens` deepens it; `closes` at depth 0 is counted in *unbalanced. */
static void pair_step(long *depth, int opens, int closes, _Atomic long *unbalanced)
{
    if (opens)
        ++*depth;
    else if (closes && *depth == 0)
        atomic_fetch_add(unbalanced, 1);
    else if (closes)
        --*depth;
}

static void on_task_phase(int phase, const ompcollector_task_event_t *task)
{
    phase_allowed_now();
    long *depth = phase == OMPCOLLECTOR_TASK_BEGIN || phase == OMPCOLLECTOR_TASK_END ? &phase_runs : &phase_suspends;
    pair_step(depth, phase == OMPCOLLECTOR_TASK_BEGIN || phase == OMPCOLLECTOR_TASK_SUSPEND,
              phase == OMPCOLLECTOR_TASK_END || phase == OMPCOLLECTOR_TASK_RESUME, &phases_unbalanced);
    if (task == NULL || phase < OMPCOLLECTOR_TASK_CREATE || phase > OMPCOLLECTOR_TASK_RESUME)
        atomic_fetch_add(&phases_unbalanced, 1);
    atomic_fetch_add(&phases, 1);
}

/*
 * OMPCOLLECTOR_EVENT_TASK_LOG, registered beside OMPCOLLECTOR_EVENT_TASK:
 * the same oracle, its pairs (runs, task waits) balanced on their own,
 * and never a SUSPEND or RESUME.
 */
static _Atomic long log_phases, log_unbalanced;
static __thread long log_runs, log_waits;

static void on_task_log_phase(int phase, const ompcollector_task_event_t *task)
{
    phase_allowed_now();
    long *depth = phase == OMPCOLLECTOR_TASK_BEGIN || phase == OMPCOLLECTOR_TASK_END ? &log_runs : &log_waits;
    pair_step(depth, phase == OMPCOLLECTOR_TASK_BEGIN || phase == OMPCOLLECTOR_TASK_WAIT_BEGIN,
              phase == OMPCOLLECTOR_TASK_END || phase == OMPCOLLECTOR_TASK_WAIT_END, &log_unbalanced);
    if (task == NULL || phase == OMPCOLLECTOR_TASK_SUSPEND || phase == OMPCOLLECTOR_TASK_RESUME
        || phase < OMPCOLLECTOR_TASK_CREATE || phase > OMPCOLLECTOR_TASK_WAIT_END)
        atomic_fetch_add(&log_unbalanced, 1);
    atomic_fetch_add(&log_phases, 1);
}

/* REGISTER or UNREGISTER of one payload event, the oracle published as for the legacy events. */
static void control_payload_event(int request, int event, ompcollector_task_callback_t handler)
{
    int32_t entry[9] = {28, request, -1, -1, event, 0, 0, 0, 0};
    if (request == OMP_REQ_REGISTER) {
        omp_collector_callback_t callback = (omp_collector_callback_t)(void (*)(void))handler;
        memcpy(&entry[5], &callback, sizeof callback);
        atomic_store(&phases_allowed, 1);
    } else {
        entry[0] = 20;
        entry[5] = 0;
    }
    atomic_fetch_add(&control_requests, 1);
    int status = api(entry);
    if (status != 0 || !(entry[2] == OMP_ERRCODE_OK || entry[2] == OMP_ERRCODE_UNSUPPORTED))
        note_bad_control(request, event, entry);
}

/* REGISTER or UNREGISTER of OMPCOLLECTOR_EVENT_TASK and _TASK_LOG; phases are allowed from before the first REGISTER to after both UNREGISTERs. */
static void control_phases(int request)
{
    control_payload_event(request, OMPCOLLECTOR_EVENT_TASK, on_task_phase);
    control_payload_event(request, OMPCOLLECTOR_EVENT_TASK_LOG, on_task_log_phase);
    if (request != OMP_REQ_REGISTER)
        atomic_store(&phases_allowed, 0);
}

/* The controller's first callback. */
static void callback_a(OMP_COLLECTORAPI_EVENT event)
{
    on_event((int)event, VARIANT_A);
}

/* The controller's second callback, which replaces the first and back. */
static void callback_b(OMP_COLLECTORAPI_EVENT event)
{
    on_event((int)event, VARIANT_B);
}

/* ---- samples ---- */

static void note_bad_sample(long kind, const int32_t *batch)
{
    if (atomic_exchange(&first_bad_sample_taken, 1) == 0) {
        atomic_store(&first_bad_sample[0], kind);
        atomic_store(&first_bad_sample[1], batch[2]);
        atomic_store(&first_bad_sample[2], batch[3]);
        atomic_store(&first_bad_sample[3], batch[4]);
        atomic_store(&first_bad_sample[4], batch[9]);
        uint64_t region;
        memcpy(&region, &batch[11], sizeof region);
        atomic_store(&first_bad_sample[5], (long)region);
    }
}

/*
 * One batched STATE + CURRENT_PRID, as a profiler's SIGPROF handler sends
 * it, checked: replies well formed (or SEQUENCE_ERR with mem untouched
 * between sessions), and when both are answered, WORK comes with a region
 * and SERIAL or IDLE without one.  Returns the state, 0 if unanswered.
 * Async-signal-safe.
 */
static int sample(uint64_t *region_out)
{
    int32_t batch[14] = {28, OMP_REQ_STATE, -1, -1, SENTINEL, SENTINEL, SENTINEL,
                         24, OMP_REQ_CURRENT_PRID, -1, -1, SENTINEL, SENTINEL, 0};
    int status = api(batch);
    atomic_fetch_add(&samples, 1);
    int state = batch[4];
    uint64_t region;
    memcpy(&region, &batch[11], sizeof region);
    int state_ok = batch[2] == OMP_ERRCODE_OK && batch[3] == 12 && state >= THR_OVHD_STATE
                   && state <= THR_ATWT_STATE;
    int state_unanswered = batch[2] == OMP_ERRCODE_SEQUENCE_ERR && batch[3] == 0
                           && batch[4] == SENTINEL && batch[5] == SENTINEL
                           && batch[6] == SENTINEL;
    int prid_ok = batch[9] == OMP_ERRCODE_OK && batch[10] == 8;
    int prid_unanswered = batch[9] == OMP_ERRCODE_SEQUENCE_ERR && batch[10] == 0
                          && batch[11] == SENTINEL && batch[12] == SENTINEL;
    if (status != 0 || !(state_ok || state_unanswered) || !(prid_ok || prid_unanswered)
        || batch[0] != 28 || batch[7] != 24 || batch[13] != 0) {
        atomic_fetch_add(&bad_replies, 1);
        note_bad_sample(1, batch);
        return 0;
    }
    if (!state_ok || !prid_ok) {
        atomic_fetch_add(&sequence_errs, 1);
        return 0;
    }
    if ((state == THR_WORK_STATE && region == 0)
        || ((state == THR_SERIAL_STATE || state == THR_IDLE_STATE) && region != 0)) {
        atomic_fetch_add(&inconsistent, 1);
        note_bad_sample(2, batch);
    }
    if (region_out != NULL)
        *region_out = region;
    return state;
}

/* ---- the signal storm ---- */

static timer_t timers[MAX_TIMERS];
static _Atomic int timer_count, timer_failures;
static _Atomic int storm_over;
static __thread int timer_armed;

/* The storm's SIGPROF handler: one batched sample. */
static void on_storm_signal(int signo)
{
    (void)signo;
    if (atomic_load(&storm_over))
        return;
    int saved_errno = errno;
    sample(NULL);
    atomic_fetch_add(&signal_samples, 1);
    errno = saved_errno;
}

/* A 100 us timer signalling the calling thread: 10 kHz on every OpenMP thread. */
static void arm_storm_timer(void)
{
    if (!mode_storm || timer_armed)
        return;
    timer_armed = 1;
    int slot = atomic_fetch_add(&timer_count, 1);
    if (slot >= MAX_TIMERS)
        return;
    if (sampler_thread_timer(100000, &timers[slot]) != 0)
        atomic_fetch_add(&timer_failures, 1);
}

/* Stops every timer before the report, and ignores signals still pending. */
static void disarm_storm(void)
{
    atomic_store(&storm_over, 1);
    int count = atomic_load(&timer_count);
    for (int i = 0; i < count && i < MAX_TIMERS; i++)
        timer_delete(timers[i]);
    signal(SIGPROF, SIG_IGN);
}

/* ---- the OpenMP workload ---- */

static omp_lock_t lock;
static omp_nest_lock_t nest_lock;
static _Atomic long shared_counter;
static long atomic_target;

/* A sample from user code inside a region must find the thread working there. */
static void sample_in_region(void)
{
    arm_storm_timer();
    sample(NULL);
}

/*
 * The master of an inner team asks PARENT_PRID; when the session ran
 * throughout, it must name the region its outer thread was in.
 */
static void check_parent(uint64_t outer_region, unsigned seq_before)
{
    if (outer_region == 0)
        return;
    uint64_t parent = 0;
    int ec = collector_prid(OMP_REQ_PARENT_PRID, &parent);
    if (atomic_load(&session_seq) != seq_before)
        return;
    atomic_fetch_add(&parent_checked, 1);
    if (ec != OMP_ERRCODE_OK || parent != outer_region) {
        atomic_fetch_add(&parent_wrong, 1);
        if (atomic_exchange(&first_parent_taken, 1) == 0) {
            atomic_store(&first_parent[0], ec);
            atomic_store(&first_parent[1], (long)parent);
            atomic_store(&first_parent[2], (long)outer_region);
        }
    }
}

/*
 * What the outer thread saw before forking an inner team, for the inner
 * team's master, which is the same thread.  Thread-local rather than
 * shared with the team: TSan cannot see libomp's fork synchronisation, and
 * gcc hands a region every variable it names through one shared block.
 */
static __thread unsigned nested_seq_before;
static __thread uint64_t nested_outer_region;

/* A nested team: barrier, a sample, PARENT_PRID on its master. */
static void nested_team(void)
{
    nested_seq_before = atomic_load(&session_seq);
    nested_outer_region = 0;
    int outer_state = sample(&nested_outer_region);
    if ((nested_seq_before & 1u) || outer_state != THR_WORK_STATE)
        nested_outer_region = 0;
#pragma omp parallel num_threads(INNER_TEAM)
    {
        sample_in_region();
#pragma omp barrier
        if (omp_get_thread_num() == 0)
            check_parent(nested_outer_region, nested_seq_before);
        sample_in_region();
    }
}

/*
 * The round number, atomic: TSan cannot see libomp's own fork and join
 * synchronisation, so a plain variable the master writes between regions
 * and the team reads inside them would read as a race in TSan runs.
 */
static _Atomic long current_round;

/* One region using every construct the events cover. */
static void stress_region(void)
{
#pragma omp parallel num_threads(TEAM)
    {
        int me = omp_get_thread_num();
        sample_in_region();
#pragma omp critical(stress)
        {
            atomic_fetch_add(&shared_counter, 1);
            sample_in_region();
        }
#pragma omp barrier
        omp_set_lock(&lock);
        sample_in_region();
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest_lock);
        omp_set_nest_lock(&nest_lock);
        sample_in_region();
        omp_unset_nest_lock(&nest_lock);
        omp_unset_nest_lock(&nest_lock);
        if (omp_test_lock(&lock))
            omp_unset_lock(&lock);
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 2 * TEAM; i++) {
#pragma omp ordered
            sample_in_region();
        }
#pragma omp single
        {
            for (int t = 0; t < 2 * TEAM; t++) {
#pragma omp task
                {
                    sample_in_region();
                    atomic_fetch_add(&shared_counter, 1);
                }
            }
#pragma omp taskwait
        }
#pragma omp master
        sample_in_region();
#pragma omp atomic
        atomic_target += me;
        if (atomic_load(&current_round) % 4 == (long)me)
            nested_team();
#pragma omp barrier
        sample_in_region();
    }
}

/* The reproducer's region: a critical section and a barrier on 2 threads. */
static void reproducer_region(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp critical
        atomic_fetch_add(&shared_counter, 1);
#pragma omp barrier
    }
}

/* ---- control ---- */

static void note_bad_control(int request, int event, const int32_t *entry)
{
    atomic_fetch_add(&bad_control_replies, 1);
    if (atomic_exchange(&first_bad_control_taken, 1) == 0) {
        atomic_store(&first_bad_control[0], request);
        atomic_store(&first_bad_control[1], event);
        atomic_store(&first_bad_control[2], entry[2]);
        atomic_store(&first_bad_control[3], entry[3]);
    }
}

/* A request with no mem; its ec must be `expected` and rsz 0. */
static void control_simple(int request, int expected)
{
    int32_t entry[5] = {16, request, -1, -1, 0};
    atomic_fetch_add(&control_requests, 1);
    if (api(entry) != 0 || entry[2] != expected || entry[3] != 0 || entry[4] != 0)
        note_bad_control(request, 0, entry);
}

/*
 * REGISTERs `events` (a bit per event) to one callback in one batch, odd
 * events in the packed 28-byte layout and even ones in the 32-byte one, as
 * the controller publishes: the new callback is allowed before the request,
 * and the old one no longer once it returns.
 */
static void control_register(unsigned long events, int variant)
{
    int32_t batch[EVENTS * 8 + 1];
    int offsets[EVENTS + 1] = {0};
    omp_collector_callback_t callback = variant == VARIANT_A ? callback_a : callback_b;
    int words = 0;
    for (int event = 1; event <= EVENTS; event++) {
        if (!(events & (1ul << event)))
            continue;
        int32_t *entry = &batch[words];
        offsets[event] = words;
        int size = event % 2 ? 28 : 32;
        memset(entry, 0, (size_t)size);
        entry[0] = size;
        entry[1] = OMP_REQ_REGISTER;
        entry[2] = entry[3] = -1;
        entry[4] = event;
        memcpy(&entry[size == 28 ? 5 : 6], &callback, sizeof callback);
        words += size / 4;
        atomic_fetch_or(&allowed[event], variant);
    }
    batch[words] = 0;
    atomic_fetch_add(&control_requests, 1);
    int status = api(batch);
    for (int event = 1; event <= EVENTS; event++) {
        if (!(events & (1ul << event)))
            continue;
        int32_t *entry = &batch[offsets[event]];
        if (status != 0
            || !(entry[2] == OMP_ERRCODE_OK || entry[2] == OMP_ERRCODE_UNSUPPORTED)
            || entry[3] != 0)
            note_bad_control(OMP_REQ_REGISTER, event, entry);
        if (entry[2] == OMP_ERRCODE_OK)
            atomic_store(&allowed[event], variant);
        else
            atomic_fetch_and(&allowed[event], ~variant);
    }
}

/* UNREGISTERs `events` in one batch; nothing is allowed for them once it returns. */
static void control_unregister(unsigned long events)
{
    int32_t batch[EVENTS * 5 + 1];
    int words = 0;
    for (int event = 1; event <= EVENTS; event++) {
        if (!(events & (1ul << event)))
            continue;
        int32_t entry[5] = {20, OMP_REQ_UNREGISTER, -1, -1, event};
        memcpy(&batch[words], entry, sizeof entry);
        words += 5;
    }
    batch[words] = 0;
    atomic_fetch_add(&control_requests, 1);
    int status = api(batch);
    for (int i = 0; i < words; i += 5) {
        if (status != 0 || batch[i + 2] != OMP_ERRCODE_OK || batch[i + 3] != 0)
            note_bad_control(OMP_REQ_UNREGISTER, batch[i + 4], &batch[i]);
        atomic_store(&allowed[batch[i + 4]], 0);
    }
}

/* STOP; nothing may be delivered once it has returned. */
static void control_stop(void)
{
    atomic_fetch_add(&session_seq, 1);
    control_simple(OMP_REQ_STOP, OMP_ERRCODE_OK);
    for (int event = 1; event <= EVENTS; event++)
        atomic_store(&allowed[event], 0);
    atomic_store(&phases_allowed, 0);
    atomic_store(&stopped_returned, 1);
}

/* START; the flags clear first, since a START may deliver at once. */
static void control_start(void)
{
    atomic_store(&stopped_returned, 0);
    atomic_store(&paused_returned, 0);
    control_simple(OMP_REQ_START, OMP_ERRCODE_OK);
    atomic_fetch_add(&session_seq, 1);
}

/* PAUSE; nothing may be delivered once it has returned. */
static void control_pause(void)
{
    control_simple(OMP_REQ_PAUSE, OMP_ERRCODE_OK);
    atomic_store(&paused_returned, 1);
}

/* RESUME; allowed again before the request is sent. */
static void control_resume(void)
{
    atomic_store(&paused_returned, 0);
    control_simple(OMP_REQ_RESUME, OMP_ERRCODE_OK);
}

#define ALL_EVENTS (((1ul << (EVENTS + 1)) - 1) & ~1ul)

/* The controller: every control request, in varied order and timing, until the run ends. */
static void *controller(void *unused)
{
    (void)unused;
    unsigned seed = 12345u;
    int variant = VARIANT_A;
    while (atomic_load(&running)) {
        control_register(ALL_EVENTS, variant);
        control_phases(OMP_REQ_REGISTER);
        pause_us(next_random(&seed) % 500);
        /* Replace some callbacks: the old one must be left once REGISTER returns. */
        variant = variant == VARIANT_A ? VARIANT_B : VARIANT_A;
        control_register(next_random(&seed) & ALL_EVENTS, variant);
        pause_us(next_random(&seed) % 300);
        control_unregister(next_random(&seed) & ALL_EVENTS);
        if (next_random(&seed) % 2 == 0)
            control_phases(OMP_REQ_UNREGISTER);
        pause_us(next_random(&seed) % 300);
        control_pause();
        pause_us(next_random(&seed) % 200);
        control_resume();
        pause_us(next_random(&seed) % 300);
        if (next_random(&seed) % 4 == 0) {
            control_unregister(ALL_EVENTS);
            pause_us(next_random(&seed) % 200);
        }
        control_stop();
        pause_us(next_random(&seed) % 300);
        control_start();
        atomic_fetch_add(&cycles, 1);
    }
    return NULL;
}

/* A thread outside OpenMP samples itself: it is in serial code. */
static void *sampler(void *unused)
{
    (void)unused;
    while (atomic_load(&running)) {
        for (int i = 0; i < 16; i++) {
            int state = sample(NULL);
            if (state != 0 && state != THR_SERIAL_STATE)
                atomic_fetch_add(&foreign_not_serial, 1);
        }
        pause_us(20);
    }
    return NULL;
}

/* The reproducer's first thread: REGISTER of all 22 events, then UNREGISTER of them, over and over. */
static void *register_cycler(void *unused)
{
    (void)unused;
    while (atomic_load(&running)) {
        int32_t batch[EVENTS * 7 + 1], undo[EVENTS * 5 + 1];
        omp_collector_callback_t callback = callback_a;
        for (int event = 1; event <= EVENTS; event++) {
            int32_t *entry = &batch[(event - 1) * 7];
            memset(entry, 0, 28);
            entry[0] = 28;
            entry[1] = OMP_REQ_REGISTER;
            entry[4] = event;
            memcpy(&entry[5], &callback, sizeof callback);
            int32_t *unentry = &undo[(event - 1) * 5];
            unentry[0] = 20;
            unentry[1] = OMP_REQ_UNREGISTER;
            unentry[2] = unentry[3] = 0;
            unentry[4] = event;
        }
        batch[EVENTS * 7] = 0;
        undo[EVENTS * 5] = 0;
        if (api(batch) != 0 || api(undo) != 0)
            atomic_fetch_add(&bad_control_replies, 1);
        atomic_fetch_add(&control_requests, 2 * EVENTS);
        atomic_fetch_add(&cycles, 1);
    }
    return NULL;
}

/* The reproducer's second thread: START, REGISTER FORK, STOP, over and over. */
static void *restart_cycler(void *unused)
{
    (void)unused;
    while (atomic_load(&running)) {
        int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
        int32_t reg[8] = {28, OMP_REQ_REGISTER, 0, 0, OMP_EVENT_FORK, 0, 0, 0};
        int32_t stop[5] = {16, OMP_REQ_STOP, 0, 0, 0};
        omp_collector_callback_t callback = callback_a;
        memcpy(&reg[5], &callback, sizeof callback);
        if (api(start) != 0 || api(reg) != 0 || api(stop) != 0)
            atomic_fetch_add(&bad_control_replies, 1);
        if (start[2] != OMP_ERRCODE_OK || stop[2] != OMP_ERRCODE_OK)
            atomic_fetch_add(&bad_control_replies, 1);
        atomic_fetch_add(&control_requests, 3);
        atomic_fetch_add(&sessions, 1);
    }
    return NULL;
}

/* ---- the watchdog ---- */

static _Atomic long heartbeat;

/*
 * Fails the run when nothing moves: neither regions nor control requests
 * nor samples for WATCHDOG_SECONDS (default 60), or the run outlasts its
 * length by that much.
 */
static void *watchdog(void *unused)
{
    (void)unused;
    double limit = env_seconds("WATCHDOG_SECONDS", 60);
    double started = now_seconds(), last_move = started;
    long last = -1;
    for (;;) {
        usleep(100000);
        long now_count = atomic_load(&regions) + atomic_load(&control_requests)
                         + atomic_load(&samples) + atomic_load(&heartbeat);
        double t = now_seconds();
        if (now_count != last) {
            last = now_count;
            last_move = t;
        }
        if (t - last_move > limit || t - started > run_seconds + limit) {
            printf("not ok - no thread hangs (after %.0f s: %ld regions, %ld control requests, "
                   "%ld samples, %ld signal samples; nothing moved for %.0f s)\n",
                   t - started, atomic_load(&regions), atomic_load(&control_requests),
                   atomic_load(&samples), atomic_load(&signal_samples), t - last_move);
            fflush(stdout);
            _exit(3);
        }
    }
    return NULL;
}

/* ---- main ---- */

static void report_counts(void)
{
    long total = 0;
    char line[1024];
    int used = 0;
    for (int event = 1; event <= EVENTS; event++) {
        long count = atomic_load(&delivered[event]);
        total += count;
        used += snprintf(line + used, sizeof line - (size_t)used, " %d:%ld", event, count);
    }
    if (mode_reproducer)
        printf("# %ld REGISTER x22 + UNREGISTER x22 cycles, %ld START/REGISTER/STOP sessions, "
               "%ld regions, %ld events delivered\n",
               atomic_load(&cycles), atomic_load(&sessions), atomic_load(&regions), total);
    else
        printf("# %ld control cycles, %ld control requests, %ld regions, %ld events delivered\n",
               atomic_load(&cycles), atomic_load(&control_requests), atomic_load(&regions), total);
    printf("# events by number:%s\n", line);
    if (!mode_reproducer)
        printf("# %ld samples (%ld from signals, %ld between sessions), %ld PARENT_PRID checks\n",
               atomic_load(&samples), atomic_load(&signal_samples), atomic_load(&sequence_errs),
               atomic_load(&parent_checked));
}

/* One TAP line per property the stress run checks. */
static void report_findings(void)
{
    long total = 0;
    for (int event = 1; event <= EVENTS; event++)
        total += atomic_load(&delivered[event]);
    check(atomic_load(&bad_control_replies) == 0, "every control request is answered as the header says");
    if (atomic_load(&first_bad_control_taken))
        printf("# first bad control reply: request %ld event %ld: ec %ld rsz %ld\n",
               atomic_load(&first_bad_control[0]), atomic_load(&first_bad_control[1]),
               atomic_load(&first_bad_control[2]), atomic_load(&first_bad_control[3]));
    check(total > 0, "events are delivered while the controller cycles");
    check(atomic_load(&bad_event) == 0, "callbacks receive only event numbers 1..22");
    check(atomic_load(&not_registered) == 0,
          "no callback runs for an event not registered to it at that moment");
    if (atomic_load(&not_registered) != 0)
        printf("# %ld such deliveries; the first: event %d to callback %c\n",
               atomic_load(&not_registered), atomic_load(&first_unregistered_event),
               atomic_load(&first_unregistered_variant) == VARIANT_A ? 'A' : 'B');
    check(atomic_load(&after_stop) == 0, "no callback runs after STOP returned");
    if (atomic_load(&after_stop) != 0)
        printf("# %ld callback checks after STOP\n", atomic_load(&after_stop));
    check(atomic_load(&after_pause) == 0, "no callback runs after PAUSE returned");
    if (atomic_load(&after_pause) != 0)
        printf("# %ld callback checks after PAUSE\n", atomic_load(&after_pause));
    if (!mode_reproducer) {
        check(atomic_load(&phases) > 0, "OMPCOLLECTOR_EVENT_TASK phases are delivered while the controller cycles");
        check(atomic_load(&phases_unregistered) == 0 && atomic_load(&phases_after_stop) == 0
                  && atomic_load(&phases_after_pause) == 0,
              "no OMPCOLLECTOR_EVENT_TASK phase unregistered or after PAUSE or STOP returned");
        check(atomic_load(&phases_unbalanced) == 0,
              "OMPCOLLECTOR_EVENT_TASK balanced: no END or RESUME without its BEGIN or SUSPEND on the thread");
        check(atomic_load(&log_phases) > 0 && atomic_load(&log_unbalanced) == 0,
              "OMPCOLLECTOR_EVENT_TASK_LOG delivered and balanced apart: no END or WAIT_END without its BEGIN, no SUSPEND");
        printf("# %ld phases; %ld unregistered, %ld after STOP, %ld after PAUSE, %ld unbalanced\n",
               atomic_load(&phases), atomic_load(&phases_unregistered), atomic_load(&phases_after_stop),
               atomic_load(&phases_after_pause), atomic_load(&phases_unbalanced));
    }
    check(atomic_load(&bad_reply_in_callback) == 0, "CURRENT_PRID inside callbacks is well formed");
    check(atomic_load(&fork_join_without_id) == 0, "CURRENT_PRID at FORK and JOIN names a region");
    if (atomic_load(&fork_join_without_id) != 0)
        printf("# %ld FORK or JOIN deliveries read region 0\n", atomic_load(&fork_join_without_id));
    check(atomic_load(&bad_replies) == 0, "every sample's replies are well formed");
    check(atomic_load(&inconsistent) == 0,
          "no sample says WORK without a region id, or SERIAL or IDLE with one");
    if (atomic_load(&first_bad_sample_taken))
        printf("# %ld malformed, %ld inconsistent; the first: %s, STATE ec %ld rsz %ld state %ld, "
               "CURRENT_PRID ec %ld region %ld\n",
               atomic_load(&bad_replies), atomic_load(&inconsistent),
               atomic_load(&first_bad_sample[0]) == 1 ? "malformed" : "inconsistent",
               atomic_load(&first_bad_sample[1]), atomic_load(&first_bad_sample[2]),
               atomic_load(&first_bad_sample[3]), atomic_load(&first_bad_sample[4]),
               atomic_load(&first_bad_sample[5]));
    check(atomic_load(&foreign_not_serial) == 0, "a thread outside OpenMP reads SERIAL");
    check(atomic_load(&parent_wrong) == 0,
          "PARENT_PRID on an inner team's master names the enclosing region");
    if (atomic_load(&first_parent_taken))
        printf("# %ld of %ld wrong; the first: ec %ld, parent %ld, expected %ld\n",
               atomic_load(&parent_wrong), atomic_load(&parent_checked),
               atomic_load(&first_parent[0]), atomic_load(&first_parent[1]),
               atomic_load(&first_parent[2]));
}

/* Runs the mode's threads for its time, then reports. */
/* Longest a run goes past its time to see enough events and samples. */
#define OVERTIME_SECONDS 30.0
/* Events a run must have delivered before it ends. */
#define MIN_EVENTS 100

/* Whether the run has delivered enough events, and the storm taken enough samples, to have tested anything. */
static int exercised(void)
{
    long total = 0;
    for (int event = 1; event <= EVENTS; event++)
        total += atomic_load(&delivered[event]);
    if (total < MIN_EVENTS)
        return 0;
    return !mode_storm || atomic_load(&signal_samples) >= (long)(run_seconds * 1000);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "stress";
    mode_storm = strcmp(mode, "storm") == 0;
    mode_reproducer = strcmp(mode, "reproducer") == 0;
    if (!mode_storm && !mode_reproducer && strcmp(mode, "stress") != 0) {
        fprintf(stderr, "usage: %s [stress|storm|reproducer]\n", argv[0]);
        return 2;
    }
    run_seconds = mode_storm        ? env_seconds("STORM_SECONDS", 2)
                  : mode_reproducer ? env_seconds("REPRODUCER_SECONDS", 2)
                                    : env_seconds("STRESS_SECONDS", 3);
    setvbuf(stdout, NULL, _IOLBF, 0);
    failures += !collector_report_runtime();
    api = collector_lookup_reported();
    if (api == NULL)
        return 1;
    printf("# %s for %.1f s\n", mode, run_seconds);
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest_lock);
    omp_set_max_active_levels(2);

    pthread_t dog;
    pthread_create(&dog, NULL, watchdog, NULL);
    /* The reproducer's restart cycler sends every START itself. */
    if (!mode_reproducer) {
        int started = collector_simple(OMP_REQ_START);
        check(started == OMP_ERRCODE_OK, "START succeeds");
        if (started != OMP_ERRCODE_OK)
            return 1;
        atomic_store(&stopped_returned, 0);
        atomic_store(&session_seq, 2);
    } else {
        atomic_store(&stopped_returned, 0);
    }

    if (mode_storm) {
        sampler_install(SIGPROF, on_storm_signal);
    }

    pthread_t helpers[3];
    int helper_count = 0;
    if (mode_reproducer) {
        pthread_create(&helpers[helper_count++], NULL, register_cycler, NULL);
        pthread_create(&helpers[helper_count++], NULL, restart_cycler, NULL);
        /* The reproducer checks crashes and replies only: its two cyclers race each other. */
        for (int event = 1; event <= EVENTS; event++)
            atomic_store(&allowed[event], VARIANT_A | VARIANT_B);
    } else {
        pthread_create(&helpers[helper_count++], NULL, controller, NULL);
        pthread_create(&helpers[helper_count++], NULL, sampler, NULL);
    }

    /*
     * Run for the time asked, and on a loaded machine a while longer until
     * the race was really exercised (events delivered, the storm's samples
     * taken): a run that saw nothing would pass without testing anything.
     */
    double deadline = now_seconds() + run_seconds, overtime = deadline + OVERTIME_SECONDS;
    for (;;) {
        double now = now_seconds();
        if (now >= overtime || (now >= deadline && exercised()))
            break;
        if (mode_reproducer)
            reproducer_region();
        else
            stress_region();
        atomic_fetch_add(&regions, 1);
        atomic_fetch_add(&current_round, 1);
    }
    atomic_store(&running, 0);
    for (int i = 0; i < helper_count; i++) {
        pthread_join(helpers[i], NULL);
        atomic_fetch_add(&heartbeat, 1);
    }
    if (mode_storm)
        disarm_storm();

    report_counts();
    if (mode_reproducer) {
        long total = 0;
        for (int event = 1; event <= EVENTS; event++)
            total += atomic_load(&delivered[event]);
        check(atomic_load(&bad_control_replies) == 0, "every control request returns 0 and START and STOP succeed");
        check(total >= MIN_EVENTS, "events are delivered while the cyclers run (at least 100)");
        check(atomic_load(&bad_reply_in_callback) == 0, "CURRENT_PRID inside callbacks is well formed");
        printf("ok - the program survives %.0f s of REGISTER/UNREGISTER and START/REGISTER/STOP cycling\n",
               run_seconds);
    } else {
        report_findings();
    }
    if (mode_storm) {
        printf("# storm: %ld samples from timer signals on %d threads\n",
               atomic_load(&signal_samples), atomic_load(&timer_count));
        check(atomic_load(&timer_count) >= TEAM && atomic_load(&timer_count) <= MAX_TIMERS
                  && atomic_load(&timer_failures) == 0,
              "every OpenMP thread got a 10 kHz timer");
        check(atomic_load(&signal_samples) >= (long)(run_seconds * 1000),
              "the storm sampled (at least 1000 samples per second)");
    }
    omp_destroy_nest_lock(&nest_lock);
    omp_destroy_lock(&lock);
    return failures != 0;
}
