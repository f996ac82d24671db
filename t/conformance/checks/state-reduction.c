/* state-reduction.c - a thread combining a reduction is in the reduction state. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "inside ompt_callback_reduction's bracket (critical method forced) ompt_get_state answers ompt_state_work_reduction"
#define KNOWN_BUG "libomp never sets ompt_state_work_reduction; the shim infers it from the reduction bracket (lib/mapping.c: oc_refine_state)"
#include "check.h"

/* libomp reads KMP_FORCE_REDUCTION when it initialises, at the program's first OpenMP call. */
__attribute__((constructor)) static void force_critical_method(void)
{
    setenv("KMP_FORCE_REDUCTION", "critical", 1);
}

static _Atomic int state = -1, brackets;

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *p, ompt_data_t *t,
                         const void *c)
{
    (void)kind, (void)p, (void)t, (void)c;
    if (endpoint == ompt_scope_begin) {
        atomic_fetch_add(&brackets, 1);
        int expected = -1;
        atomic_compare_exchange_strong(&state, &expected, ck_get_state(NULL));
    }
}

static void check_setup(void)
{
    ck_set(ompt_callback_reduction, (ompt_callback_t)on_reduction);
}

int main(void)
{
    int sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += 1;
    ck_require_tool();
    if (brackets == 0)
        ck_skip("the runtime reported no reduction bracket even with KMP_FORCE_REDUCTION=critical");
    ck_result(state == ompt_state_work_reduction, "state 0x%x in the bracket", (unsigned)state);
}
