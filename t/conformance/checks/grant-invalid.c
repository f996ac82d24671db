/* grant-invalid.c - setting a callback the runtime does not know fails cleanly. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "ompt_set_callback answers ompt_set_error for a callback number no OpenMP version defines"
#include "check.h"

static void handler(void) {}
static int answer = -1;

static void check_setup(void)
{
    answer = (int)ck_set_callback((ompt_callbacks_t)999, (ompt_callback_t)handler);
}

int main(void)
{
    (void)omp_get_max_threads();
    if (!atomic_load(&ck_started))
        ck_skip("the runtime did not start the tool (OMPT disabled?)");
    ck_result(answer == ompt_set_error, "callback 999 answered %d", answer);
}
