/* lifecycle-serial.c - a program with no OpenMP runtime at all, the shim preloaded: START, REGISTER, STATE, STOP and the rest behave; prints TAP lines (unnumbered). */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Built without -fopenmp and linked to no runtime, so the shim never finds
 * one: START leaves a session pending, and every request must still get
 * the answer the header gives, on the main thread and on another thread.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_collector_api.h"

static int (*api)(void *);
static int failures;
static int calls;

/* One TAP line (unnumbered). */
static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* Counts calls: there must be none without a runtime. */
static void on_event(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    calls++;
}

/* One entry with no mem; its ec, or -1 when the call itself failed. */
static int simple(int request)
{
    int32_t entry[5] = {16, request, -1, -1, 0};
    return api(entry) == 0 && entry[3] == 0 ? entry[2] : -1;
}

/* REGISTER in the packed 28-byte layout; its ec, or -1 when the call failed. */
static int register_event(int event)
{
    int32_t entry[8] = {28, OMP_REQ_REGISTER, -1, -1, event, 0, 0, 0};
    omp_collector_callback_t callback = on_event;
    memcpy(&entry[5], &callback, sizeof callback);
    return api(entry) == 0 && entry[3] == 0 ? entry[2] : -1;
}

/* STATE and CURRENT_PRID in one batch: SERIAL with wait id 0, region 0, each fully answered. */
static int serial_sample(void)
{
    int32_t batch[14] = {28, OMP_REQ_STATE, -1, -1, -1, -1, -1, 24, OMP_REQ_CURRENT_PRID, -1, -1, -1, -1, 0};
    uint64_t wait_id, region;
    if (api(batch) != 0)
        return 0;
    memcpy(&wait_id, &batch[5], sizeof wait_id);
    memcpy(&region, &batch[11], sizeof region);
    return batch[2] == OMP_ERRCODE_OK && batch[3] == 12 && batch[4] == THR_SERIAL_STATE
           && wait_id == 0 && batch[9] == OMP_ERRCODE_OK && batch[10] == 8 && region == 0;
}

/* A second thread's sample. */
static void *other_thread(void *result)
{
    *(int *)result = serial_sample();
    return NULL;
}

/* Whether anything OpenMP-like is mapped in this process. */
static int runtime_mapped(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps != NULL && fgets(line, sizeof line, maps) != NULL)
        found |= strstr(line, "/libomp.so") != NULL || strstr(line, "/libgomp.so") != NULL
                 || strstr(line, "/libiomp5.so") != NULL;
    if (maps != NULL)
        fclose(maps);
    return found;
}

/* Every request once, in a process that never loads OpenMP. */
int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    api = (int (*)(void *))dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API);
    check(api != NULL, "dlsym(RTLD_DEFAULT, \"__omp_collector_api\") finds the shim");
    if (api == NULL)
        return 1;
    check(simple(OMP_REQ_STATE) == OMP_ERRCODE_SEQUENCE_ERR, "STATE before START is a sequence error");
    check(simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START without any OpenMP runtime succeeds");
    check(simple(OMP_REQ_START) == OMP_ERRCODE_SEQUENCE_ERR, "a second START is a sequence error");
    check(register_event(OMP_EVENT_FORK) == OMP_ERRCODE_OK, "REGISTER FORK succeeds");
    check(register_event(OMP_EVENT_THR_BEGIN_CTWT) == OMP_ERRCODE_OK,
          "REGISTER of a wait event succeeds (nothing says yet what the runtime cannot do)");
    check(register_event(OMP_EVENT_THR_RESERVED_IMPL) == OMP_ERRCODE_UNKNOWN,
          "REGISTER of an unknown event answers UNKNOWN");
    check(serial_sample(), "STATE and CURRENT_PRID answer SERIAL, wait id 0, region 0");
    int other = 0;
    pthread_t thread;
    check(pthread_create(&thread, NULL, other_thread, &other) == 0 && pthread_join(thread, NULL) == 0
              && other,
          "another thread reads SERIAL and region 0 too");
    int32_t parent[7] = {24, OMP_REQ_PARENT_PRID, -1, -1, 0, 0, 0};
    check(api(parent) == 0 && parent[2] == OMP_ERRCODE_THREAD_ERR && parent[3] == 0,
          "PARENT_PRID outside any team answers THREAD_ERR");
    check(simple(OMP_REQ_PAUSE) == OMP_ERRCODE_OK && simple(OMP_REQ_RESUME) == OMP_ERRCODE_OK,
          "PAUSE and RESUME succeed");
    int32_t unregister[6] = {20, OMP_REQ_UNREGISTER, -1, -1, OMP_EVENT_FORK, 0};
    check(api(unregister) == 0 && unregister[2] == OMP_ERRCODE_OK, "UNREGISTER succeeds");
    check(simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds");
    check(simple(OMP_REQ_STATE) == OMP_ERRCODE_SEQUENCE_ERR, "STATE after STOP is a sequence error");
    check(simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START after STOP succeeds");
    check(serial_sample(), "the new session answers STATE and CURRENT_PRID");
    check(simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds again");
    check(calls == 0, "no callback ran");
    check(!runtime_mapped(), "no OpenMP runtime was loaded by any of it");
    return failures != 0;
}
