/* agent_critical.h - which named critical a thread is entering, seen on the compiler's calls into the runtime, so a CTWT wait names the critical's own variable (.gomp_critical_user_NAME) rather than the runtime's lock. */
/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef OMPCOLLECT_AGENT_CRITICAL_H
#define OMPCOLLECT_AGENT_CRITICAL_H 1

#include <stdint.h>

/*
 * The critical the calling thread last entered: the address of the
 * compiler's name variable (the third argument of __kmpc_critical) and the
 * call's return address, which the runtime reports as the construct's
 * codeptr_ra.  A wait is about that critical only when its codeptr equals
 * `call_site`.  Written by the thread itself; async-signal-safe to read.
 */
struct ompc_critical_entry {
    uint64_t variable;
    uint64_t call_site;
};

/* The calling thread's entry (initial-exec TLS: the agent is always preloaded). */
const struct ompc_critical_entry *ompc_critical_current(void);

#endif /* OMPCOLLECT_AGENT_CRITICAL_H */
