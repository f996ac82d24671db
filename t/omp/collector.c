/* collector.c - request helpers a legacy collector would write, knowing only the header. */
#define _GNU_SOURCE 1
#include "collector.h"

#include <dlfcn.h>
#include <string.h>

static int (*api)(void *);

/* dlsym(RTLD_DEFAULT, ...) is how every legacy client finds the runtime. */
int (*collector_lookup(void))(void *)
{
    if (api == NULL)
        api = (int (*)(void *))dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API);
    return api;
}

int collector_simple(int request)
{
    int32_t entry[5] = {16, request, 0, 0, 0};
    if (collector_lookup() == NULL)
        return -1;
    api(entry);
    return entry[2];
}

int collector_register(int event, omp_collector_callback_t callback)
{
    int32_t entry[8] = {28, OMP_REQ_REGISTER, 0, 0, event, 0, 0, 0};
    memcpy(&entry[5], &callback, sizeof callback);
    if (collector_lookup() == NULL)
        return -1;
    api(entry);
    return entry[2];
}

int collector_register_aligned(int event, omp_collector_callback_t callback)
{
    struct {
        int32_t sz, request, ec, rsz;
        int32_t event, pad;
        omp_collector_callback_t callback;
        int32_t terminator, unused;
    } entry = {32, OMP_REQ_REGISTER, 0, 0, event, 0, callback, 0, 0};
    if (collector_lookup() == NULL)
        return -1;
    api(&entry);
    return entry.ec;
}

int collector_state(uint64_t *wait_id)
{
    int32_t entry[9] = {28, OMP_REQ_STATE, 0, 0, 0, 0, 0, 0, 0};
    if (collector_lookup() == NULL)
        return -1;
    api(entry);
    memcpy(wait_id, &entry[5], sizeof *wait_id);
    return entry[4];
}

int collector_prid(int request, uint64_t *region_id)
{
    int32_t entry[7] = {24, request, 0, 0, 0, 0, 0};
    if (collector_lookup() == NULL)
        return -1;
    api(entry);
    memcpy(region_id, &entry[4], sizeof *region_id);
    return entry[2];
}
