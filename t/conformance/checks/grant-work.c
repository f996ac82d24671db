/* grant-work.c - the work-sharing, masked, task-dependence and reduction callbacks are granted. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "work, masked, reduction, dependences and task_dependence are granted (at least ompt_set_sometimes)"
#include "check.h"

static void handler(void) {}
static const ompt_callbacks_t wanted[] = {
    ompt_callback_work, ompt_callback_masked, ompt_callback_reduction, ompt_callback_dependences,
    ompt_callback_task_dependence,
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
