/* finalize-at-exit.c - the runtime finalizes the tool when the program exits. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a program that returns from main gets the tool's finalize callback at its shutdown"
#define CHECK_ON_FINALIZE report_from_finalize
#include "check.h"

static void check_setup(void) {}

/*
 * The verdict comes from the finalize callback itself, which runs inside
 * exit(), so it must not exit again.  When it never comes, the program
 * prints no verdict, which t/conformance/run counts as a failure.
 */
static void report_from_finalize(void)
{
    printf("# finalized at shutdown\n");
    ck_line(ck_wrong_runtime() == NULL ? "ok" : "not ok", "");
}

int main(void)
{
#pragma omp parallel num_threads(2)
    (void)0;
    ck_require_tool();
    return 0;
}
