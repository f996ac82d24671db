/* state-taskwait.c - a thread waiting in a taskwait for a child running elsewhere is in the taskwait wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a thread waiting in #pragma omp taskwait for a child task another thread runs settles in ompt_state_wait_taskwait"
#define KNOWN_BUG "libomp never sets ompt_state_wait_taskwait: its waiting loop in task scheduling says work_parallel (lib/mapping.h: OC_REFINE_WORK)"
#include "check.h"

#define WAIT_KIND ompt_sync_region_taskwait
#include "task-wait-probe.h"

int main(void)
{
    int state = probe_task_wait(0);
    ck_result(state == ompt_state_wait_taskwait, "the waiting thread settled in 0x%x", (unsigned)state);
}
