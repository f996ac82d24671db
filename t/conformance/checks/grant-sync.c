/* grant-sync.c - the synchronisation callbacks the shim follows are granted. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "sync_region, sync_region_wait, mutex_acquire/acquired/released, nest_lock, lock_init/destroy are granted (at least ompt_set_sometimes)"
#include "check.h"

static void handler(void) {}
static const ompt_callbacks_t wanted[] = {
    ompt_callback_sync_region, ompt_callback_sync_region_wait, ompt_callback_mutex_acquire,
    ompt_callback_mutex_acquired, ompt_callback_mutex_released, ompt_callback_nest_lock,
    ompt_callback_lock_init, ompt_callback_lock_destroy,
};
static int answers[sizeof wanted / sizeof wanted[0]];

static void check_setup(void)
{
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        answers[i] = (int)ck_set_callback(wanted[i], (ompt_callback_t)handler);
        ck_set_callback(wanted[i], NULL);
    }
}

int main(void)
{
    (void)omp_get_max_threads();
    if (!atomic_load(&ck_started))
        ck_skip("the runtime did not start the tool (OMPT disabled?)");
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (answers[i] < ompt_set_sometimes)
            ck_result(0, "callback %d answered %d", (int)wanted[i], answers[i]);
    ck_result(1, "all granted");
}
