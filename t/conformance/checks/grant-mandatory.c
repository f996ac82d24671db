/* grant-mandatory.c - the mandatory callbacks are granted always. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "ompt_set_callback answers ompt_set_always for thread_begin/end, parallel_begin/end, task_create, task_schedule, implicit_task"
#include "check.h"

static void handler(void) {}

static const ompt_callbacks_t mandatory[] = {
    ompt_callback_thread_begin, ompt_callback_thread_end, ompt_callback_parallel_begin,
    ompt_callback_parallel_end, ompt_callback_task_create, ompt_callback_task_schedule,
    ompt_callback_implicit_task,
};
static int answers[sizeof mandatory / sizeof mandatory[0]];

static void check_setup(void)
{
    for (size_t i = 0; i < sizeof mandatory / sizeof mandatory[0]; i++)
        answers[i] = (int)ck_set_callback(mandatory[i], (ompt_callback_t)handler);
    for (size_t i = 0; i < sizeof mandatory / sizeof mandatory[0]; i++)
        ck_set_callback(mandatory[i], NULL);
}

int main(void)
{
    (void)omp_get_max_threads(); /* starts the runtime, and so the tool */
    if (!atomic_load(&ck_started))
        ck_skip("the runtime did not start the tool (OMPT disabled?)");
    for (size_t i = 0; i < sizeof mandatory / sizeof mandatory[0]; i++)
        if (answers[i] != ompt_set_always)
            ck_result(0, "callback %d answered %d", (int)mandatory[i], answers[i]);
    ck_result(1, "all seven answered ompt_set_always");
}
