/* gomp5-copies.c - a GCC-built program whose samples land in the runtime: each task's large firstprivate block is copied by GOMP_task, so most samples are in memcpy called from the runtime, called from make_tasks. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <string.h>

struct block {
    char bytes[1 << 18];
};

static volatile long sink;

/* Makes the tasks; the runtime copies `block` into each one. */
__attribute__((noinline)) void make_tasks(int count)
{
    struct block block;
    memset(&block, 1, sizeof block);
    for (int i = 0; i < count; i++) {
#pragma omp task firstprivate(block)
        sink += block.bytes[i % (int)sizeof block.bytes];
    }
}

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    make_tasks(3000);
    printf("sink %ld\n", (long)sink);
    return 0;
}
