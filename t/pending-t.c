/* pending-t.c - START before any runtime exists is accepted, and what was registered takes effect once the runtime starts the tool. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "lib/fake-ompt.h"
#include "lib/tap.h"
#include "omp_collector_api.h"

static int forks;

static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    forks += event == OMP_EVENT_FORK;
}

int main(void)
{
    tap_plan(5);
    /* This program does not export a fake omp_get_max_threads: no runtime is in sight. */
    int32_t start[5] = {16, OMP_REQ_START, -1, -1, 0};
    tap_is_int(__omp_collector_api(start), 0, "START returns 0 with no runtime loaded");
    tap_is_int(start[2], OMP_ERRCODE_OK, "START is accepted while the runtime is still to come");

    int32_t registration[8] = {28, OMP_REQ_REGISTER, -1, -1, OMP_EVENT_FORK};
    void (*callback)(OMP_COLLECTORAPI_EVENT) = on_fork;
    memcpy(&registration[5], &callback, sizeof callback);
    __omp_collector_api(registration);
    tap_is_int(registration[2], OMP_ERRCODE_OK, "REGISTER before the runtime starts the tool is accepted");

    tap_is_int(fake_ompt_attach(), 1, "the runtime later starts the tool");
    ompt_data_t parallel_data = {0};
    fake_fire_parallel_begin(&parallel_data);
    fake_fire_parallel_end(&parallel_data);
    tap_is_int(forks, 1, "the early registration delivers FORK");
    return tap_done();
}
