/* state-taskgroup.c - a thread waiting at a taskgroup's end for a child running elsewhere is in the taskgroup wait state. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "a thread waiting at the end of a taskgroup for a child task another thread runs settles in ompt_state_wait_taskgroup"
#define KNOWN_BUG "libomp never sets ompt_state_wait_taskgroup: its waiting loop in task scheduling says work_parallel (lib/mapping.h: OC_REFINE_WORK)"
#include "check.h"

#define WAIT_KIND ompt_sync_region_taskgroup
#include "task-wait-probe.h"

int main(void)
{
    int state = probe_task_wait(1);
    ck_result(state == ompt_state_wait_taskgroup, "the waiting thread settled in 0x%x", (unsigned)state);
}
