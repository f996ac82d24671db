/* gomp5-copies.c - a GCC-built program whose samples land in the runtime: each task's large firstprivate block is copied by GOMP_task, so most samples are in memcpy called from the runtime, called from make_tasks; it makes tasks for SECONDS (0.2) of wall-clock time, so the samples it gets do not depend on the CPU's speed. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct block {
    char bytes[1 << 18];
};

static volatile long sink;

/* Makes tasks for `seconds`; the runtime copies `block` into each one. */
__attribute__((noinline)) void make_tasks(double seconds)
{
    struct block block;
    memset(&block, 1, sizeof block);
    double end = omp_get_wtime() + seconds;
    for (int i = 0; omp_get_wtime() < end; i++) {
#pragma omp task firstprivate(block)
        sink += block.bytes[i % (int)sizeof block.bytes];
    }
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.2;
#pragma omp parallel num_threads(2)
#pragma omp single
    make_tasks(seconds);
    printf("sink %ld\n", (long)sink);
    return 0;
}
