/* collector.c - request helpers a legacy collector would write, knowing only the header. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include "collector.h"

#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * The runtime entry this compiler's code calls for every parallel region,
 * taken by address: it resolves through the program's own GOT, so it names
 * the definition the program really runs, whoever else defines the symbol.
 */
#ifdef __clang__
extern void __kmpc_fork_call(void *location, int32_t argc, void *microtask, ...);
#define COMPILER_RUNTIME_ENTRY "__kmpc_fork_call"
static void *compiler_runtime_entry(void)
{
    return (void *)__kmpc_fork_call;
}
#else
extern void GOMP_parallel(void (*function)(void *), void *data, unsigned threads, unsigned flags);
#define COMPILER_RUNTIME_ENTRY "GOMP_parallel"
static void *compiler_runtime_entry(void)
{
    return (void *)GOMP_parallel;
}
#endif

/* The real path of the file that defines `address`, or NULL; the caller frees it. */
static char *defining_file(void *address)
{
    Dl_info info;
    if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL)
        return NULL;
    return realpath(info.dli_fname, NULL);
}

/*
 * GNU libgomp mapped in the process under its own name; a libgomp.so.1 link
 * to libomp shows up in /proc/self/maps under libomp's file name instead.
 */
static int gnu_libgomp_mapped(char *found, size_t size)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int mapped = 0;
    while (maps != NULL && !mapped && fgets(line, sizeof line, maps) != NULL) {
        char *file = strchr(line, '/');
        if (file == NULL)
            continue;
        file[strcspn(file, "\n")] = '\0';
        char *resolved = realpath(file, NULL);
        const char *path = resolved != NULL ? resolved : file;
        const char *base = strrchr(path, '/');
        if (strncmp(base + 1, "libgomp.so", 10) == 0) {
            snprintf(found, size, "%s", path);
            mapped = 1;
        }
        free(resolved);
    }
    if (maps != NULL)
        fclose(maps);
    return mapped;
}

int collector_check_runtime(char *why, size_t size)
{
    const char *expected = getenv("EXPECT_LIBOMP");
    if (expected == NULL || expected[0] == '\0')
        return -1;
    static const char *const names[] = {COMPILER_RUNTIME_ENTRY, "omp_get_max_threads"};
    void *const addresses[] = {compiler_runtime_entry(), (void *)omp_get_max_threads};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *file = defining_file(addresses[i]);
        int matches = file != NULL && strcmp(file, expected) == 0;
        snprintf(why, size, "%s comes from %s, expected %s", names[i],
                 file != NULL ? file : "(unknown)", expected);
        free(file);
        if (!matches)
            return 0;
    }
    char gomp[4096];
    if (getenv("EXPECT_NO_GNU_LIBGOMP") != NULL && gnu_libgomp_mapped(gomp, sizeof gomp)) {
        snprintf(why, size, "GNU libgomp is loaded too: %s", gomp);
        return 0;
    }
    snprintf(why, size, "OpenMP entry points come from %s", expected);
    return 1;
}

/* Without EXPECT_LIBOMP there is nothing to verify and no line to print. */
int collector_report_runtime(void)
{
    char why[9000];
    int on_runtime = collector_check_runtime(why, sizeof why);
    if (on_runtime < 0)
        return 1;
    printf("%s - the process runs on the libomp under test\n# %s\n", on_runtime ? "ok" : "not ok", why);
    return on_runtime;
}

/* The workloads' first assertion: nothing else can be tested without the entry point. */
int (*collector_lookup_reported(void))(void *)
{
    int (*found)(void *) = collector_lookup();
    printf("%s - dlsym(RTLD_DEFAULT, \"__omp_collector_api\") finds the shim\n", found ? "ok" : "not ok");
    return found;
}
