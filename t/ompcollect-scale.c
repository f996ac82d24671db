/* ompcollect-scale.c - synthetic programs at the record's scale for t/ompcollect-scale.sh: a million regions over three constructs, thousands of distinct parallel constructs, hundreds of threads, and millions of uncontended lock acquisitions. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * libgomp's entry point for a parallel construct, which a compiler emits
 * for every `#pragma omp parallel`: each call site below is one more
 * construct to the runtime (its own return address), without making the
 * compiler outline ten thousand bodies.
 */
void GOMP_parallel(void (*body)(void *), void *data, unsigned threads, unsigned flags);

static volatile long sink;

static void body(void *data)
{
    (void)data;
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

#define C1 GOMP_parallel(body, NULL, 0, 0);
#define C10 C1 C1 C1 C1 C1 C1 C1 C1 C1 C1
#define C100 C10 C10 C10 C10 C10 C10 C10 C10 C10 C10
#define C1000 C100 C100 C100 C100 C100 C100 C100 C100 C100 C100

/* Ten thousand calls build quickly only unoptimized: clang and gcc say so differently. */
#if defined(__clang__)
#define UNOPTIMIZED __attribute__((optnone))
#elif defined(__GNUC__)
#define UNOPTIMIZED __attribute__((optimize("O0")))
#else
#define UNOPTIMIZED
#endif

/* `count` (100 or 10000) distinct constructs, each forked once. */
UNOPTIMIZED static int constructs(long count)
{
    if (count == 100) {
        C100
    } else if (count == 10000) {
        C1000 C1000 C1000 C1000 C1000 C1000 C1000 C1000 C1000 C1000
    } else {
        return 2;
    }
    return 0;
}

/* `count` regions, a third at each of three constructs. */
static void regions(long count)
{
    for (long i = 0; i < count; i += 3) {
#pragma omp parallel
        body(NULL);
#pragma omp parallel
        body(NULL);
#pragma omp parallel
        body(NULL);
    }
}

/* `count` regions in which every thread takes a shared lock once and meets the others at a barrier. */
static void wide(long count)
{
    omp_lock_t lock;
    omp_init_lock(&lock);
    for (long r = 0; r < count; r++) {
#pragma omp parallel
        {
            omp_set_lock(&lock);
            sink++;
            omp_unset_lock(&lock);
#pragma omp barrier
        }
    }
    omp_destroy_lock(&lock);
}

/* Each thread takes a lock of its own `count` times: never contended. */
static void locks(long count)
{
#pragma omp parallel
    {
        omp_lock_t mine;
        omp_init_lock(&mine);
        long taken = 0;
        for (long i = 0; i < count; i++) {
            omp_set_lock(&mine);
            taken++;
            omp_unset_lock(&mine);
        }
        omp_destroy_lock(&mine);
        __atomic_fetch_add(&sink, taken, __ATOMIC_RELAXED);
    }
}

int main(int argc, char **argv)
{
    long count = argc == 3 ? atol(argv[2]) : -1;
    if (count < 0) {
        fprintf(stderr, "usage: ompcollect-scale regions|constructs|wide|locks COUNT\n");
        return 2;
    }
    if (strcmp(argv[1], "regions") == 0)
        regions(count);
    else if (strcmp(argv[1], "constructs") == 0)
        return constructs(count);
    else if (strcmp(argv[1], "wide") == 0)
        wide(count);
    else if (strcmp(argv[1], "locks") == 0)
        locks(count);
    else
        return 2;
    printf("%ld\n", (long)sink);
    return 0;
}
