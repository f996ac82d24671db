/* legacy-buffers-t.c - the exact buffers existing clients send (TAU's START, 35-entry REGISTER batch, 20-byte STATE, 24-byte CURRENT_PRID) get the answers those clients rely on. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdint.h>
#include <string.h>

#include "lib/fake-ompt.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

#define TAU_EVENTS 35
#define TAU_ENTRY_WORDS 7 /* 28 bytes: header, event, packed 8-byte pointer */

static uint64_t prid_seen_in_fork;
static int events_seen[TAU_EVENTS + 1];
static int32_t task_seen_at_exec;

/* Client-style: every callback first asks CURRENT_PRID with a 24-byte entry; task events ask TASK_ID as an int. */
static void tau_style_callback(OMP_COLLECTORAPI_EVENT event)
{
    int32_t request[7] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    __omp_collector_api(request);
    if (event == OMP_EVENT_FORK)
        memcpy(&prid_seen_in_fork, &request[4], sizeof prid_seen_in_fork);
    if (event >= 1 && event <= TAU_EVENTS)
        events_seen[event]++;
    if (event == OMP_EVENT_THR_BEGIN_EXEC_TASK) {
        int32_t task[6] = {20, OMP_REQ_TASK_ID, 0, 0, 0, 0};
        __omp_collector_api(task);
        task_seen_at_exec = task[2] == OMP_ERRCODE_OK && task[3] == 4 ? task[4] : -99;
    }
}

int main(void)
{
    tap_plan(13);
    if (fake_ompt_attach() != 1)
        tap_bail("fake runtime did not attach the shim");

    int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
    tap_is_int(__omp_collector_api(start), 0, "TAU's START buffer returns 0");
    tap_is_int(start[2], OMP_ERRCODE_OK, "TAU's START is accepted");

    /* One batched call registering events 1..35, 28-byte packed entries, zero-filled. */
    int32_t batch[TAU_EVENTS * TAU_ENTRY_WORDS + 1];
    memset(batch, 0, sizeof batch);
    void (*callback)(OMP_COLLECTORAPI_EVENT) = tau_style_callback;
    for (int i = 0; i < TAU_EVENTS; i++) {
        int32_t *entry = &batch[i * TAU_ENTRY_WORDS];
        entry[0] = 28;
        entry[1] = OMP_REQ_REGISTER;
        entry[4] = i + 1;
        memcpy(&entry[5], &callback, sizeof callback);
    }
    tap_is_int(__omp_collector_api(batch), 0, "the 35-entry REGISTER batch returns 0");
    int known_ok = 1, extension_ok = 1;
    for (int i = 0; i < TAU_EVENTS; i++) {
        int32_t ec = batch[i * TAU_ENTRY_WORDS + 2];
        if (i + 1 <= OMP_EVENT_THR_END_ATWT)
            known_ok &= ec == OMP_ERRCODE_OK;
        else
            extension_ok &= ec == OMP_ERRCODE_OK;
    }
    tap_ok(known_ok, "events 1..22 register OK with pointers only 4-byte aligned");
    tap_ok(extension_ok, "OpenUH task events 23..35 register OK (the runtime grants the task callbacks)");
    tap_is_int(batch[TAU_EVENTS * TAU_ENTRY_WORDS], 0, "the terminator is left alone");

    ompt_data_t region = {0};
    fake_fire_parallel_begin(&region);
    tap_ok(prid_seen_in_fork != 0 && prid_seen_in_fork == region.value,
           "CURRENT_PRID inside FORK answers the new region's id");

    int32_t state[6] = {20, OMP_REQ_STATE, 0, 0, 0, 0};
    tap_is_int(__omp_collector_api(state), 0, "TAU's 20-byte STATE returns 0");
    tap_ok(state[2] == OMP_ERRCODE_OK && state[3] == 4,
           "STATE with a 4-byte mem in a state without wait id: OK, rsz 4 (as OpenUH answered)");
    tap_is_int(state[4], THR_SERIAL_STATE, "the state word is written anyway");

    int32_t prid[7] = {24, OMP_REQ_CURRENT_PRID, 0, 0, 0, 0, 0};
    __omp_collector_api(prid);
    tap_ok(prid[2] == OMP_ERRCODE_OK && prid[3] == 8, "TAU's 24-byte CURRENT_PRID: OK, rsz 8");

    /* One deferred task in the region: TAU's task timers get every event they start and stop on. */
    fake_fire_implicit_task(OC_SCOPE_BEGIN, &region, 0);
    ompt_data_t task;
    fake_task_create(&task, ompt_task_explicit);
    fake_task_begin(&task, OC_TASK_SWITCH);
    fake_task_end(OC_TASK_COMPLETE);
    tap_ok(events_seen[OMP_EVENT_THR_BEGIN_CREATE_TASK] == 1
               && events_seen[OMP_EVENT_THR_END_CREATE_TASK_DEL] == 1
               && events_seen[OMP_EVENT_THR_BEGIN_SCHD_TASK] == 1
               && events_seen[OMP_EVENT_THR_END_SCHD_TASK] == 1
               && events_seen[OMP_EVENT_THR_BEGIN_SUSPEND_TASK] == 1
               && events_seen[OMP_EVENT_THR_END_SUSPEND_TASK] == 1
               && events_seen[OMP_EVENT_THR_FETCHED_TASK] == 1
               && events_seen[OMP_EVENT_THR_BEGIN_EXEC_TASK] == 1
               && events_seen[OMP_EVENT_THR_BEGIN_FINISH_TASK] == 1
               && events_seen[OMP_EVENT_THR_END_FINISH_TASK] == 1,
           "a deferred task delivers CREATE, SCHD, SUSPEND, FETCHED, EXEC and FINISH once each");
    tap_ok(task_seen_at_exec > 0, "TASK_ID with OpenUH's 4-byte int inside EXEC: OK, rsz 4, the task's id");
    return tap_done();
}
