/* checked.h - arithmetic that cannot overflow on numbers from a record or a report (untrusted): float to integer, clamped; INT64_MIN's magnitude; sums of counts. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_CHECKED_H
#define OMPCOLLECT_CHECKED_H 1

#include <stdint.h>

/*
 * `value` as an unsigned 64-bit integer: NaN and anything below 1 are 0,
 * anything at or past 2^64 is UINT64_MAX (a cast of those is undefined).
 */
static inline uint64_t ompc_u64_of(double value)
{
    if (!(value >= 1.0)) /* NaN too */
        return 0;
    if (value >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)value;
}

/* `value` as a signed 64-bit integer, NaN 0, clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t ompc_i64_of(double value)
{
    if (value != value)
        return 0;
    if (value >= 9223372036854775808.0)
        return INT64_MAX;
    if (value <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)value;
}

/* |value| as an unsigned 64-bit integer, INT64_MIN's 2^63 too (-INT64_MIN is undefined). */
static inline uint64_t ompc_magnitude(int64_t value)
{
    return value < 0 ? UINT64_C(0) - (uint64_t)value : (uint64_t)value;
}

/* *sum += value for counts from 0 to INT64_MAX; -1, *sum unchanged, when the sum would pass INT64_MAX. */
static inline int ompc_add_count(int64_t *sum, int64_t value)
{
    if (value > INT64_MAX - *sum)
        return -1;
    *sum += value;
    return 0;
}

/* a + b for unsigned counts, or UINT64_MAX where the sum would wrap. */
static inline uint64_t ompc_sum_u64(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif /* OMPCOLLECT_CHECKED_H */
