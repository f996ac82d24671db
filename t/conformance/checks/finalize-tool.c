/* finalize-tool.c - ompt_finalize_tool finalizes the tool before it returns. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "ompt_finalize_tool (OpenMP 5.0) calls the tool's finalize callback before it returns"
#include "check.h"

static void check_setup(void) {}

int main(void)
{
#pragma omp parallel num_threads(2)
    (void)0;
    ck_require_tool();
    if (ck_finalize_tool == NULL)
        ck_skip("the runtime has no ompt_finalize_tool");
    ck_finalize_tool();
    ck_result(atomic_load(&ck_finalized), "finalized: %d", (int)ck_finalized);
}
