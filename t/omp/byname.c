/* byname.c - a collector written as TAU's 2012-2014 client is: a constructor dlopens the runtime by name (libopenmp.so, then liblibgomp_g_wrap.so) and takes __omp_collector_api from that handle. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <link.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector.h"

static void *handle;
static const char *opened;
static int (*api)(void *);
static int start_answer = -1, register_answer = -1;
static _Atomic int forks;

static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    atomic_fetch_add(&forks, 1);
}

/*
 * The client's constructor: the names it tries come from BYNAME_NAMES
 * (TAU's two by default).  Found nothing: run without the API, as TAU did.
 */
__attribute__((constructor)) static void open_runtime_by_name(void)
{
    const char *list = getenv("BYNAME_NAMES");
    static char names[256];
    snprintf(names, sizeof names, "%s", list != NULL ? list : "libopenmp.so liblibgomp_g_wrap.so");
    for (char *save = NULL, *name = strtok_r(names, " ", &save); name != NULL && handle == NULL;
         name = strtok_r(NULL, " ", &save)) {
        handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
        if (handle != NULL)
            opened = name;
    }
    if (handle == NULL)
        return;
    api = (int (*)(void *))dlsym(handle, OMP_COLLECTOR_API);
    if (api == NULL)
        return;
    int32_t start[5] = {16, OMP_REQ_START, 0, 0, 0};
    api(start);
    start_answer = start[2];
    int32_t reg[8] = {28, OMP_REQ_REGISTER, 0, 0, OMP_EVENT_FORK, 0, 0, 0};
    omp_collector_callback_t callback = on_fork;
    memcpy(&reg[5], &callback, sizeof callback);
    api(reg);
    register_answer = reg[2];
}

/* Files mapped in the process that are the shim: counted by device and inode, whatever their name. */
struct shim_count {
    dev_t dev;
    ino_t ino;
    int count;
};

static int count_shim(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct shim_count *shim = data;
    struct stat st;
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0' && stat(info->dlpi_name, &st) == 0
        && st.st_dev == shim->dev && st.st_ino == shim->ino)
        shim->count++;
    return 0;
}

static int failures;

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

int main(void)
{
    const char *expected = getenv("EXPECT_OPENED");
    if (expected == NULL || expected[0] == '\0') {
        /* Off the library path the names are nobody's: the client runs without the API. */
        check(handle == NULL,
              "without the alias directory on LD_LIBRARY_PATH no name opens: the client runs without the API");
        if (!collector_report_runtime())
            failures++;
#pragma omp parallel num_threads(2)
        {
#pragma omp barrier
        }
        return failures != 0;
    }
    check(opened != NULL && strcmp(opened, expected) == 0, "the constructor's dlopen by name opens the shim");
    printf("# opened %s\n", opened != NULL ? opened : "nothing");
    if (!collector_report_runtime())
        failures++;
    check(api != NULL, "dlsym(handle, \"__omp_collector_api\") finds the API");
    if (api == NULL)
        return 1;
    check(api == collector_lookup(), "the handle's API is the one dlsym(RTLD_DEFAULT) finds: one shim");
    Dl_info info;
    struct stat st;
    struct shim_count shim = {0, 0, 0};
    if (dladdr((void *)api, &info) != 0 && info.dli_fname != NULL && stat(info.dli_fname, &st) == 0) {
        shim.dev = st.st_dev;
        shim.ino = st.st_ino;
        dl_iterate_phdr(count_shim, &shim);
    }
    check(shim.count == 1, "the shim's file is mapped once, whatever names reached it");
    printf("# API from %s, mapped %d time(s)\n", dladdr((void *)api, &info) ? info.dli_fname : "?", shim.count);
    check(start_answer == OMP_ERRCODE_OK && register_answer == OMP_ERRCODE_OK,
          "START and REGISTER from the constructor, before the runtime started, answer OK");
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
    }
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
    }
    check(atomic_load(&forks) == 2, "the session is live: both parallel regions deliver FORK");
    return failures != 0;
}
