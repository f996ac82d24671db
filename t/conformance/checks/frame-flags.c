/* frame-flags.c - an implicit task's exit frame is flagged as a runtime frame with its address kind. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define CHECK_MEANING "in a region's user code, exit_frame_flags say ompt_frame_runtime and one of cfa/framepointer/stackaddress"
#include "check.h"

static void check_setup(void) {}

static int flags = -1;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp master
    {
        ompt_frame_t *frame = NULL;
        ck_get_task_info(0, NULL, NULL, &frame, NULL, NULL);
        flags = frame ? frame->exit_frame_flags : -1;
    }
    ck_require_tool();
    int kind = flags & 0x30;
    ck_result(flags >= 0 && !(flags & ompt_frame_application) && kind != 0, "exit_frame_flags 0x%x", (unsigned)flags);
}
