/* tap.h - a small Test Anything Protocol producer for ompcollector's test programs. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECTOR_TAP_H
#define OMPCOLLECTOR_TAP_H 1

#include <stdarg.h>

/* Announces how many results follow. */
void tap_plan(int count);

/* Announces the whole program is skipped, with why, and exits 0. */
void tap_skip_all(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Reports one result; returns `passed` so callers can add diagnostics. */
int tap_ok(int passed, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reports an integer comparison, printing both sides when they differ. */
int tap_is_int(long long got, long long expected, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reports `count` skipped results, with why. */
void tap_skip(int count, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A diagnostic line ("# ..."). */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Stops the program: "Bail out!" then exit 255. */
void tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Exit status for main: 0 when every result passed and the plan was met. */
int tap_done(void);

#endif /* OMPCOLLECTOR_TAP_H */
