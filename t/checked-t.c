/* checked-t.c - the checked conversions of untrusted numbers (checked.h): floats out of range or NaN clamp instead of being undefined, INT64_MIN's magnitude is 2^63. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <math.h>
#include <stdint.h>

#include "checked.h"
#include "lib/tap.h"

int main(void)
{
    tap_plan(12);
    tap_ok(ompc_u64_of(NAN) == 0, "NaN to unsigned is 0");
    tap_ok(ompc_u64_of(-5.0) == 0, "a negative to unsigned is 0");
    tap_ok(ompc_u64_of(1e30) == UINT64_MAX, "1e30 to unsigned is UINT64_MAX");
    tap_ok(ompc_u64_of(18446744073709551616.0) == UINT64_MAX, "2^64 to unsigned is UINT64_MAX");
    tap_ok(ompc_u64_of(12345.9) == 12345, "an unsigned in range is truncated");
    tap_ok(ompc_i64_of(NAN) == 0, "NaN to signed is 0");
    tap_ok(ompc_i64_of(9223372036854775808.0) == INT64_MAX, "2^63 to signed is INT64_MAX");
    tap_ok(ompc_i64_of(-1e300) == INT64_MIN, "-1e300 to signed is INT64_MIN");
    tap_ok(ompc_i64_of(-42.5) == -42, "a signed in range is truncated");
    tap_ok(ompc_magnitude(INT64_MIN) == UINT64_C(9223372036854775808), "|INT64_MIN| is 2^63");
    tap_ok(ompc_magnitude(-7) == 7, "|-7| is 7");
    tap_ok(ompc_magnitude(INT64_MAX) == (uint64_t)INT64_MAX, "|INT64_MAX| is itself");
    return tap_done();
}
