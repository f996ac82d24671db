/* dlopen-main.c - a collector that dlopens the shim from main(), as the README's dlopen route describes; built with and without an OpenMP construct written in main itself. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <dlfcn.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

static int failures;
static _Atomic int forks;

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    (void)event;
    atomic_fetch_add(&forks, 1);
}

static __attribute__((noinline)) int region(void)
{
    int threads = 0;
#pragma omp parallel num_threads(2)
#pragma omp atomic
    threads++;
    return threads;
}

/*
 * EXPECT is "attached" or "too-late".  With CONSTRUCT_IN_MAIN, main holds a
 * critical of its own: clang then asks libomp for the thread number in
 * main's prologue, before the first statement, and that first entry runs
 * tool discovery before the dlopen below can make the shim visible.
 */
int main(int argc, char **argv)
{
    const char *expect = argc > 1 ? argv[1] : "attached";
    if (dlopen(getenv("SHIM"), RTLD_NOW | RTLD_GLOBAL) == NULL) {
        check(0, "the shim can be dlopen'ed from main");
        return 1;
    }
    int start_ec = collector_simple(OMP_REQ_START);
    if (strcmp(expect, "too-late") == 0) {
        check(start_ec == OMP_ERRCODE_SEQUENCE_ERR,
              "START answers SEQUENCE_ERR: the runtime initialised before main's first statement");
        check(region() == 2, "the program runs on untouched");
    } else {
        check(start_ec == OMP_ERRCODE_OK, "START from main after dlopen answers OK");
        check(collector_register(OMP_EVENT_FORK, on_fork) == OMP_ERRCODE_OK,
              "REGISTER FORK answers OK");
        check(region() == 2 && atomic_load(&forks) == 1, "the next region delivers FORK");
    }
#ifdef CONSTRUCT_IN_MAIN
    int total = 0;
#pragma omp parallel num_threads(2)
#pragma omp critical
    total++;
    check(total == 2, "main's own construct ran");
#endif
    return failures != 0;
}
