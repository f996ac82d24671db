/* frame-implicit.c - a running implicit task has an exit frame above its user code and no enter frame. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "in a region's user code, ompt_get_task_info(0)'s frame has exit_frame set above the code's locals and enter_frame NULL"
#include "check.h"

static void check_setup(void) {}

static _Atomic int bad = -1;
static void *exit_seen, *enter_seen, *local_seen;

int main(void)
{
#pragma omp parallel num_threads(2)
    {
        volatile int local = 0;
        ompt_frame_t *frame = NULL;
        ck_get_task_info(0, NULL, NULL, &frame, NULL, NULL);
        /* The stack grows down: the runtime frame that called the outlined code lies above its locals. */
        if (frame == NULL || frame->exit_frame.ptr == NULL || frame->enter_frame.ptr != NULL
            || (uintptr_t)frame->exit_frame.ptr <= (uintptr_t)&local) {
            atomic_store(&bad, omp_get_thread_num());
            exit_seen = frame ? frame->exit_frame.ptr : NULL;
            enter_seen = frame ? frame->enter_frame.ptr : NULL;
            local_seen = (void *)&local;
        }
    }
    ck_require_tool();
    ck_result(bad == -1, "thread %d: exit %p, enter %p, a local at %p", (int)bad, exit_seen, enter_seen, local_seen);
}
