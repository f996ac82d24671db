/* ompcollect-gompuser.c - a program without OpenMP of its own that runs a GCC-built OpenMP library, linked or loaded with dlopen, for ompcollect's tests. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef LOADER
#include <dlfcn.h>
#endif

int ompc_gomplib_work(int regions, double seconds);

/* Usage: ompcollect-gompuser REGIONS [LIBRARY]: runs REGIONS regions of 20 ms, from the linked library or (loader build) from LIBRARY. */
int main(int argc, char **argv)
{
    int regions = argc > 1 ? atoi(argv[1]) : 5;
#ifndef LOADER
    int (*work)(int, double) = ompc_gomplib_work;
#else
    if (argc < 3) {
        fprintf(stderr, "usage: %s REGIONS LIBRARY\n", argv[0]);
        return 2;
    }
    void *library = dlopen(argv[2], RTLD_NOW);
    if (library == NULL) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    int (*work)(int, double) = (int (*)(int, double))dlsym(library, "ompc_gomplib_work");
    if (work == NULL)
        return 2;
#endif
    int threads = work(regions, 0.02);
    printf("gompuser: %d regions, %d threads\n", regions, threads);
    return threads == 2 ? 0 : 3;
}
