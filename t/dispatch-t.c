/* dispatch-t.c - stress: control requests race with events on many threads; no stale or NULL callback may ever run. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/fake-ompt.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

#define FIRING_THREADS 8
/* How long the requests race the events: DISPATCH_SECONDS, 1.5 in make check (millions of races), longer in make check-stress. */
static double stress_seconds(void)
{
    const char *text = getenv("DISPATCH_SECONDS");
    double seconds = text != NULL ? atof(text) : 0;
    return seconds > 0 ? seconds : 1.5;
}
/* Threads that get a delivery slot of their own; the others take the shared counters. */
#define SLOTTED_THREADS 4

/* The shim's own (hidden) hook, so both ways of marking a delivery race here. */
void oc_limit_delivery_slots(unsigned limit);

/* Which callbacks may run right now; cleared only after the request that retires them returned. */
static _Atomic int callback_a_valid, callback_b_valid, delivery_allowed;
static _Atomic long violations, deliveries, samples, bad_samples;
static _Atomic int stop_firing;
static pthread_t firing_threads[FIRING_THREADS];

/*
 * A callback may begin only while valid, and must have returned before the
 * request that retires it returns (the requests wait for deliveries in
 * flight).  It stays a while and looks again on its way out: a request that
 * did not wait for it shows here far more often than in the few
 * instructions between reading a callback and calling it.
 */
static void check_delivery(_Atomic int *valid)
{
    atomic_fetch_add(&deliveries, 1);
    if (!atomic_load(valid) || !atomic_load(&delivery_allowed))
        atomic_fetch_add(&violations, 1);
    for (int look = 0; look < 32; look++) {
        if (!atomic_load(valid) || !atomic_load(&delivery_allowed)) {
            atomic_fetch_add(&violations, 1);
            break;
        }
    }
}

static void callback_a(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    check_delivery(&callback_a_valid);
}

static void callback_b(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    check_delivery(&callback_b_valid);
}

static int send(int32_t *entry)
{
    __omp_collector_api(entry);
    return entry[2];
}

static int simple(int request)
{
    int32_t entry[5] = {16, request, 0, 0, 0};
    return send(entry);
}

static int register_all(void (*callback)(OMP_COLLECTORAPI_EVENT))
{
    int ok = 1;
    static const int events[] = {OMP_EVENT_FORK, OMP_EVENT_JOIN, OMP_EVENT_THR_BEGIN_IBAR,
                                 OMP_EVENT_THR_END_IBAR, OMP_EVENT_THR_BEGIN_LKWT,
                                 OMP_EVENT_THR_END_LKWT};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, events[i]};
        memcpy(&entry[5], &callback, sizeof callback);
        ok &= send(entry) == OMP_ERRCODE_OK;
    }
    return ok;
}

static int unregister_all(void)
{
    int ok = 1;
    for (int event = OMP_EVENT_FORK; event <= OMP_EVENT_THR_END_ATWT; event++) {
        int32_t entry[6] = {20, OMP_REQ_UNREGISTER, 0, 0, event};
        ok &= send(entry) == OMP_ERRCODE_OK;
    }
    return ok;
}

/* A sampler's signal handler: STATE and CURRENT_PRID batched, as collectors send them. */
static void on_sample_signal(int signo)
{
    (void)signo;
    int32_t batch[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    __omp_collector_api(batch);
    atomic_fetch_add(&samples, 1);
    if (batch[2] == OMP_ERRCODE_OK && (batch[4] < THR_OVHD_STATE || batch[4] > THR_ATWT_STATE))
        atomic_fetch_add(&bad_samples, 1);
}

/* Fires regions, barriers and lock waits as fast as it can. */
static void *fire_events(void *unused)
{
    (void)unused;
    /* A runtime's thread: it begins and ends as one, so the shim can drop what it keeps per thread. */
    fake_fire_thread_begin(ompt_thread_worker);
    fake_ompt_set_state(0x001, 0);
    while (!atomic_load(&stop_firing)) {
        ompt_data_t region = {0};
        fake_fire_parallel_begin(&region);
        fake_fire_implicit_task(1, &region, 0);
        fake_fire_sync_region_wait(9, 1);
        fake_fire_sync_region_wait(9, 2);
        fake_fire_mutex_acquire(1, 7);
        fake_fire_mutex_acquired(1, 7);
        fake_fire_implicit_task(2, NULL, 0);
        fake_fire_parallel_end(&region);
    }
    fake_fire_thread_end();
    return NULL;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

int main(void)
{
    tap_plan(7);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sample_signal;
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &action, NULL);

    oc_limit_delivery_slots(SLOTTED_THREADS);
    if (fake_ompt_attach() != 1 || simple(OMP_REQ_START) != OMP_ERRCODE_OK)
        tap_bail("could not start a session on the fake runtime");
    atomic_store(&delivery_allowed, 1);
    for (int i = 0; i < FIRING_THREADS; i++)
        pthread_create(&firing_threads[i], NULL, fire_events, NULL);

    int requests_ok = 1;
    long cycles = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double seconds = stress_seconds();
    while (seconds_since(&start) < seconds) {
        /* A registered, then replaced by B: A is stale from the moment REGISTER B returns. */
        atomic_store(&callback_a_valid, 1);
        requests_ok &= register_all(callback_a);
        atomic_store(&callback_b_valid, 1);
        requests_ok &= register_all(callback_b);
        atomic_store(&callback_a_valid, 0);
        for (int i = 0; i < FIRING_THREADS; i++)
            pthread_kill(firing_threads[i], SIGUSR1);
        /* PAUSE: nothing may be delivered once it returned, until RESUME is sent. */
        requests_ok &= simple(OMP_REQ_PAUSE) == OMP_ERRCODE_OK;
        atomic_store(&delivery_allowed, 0);
        atomic_store(&delivery_allowed, 1);
        requests_ok &= simple(OMP_REQ_RESUME) == OMP_ERRCODE_OK;
        /* UNREGISTER: B is stale once it returned. */
        requests_ok &= unregister_all();
        atomic_store(&callback_b_valid, 0);
        /* STOP with callbacks registered, then a new session. */
        atomic_store(&callback_a_valid, 1);
        requests_ok &= register_all(callback_a);
        requests_ok &= simple(OMP_REQ_STOP) == OMP_ERRCODE_OK;
        atomic_store(&callback_a_valid, 0);
        requests_ok &= simple(OMP_REQ_START) == OMP_ERRCODE_OK;
        cycles++;
    }
    atomic_store(&stop_firing, 1);
    for (int i = 0; i < FIRING_THREADS; i++)
        pthread_join(firing_threads[i], NULL);

    tap_diag("%ld control cycles, %ld deliveries, %ld samples", cycles, atomic_load(&deliveries),
             atomic_load(&samples));
    tap_ok(requests_ok, "every control request was answered OK");
    tap_ok(atomic_load(&deliveries) > 0, "events were delivered while registered");
    tap_is_int(atomic_load(&violations), 0, "no stale callback began or still ran once its request returned, none while paused");
    tap_ok(atomic_load(&samples) > 0, "signal-handler samples were taken during the stress");
    tap_is_int(atomic_load(&bad_samples), 0, "every sampled state was one of the 11");
    tap_is_int(fake_ompt_null_dispatches(), 0,
               "the runtime never found a callback enabled with a NULL pointer");
    tap_is_int(fake_ompt_unsafe_sets(), 0,
               "no OMPT callback was unset or replaced while the runtime lived");
    return tap_done();
}
