/* sort.h - qsort(3) for arrays that may be empty: the writers' tables start as NULL, which qsort and bsearch must not be given even with a count of 0 (C11 7.22.5). */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_SORT_H
#define OMPCOLLECT_SORT_H 1

#include <stdint.h>
#include <stdlib.h>

static inline void ompc_qsort(void *base, size_t count, size_t size, int (*compare)(const void *, const void *))
{
    if (count > 1)
        qsort(base, count, size, compare);
}

static inline void *ompc_bsearch(const void *key, const void *base, size_t count, size_t size,
                                 int (*compare)(const void *, const void *))
{
    return count > 0 ? bsearch(key, base, count, size, compare) : NULL;
}

/* Orders two integers, for comparison functions: -1, 0 or 1. */
static inline int ompc_order_i64(int64_t x, int64_t y)
{
    return (x > y) - (x < y);
}

/* qsort and bsearch: uint64_t values (times, code addresses) in ascending order. */
static inline int ompc_compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#endif /* OMPCOLLECT_SORT_H */
