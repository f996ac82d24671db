/* task-info-ancestor.c - from an explicit task, ompt_get_task_info level 1 is its parent in the same team. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "from an undeferred explicit task made and run by thread 1, ompt_get_task_info(1) gives the creating implicit task: its task_data, the same team's parallel_data, thread_num 1"
#define KNOWN_BUG "libomp moves one team outwards at every ancestor level, even from an explicit task to its parent in the same team: thread_num comes out as the team master's number in the enclosing team"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_parallel_begin);
}

static int answer, flags, thread_num = -1;
static uint64_t parallel_seen, parent_task_seen;
static uint64_t implicit_task_value;

int main(void)
{
    /* Thread 1, not the master: a walk that leaves the team shows in the thread number. */
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        ompt_data_t *own = NULL;
        ck_get_task_info(0, NULL, &own, NULL, NULL, NULL);
        implicit_task_value = own ? own->value = 4242, own->value : 0;
        /* Undeferred, so its creator runs it: which thread executes the task is not in question. */
#pragma omp task if (0)
        {
            ompt_data_t *task = NULL, *parallel = NULL;
            answer = ck_get_task_info(1, &flags, &task, NULL, &parallel, &thread_num);
            parallel_seen = parallel ? parallel->value : 0;
            parent_task_seen = task ? task->value : 0;
        }
#pragma omp taskwait
    }
    ck_require_tool();
    int region = ck_find(-1, 0, EV_PARALLEL_BEGIN, -1, -1);
    ck_result(answer == 2 && (flags & ompt_task_implicit) && region >= 0 && parallel_seen == ck_log[region].a
                  && parent_task_seen == implicit_task_value && thread_num == 1,
              "answer %d, flags 0x%x, thread_num %d, parallel %llu (want %llu), parent task %llu (want %llu)", answer,
              (unsigned)flags, thread_num, (unsigned long long)parallel_seen,
              (unsigned long long)(region >= 0 ? ck_log[region].a : 0), (unsigned long long)parent_task_seen,
              (unsigned long long)implicit_task_value);
}
