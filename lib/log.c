/* log.c - diagnostics to stderr, only when OMPCOLLECTOR_DEBUG asks, written with write(2). */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic int debug_enabled = -1;

/* Reads OMPCOLLECTOR_DEBUG once; any non-empty value other than 0 turns logging on. */
void oc_log_init(void)
{
    if (atomic_load(&debug_enabled) >= 0)
        return;
    const char *setting = getenv("OMPCOLLECTOR_DEBUG");
    atomic_store(&debug_enabled, setting != NULL && setting[0] != '\0' && setting[0] != '0');
}

/*
 * One line to stderr.  Formatting uses the stack only, and errno is saved so
 * the program never sees ours.  Not for signal handlers (vsnprintf is not
 * async-signal-safe): STATE and CURRENT_PRID never log.
 */
void oc_log(const char *fmt, ...)
{
    oc_log_init();
    if (!atomic_load(&debug_enabled))
        return;
    int saved_errno = errno;
    char line[256];
    int prefix = snprintf(line, sizeof line, "ompcollector: ");
    va_list args;
    va_start(args, fmt);
    int body = vsnprintf(line + prefix, sizeof line - (size_t)prefix - 1, fmt, args);
    va_end(args);
    size_t length = (size_t)prefix + (body < 0 ? 0 : (size_t)body);
    if (length > sizeof line - 2)
        length = sizeof line - 2;
    line[length++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, length);
    (void)ignored;
    errno = saved_errno;
}
