/* chain.c - the ompt_start_tool of a workload that stands in front of the shim (see chain.h): exported with -rdynamic, it is the one libomp finds, and it hands libomp the shim's tool. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "chain.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "omp_collector_api.h"

static ompt_initialize_t shim_initialize;
static ompt_finalize_t shim_finalize;
static _Atomic int chained;

/* The shim initializes with the lookup function the workload chose. */
static int chained_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    return shim_initialize(chain_shim_lookup(lookup), device, data);
}

/* The shim finalizes as it would alone. */
static void chained_finalize(ompt_data_t *data)
{
    shim_finalize(data);
}

/* libomp's entry to the tool: the shim's own tool, found through the Collector API entry it exports, with the workload in front. */
ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime_version)
{
    static ompt_start_tool_result_t result;
    void *api = dlsym(RTLD_DEFAULT, OMP_COLLECTOR_API);
    Dl_info info;
    if (api == NULL || dladdr(api, &info) == 0 || info.dli_fname == NULL)
        return NULL;
    void *shim = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    ompt_start_tool_result_t *(*shim_start)(unsigned int, const char *) =
        shim != NULL ? (ompt_start_tool_result_t * (*)(unsigned int, const char *)) dlsym(shim, "ompt_start_tool")
                     : NULL;
    ompt_start_tool_result_t *offered = shim_start != NULL ? shim_start(version, runtime_version) : NULL;
    if (offered == NULL)
        return NULL;
    shim_initialize = offered->initialize;
    shim_finalize = offered->finalize;
    result.initialize = chained_initialize;
    result.finalize = chained_finalize;
    atomic_store(&chained, 1);
    return &result;
}

int chain_active(void)
{
    return atomic_load(&chained);
}
