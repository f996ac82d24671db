/* task-dependence-pair.c - a task waiting on another's output is reported as a source-sink pair. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "a depend(in: x) task created while a depend(out: x) task is pending gives task_dependence(source: the writer, sink: the reader)"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_task_create);
    ck_follow(ompt_callback_task_dependence);
}

static int x;
static _Atomic int reader_created;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp master
    {
        /* The writer cannot finish before the reader exists, so the runtime must record the edge. */
#pragma omp task depend(out : x)
        {
            ck_await(&reader_created);
            x = 1;
        }
#pragma omp task depend(in : x)
        x++;
        atomic_store(&reader_created, 1);
#pragma omp taskwait
    }
    ck_require_tool();
    int writer = ck_find(-1, 0, EV_TASK_CREATE, -1, -1);
    while (writer >= 0 && !(ck_log[writer].kind & ompt_task_explicit))
        writer = ck_find(writer, 0, EV_TASK_CREATE, -1, -1);
    int reader = ck_find(writer, 0, EV_TASK_CREATE, -1, -1);
    int edge = ck_find(-1, -1, EV_TASK_DEPENDENCE, -1, -1);
    ck_result(x == 2 && writer >= 0 && reader >= 0 && edge >= 0 && ck_log[edge].a == ck_log[writer].a
                  && ck_log[edge].b == ck_log[reader].a,
              "x %d, writer at %d, reader at %d, edge at %d", x, writer, reader, edge);
}
