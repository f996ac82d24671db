/* client.c - the benchmark's collector: START, then REGISTER of every legacy event with an empty callback, preloaded behind the shim. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BENCH_CLIENT_EVENTS=none stops after START (the shim tracks thread states
 * and delivers nothing); =all (the default) registers events 1..22, each
 * with a callback that returns at once, so what is measured is the shim's
 * own cost of delivering.  Written as a legacy client: it knows only
 * omp_collector_api.h and finds the API with dlsym.
 */
#define _GNU_SOURCE 1
#include "omp_collector_api.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLIENT_EXPORT __attribute__((visibility("default")))

typedef int (*collector_api_t)(void *);

static collector_api_t api;

/* Every event's callback: nothing, so only the delivery is measured. */
static void on_event(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
}

/* The one-entry request `request` with no mem; its ec, or -1 when the call failed. */
static int simple_request(int request)
{
    int32_t buffer[5] = {16, request, 0, 0, 0};
    if (api(buffer) != 0)
        return -1;
    return buffer[2];
}

/* Attaches before main, as a collector's constructor would; complains on stderr only. */
__attribute__((constructor)) static void client_start(void)
{
    api = (collector_api_t)dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API);
    if (api == NULL) {
        fprintf(stderr, "bench client: %s not found (is the shim preloaded?)\n", OMP_COLLECTOR_API);
        return;
    }
    int ec = simple_request(OMP_REQ_START);
    if (ec != OMP_ERRCODE_OK) {
        fprintf(stderr, "bench client: START answered %d\n", ec);
        return;
    }
    const char *events = getenv("BENCH_CLIENT_EVENTS");
    if (events != NULL && strcmp(events, "none") == 0)
        return;
    enum { ENTRY_INTS = 8, EVENTS = OMP_EVENT_THR_END_ATWT };
    int32_t buffer[ENTRY_INTS * EVENTS + 1];
    omp_collector_callback_t callback = on_event;
    for (int event = 1; event <= EVENTS; event++) {
        int32_t *entry = &buffer[(event - 1) * ENTRY_INTS];
        memset(entry, 0, ENTRY_INTS * sizeof *entry);
        entry[0] = ENTRY_INTS * 4;
        entry[1] = OMP_REQ_REGISTER;
        entry[4] = event;
        memcpy(&entry[6], &callback, sizeof callback);
    }
    buffer[EVENTS * ENTRY_INTS] = 0;
    if (api(buffer) != 0) {
        fprintf(stderr, "bench client: the REGISTER batch was refused\n");
        return;
    }
    for (int event = 1; event <= EVENTS; event++)
        if (buffer[(event - 1) * ENTRY_INTS + 2] != OMP_ERRCODE_OK)
            fprintf(stderr, "bench client: REGISTER of event %d answered %d\n", event,
                    buffer[(event - 1) * ENTRY_INTS + 2]);
}

/*
 * One sample as a sampling collector takes it: STATE and CURRENT_PRID in
 * one batched call (the layout ompcollect's agent uses).  The workload
 * finds this with dlsym and calls it in its inquiry mode.
 */
CLIENT_EXPORT int bench_inquire(void)
{
    int32_t buffer[14] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    if (api == NULL || api(buffer) != 0)
        return -1;
    return buffer[4] + buffer[11];
}
