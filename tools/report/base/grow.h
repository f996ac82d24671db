/* grow.h - the reporter's one way to make room in a growing array: doubling, never less than asked, no size overflow. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_GROW_H
#define OMPCOLLECT_GROW_H 1

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Makes *array (the address of any T *, passed as void *) hold at least
 * `needed` elements of `size` bytes, doubling from 64: 0, or -1 without
 * memory (the array is then as it was).
 */
static inline int ompc_grow(void *array, size_t needed, size_t *capacity, size_t size)
{
    if (needed <= *capacity)
        return 0;
    size_t wanted = *capacity ? *capacity : 64;
    while (wanted < needed && wanted <= SIZE_MAX / 2)
        wanted *= 2;
    if (wanted < needed || size == 0 || wanted > SIZE_MAX / size)
        return -1;
    void *items;
    memcpy(&items, array, sizeof items);
    void *grown = realloc(items, wanted * size);
    if (grown == NULL)
        return -1;
    memcpy(array, &grown, sizeof grown);
    *capacity = wanted;
    return 0;
}

#endif
