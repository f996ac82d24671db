/* tap.c - prints TAP results to stdout, one line per result, flushing as it goes. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>

static int planned = -1;
static int reported;
static int failed;

/* Prints the plan line. */
void tap_plan(int count)
{
    planned = count;
    printf("1..%d\n", count);
    fflush(stdout);
}

/* The whole program has nothing it can test here. */
void tap_skip_all(const char *fmt, ...)
{
    va_list args;
    printf("1..0 # SKIP ");
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
    exit(0);
}

static void report(int passed, const char *fmt, va_list args)
{
    reported++;
    if (!passed)
        failed++;
    printf("%s %d - ", passed ? "ok" : "not ok", reported);
    vprintf(fmt, args);
    printf("\n");
    fflush(stdout);
}

/* One result. */
int tap_ok(int passed, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    report(passed, fmt, args);
    va_end(args);
    return passed;
}

/* One comparison, with both values shown when it fails. */
int tap_is_int(long long got, long long expected, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    report(got == expected, fmt, args);
    va_end(args);
    if (got != expected)
        tap_diag("     got: %lld\n#   expected: %lld", got, expected);
    return got == expected;
}

/* Results that cannot be checked here. */
void tap_skip(int count, const char *fmt, ...)
{
    char reason[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    for (int i = 0; i < count; i++) {
        reported++;
        printf("ok %d # SKIP %s\n", reported, reason);
    }
    fflush(stdout);
}

/* A comment line. */
void tap_diag(const char *fmt, ...)
{
    va_list args;
    printf("# ");
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
}

/* Gives up on the whole program. */
void tap_bail(const char *fmt, ...)
{
    va_list args;
    printf("Bail out! ");
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    printf("\n");
    fflush(stdout);
    exit(255);
}

/* main's return value. */
int tap_done(void)
{
    if (planned < 0) {
        printf("1..%d\n", reported);
        planned = reported;
    }
    if (reported != planned)
        tap_diag("planned %d results but ran %d", planned, reported);
    fflush(stdout);
    return failed == 0 && reported == planned ? 0 : 1;
}
