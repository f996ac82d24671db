/* ompcollect-oldshim.c - a shim as it was before OMPCOLLECTOR_EVENT_TASK_LOG, for t/ompcollect-tasktier.sh: preloaded in the shim's place, it answers a REGISTER or UNREGISTER of that event UNKNOWN, as an older shim did, and hands every other request to the real shim it is linked with. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "omp_collector_api.h"

typedef int (*collector_api_t)(void *);

/* The real shim's entry, next after this library in the lookup order; NULL until found. */
static collector_api_t real_api(void)
{
    static collector_api_t found;
    if (found == NULL)
        found = (collector_api_t)dlsym(RTLD_NEXT, OMP_COLLECTOR_API);
    return found;
}

static int word(const char *entry, size_t offset)
{
    int value;
    memcpy(&value, entry + offset, sizeof value);
    return value;
}

/* Whether a well-formed entry (sz >= 20) asks to register or unregister the event the older shim lacked. */
static int asks_task_log(const char *entry)
{
    int request = word(entry, 4);
    return (request == OMP_REQ_REGISTER || request == OMP_REQ_UNREGISTER) && word(entry, 0) >= 20
           && word(entry, 16) == OMPCOLLECTOR_EVENT_TASK_LOG;
}

/* Whether the list up to its terminator holds such an entry; a malformed entry ends the scan (the real shim judges it). */
static int holds_task_log(const char *entry)
{
    for (int size; (size = word(entry, 0)) != 0; entry += size) {
        if (size < 16 || size % 4 != 0)
            return 0;
        if (asks_task_log(entry))
            return 1;
    }
    return 0;
}

/* One entry on its own, through the real shim: copied with a terminator after it, its answer copied back. */
static int forward_one(collector_api_t api, char *entry)
{
    int size = word(entry, 0);
    _Alignas(16) char single[512];
    if ((size_t)size + sizeof(int) > sizeof single)
        return -1;
    memcpy(single, entry, (size_t)size);
    memset(single + size, 0, sizeof(int));
    int result = api(single);
    memcpy(entry, single, (size_t)size);
    return result;
}

/*
 * The sampler's STATE requests and every list without the event pass
 * straight through, so the signal-safe requests stay signal-safe; a list
 * that holds it (the agent's registrations) is answered entry by entry.
 */
int __omp_collector_api(void *arg)
{
    collector_api_t api = real_api();
    if (api == NULL)
        return -1;
    if (arg == NULL || !holds_task_log(arg))
        return api(arg);
    for (char *entry = arg; word(entry, 0) != 0; entry += word(entry, 0)) {
        if (asks_task_log(entry)) {
            int unknown = OMP_ERRCODE_UNKNOWN, none = 0;
            memcpy(entry + 8, &unknown, sizeof unknown);
            memcpy(entry + 12, &none, sizeof none);
        } else if (forward_one(api, entry) != 0) {
            return -1;
        }
    }
    return 0;
}
