/* task-dependences.c - a task's depend clauses are reported with their kinds and variables. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Compilers: clang gcc */
#define CHECK_MEANING "depend(in: a) depend(out: b) gives task_create with has_dependences and a dependences callback listing in &a and out &b"
#define KNOWN_BUG "libomp keeps depend(out) as in|out (the same ordering) and reports it as ompt_dependence_type_inout, for clang and gcc code alike"
#include "check.h"

static void check_setup(void)
{
    ck_follow(ompt_callback_task_create);
    ck_follow(ompt_callback_dependences);
}

static int a, b;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp master
    {
#pragma omp task depend(in : a) depend(out : b)
        b = a + 1;
#pragma omp taskwait
    }
    ck_require_tool();
    int ndeps = atomic_load(&ck_ndeps), in = 0, out = 0, b_type = -1;
    for (int i = 0; i < ndeps && i < 4; i++) {
        in |= ck_deps[i].variable.ptr == &a && ck_deps[i].dependence_type == ompt_dependence_type_in;
        out |= ck_deps[i].variable.ptr == &b && ck_deps[i].dependence_type == ompt_dependence_type_out;
        if (ck_deps[i].variable.ptr == &b)
            b_type = (int)ck_deps[i].dependence_type;
    }
    int create = ck_find(-1, 0, EV_TASK_CREATE, -1, -1);
    while (create >= 0 && !(ck_log[create].kind & ompt_task_explicit))
        create = ck_find(create, 0, EV_TASK_CREATE, -1, -1);
    ck_result(ndeps == 2 && in && out && create >= 0 && ck_log[create].b != 0,
              "%d dependences, in &a %s, &b's type %d", ndeps, in ? "seen" : "missing", b_type);
}
