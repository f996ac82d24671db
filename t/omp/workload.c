/* workload.c - an OpenMP program driven by the header-only collector; prints TAP lines (unnumbered) about what the shim answered on a real runtime. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"

#define MAX_FORKS 64
#define TEAM 4

static int failures;
static int ctor_start_ec = -2;

static struct {
    _Atomic int forks, joins;
    uint64_t fork_prid[MAX_FORKS], fork_parent[MAX_FORKS], join_prid[MAX_FORKS];
    int fork_parent_ec[MAX_FORKS];
} seen;

static void check(int passed, const char *what)
{
    printf("%s - %s\n", passed ? "ok" : "not ok", what);
    failures += !passed;
}

/* FORK: the collector asks for the new region's id and its parent, as TAU does. */
static void on_fork(OMP_COLLECTORAPI_EVENT event)
{
    if (event != OMP_EVENT_FORK)
        return;
    int slot = atomic_fetch_add(&seen.forks, 1);
    if (slot >= MAX_FORKS)
        return;
    collector_prid(OMP_REQ_CURRENT_PRID, &seen.fork_prid[slot]);
    seen.fork_parent_ec[slot] = collector_prid(OMP_REQ_PARENT_PRID, &seen.fork_parent[slot]);
}

static void on_join(OMP_COLLECTORAPI_EVENT event)
{
    if (event != OMP_EVENT_JOIN)
        return;
    int slot = atomic_fetch_add(&seen.joins, 1);
    if (slot < MAX_FORKS)
        collector_prid(OMP_REQ_CURRENT_PRID, &seen.join_prid[slot]);
}

/* A collector loaded early starts its session from a constructor, before main. */
__attribute__((constructor)) static void collector_constructor(void)
{
    const char *early_dlopen = getenv("WORKLOAD_DLOPEN");
    if (early_dlopen != NULL && dlopen(early_dlopen, RTLD_NOW | RTLD_GLOBAL) == NULL)
        fprintf(stderr, "dlopen %s: %s\n", early_dlopen, dlerror());
    if (getenv("WORKLOAD_START_IN_CTOR") != NULL && collector_lookup() != NULL)
        ctor_start_ec = collector_simple(OMP_REQ_START);
}

static __attribute__((noinline)) long plain_region(void)
{
    long sum = 0;
#pragma omp parallel num_threads(TEAM) reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
    return sum;
}

/* One region where every thread reports its id and state from inside. */
static __attribute__((noinline)) void observed_region(uint64_t *prids, int *states, int *parent_ecs)
{
#pragma omp parallel num_threads(TEAM)
    {
        int me = omp_get_thread_num();
        uint64_t wait_id, ignored;
        collector_prid(OMP_REQ_CURRENT_PRID, &prids[me]);
        states[me] = collector_state(&wait_id);
        parent_ecs[me] = collector_prid(OMP_REQ_PARENT_PRID, &ignored);
#pragma omp barrier
    }
}

static __attribute__((noinline)) void nested_regions(void)
{
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
        {
            volatile int work = omp_get_thread_num();
            (void)work;
        }
    }
}

static int unique_and_small(int count, const uint64_t *ids)
{
    for (int i = 0; i < count; i++) {
        if (ids[i] == 0 || ids[i] >= (UINT64_C(1) << 31))
            return 0;
        for (int j = 0; j < i; j++)
            if (ids[i] == ids[j])
                return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    const char *expect = argc > 1 ? argv[1] : "session";

    if (strcmp(expect, "late-dlopen") == 0) {
        /* The runtime initialises without a tool; the shim arrives afterwards. */
        check(plain_region() == TEAM * (TEAM + 1) / 2, "a region runs before the shim is loaded");
        if (dlopen(getenv("SHIM"), RTLD_NOW | RTLD_GLOBAL) == NULL)
            check(0, "the shim can be dlopen'ed late");
        check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_SEQUENCE_ERR,
              "START after the runtime initialised without the tool is a sequence error");
        check(plain_region() == TEAM * (TEAM + 1) / 2, "the program runs on normally");
        return failures != 0;
    }

    if (strcmp(expect, "no-openmp") == 0) {
        /* A program that never opens a parallel region: START and queries stay sane. */
        int ec = ctor_start_ec != -2 ? ctor_start_ec : collector_simple(OMP_REQ_START);
        check(ec == OMP_ERRCODE_OK, "START in a program without parallel regions succeeds");
        uint64_t wait_id, prid = 1;
        check(collector_state(&wait_id) == THR_SERIAL_STATE, "STATE answers SERIAL");
        check(collector_prid(OMP_REQ_CURRENT_PRID, &prid) == OMP_ERRCODE_OK && prid == 0,
              "CURRENT_PRID answers 0");
        check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds");
        check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START again succeeds");
        return failures != 0;
    }

    int start_ec = ctor_start_ec;
    if (start_ec == -2) {
        if (collector_lookup() == NULL)
            (void)omp_get_max_threads(); /* OMP_TOOL_LIBRARIES: the shim arrives with the runtime */
        start_ec = collector_simple(OMP_REQ_START);
    }
    failures += !collector_report_runtime();

    if (strcmp(expect, "refused") == 0) {
        check(start_ec == OMP_ERRCODE_SEQUENCE_ERR, "START is refused with SEQUENCE_ERR");
        check(plain_region() == TEAM * (TEAM + 1) / 2, "the program runs normally");
        return failures != 0;
    }

    check(collector_lookup() != NULL, "dlsym(RTLD_DEFAULT, \"__omp_collector_api\") finds the shim");
    check(start_ec == OMP_ERRCODE_OK, "START succeeds");
    if (start_ec != OMP_ERRCODE_OK) {
        printf("# START answered %d\n", start_ec);
        return 1;
    }
    check(collector_register(OMP_EVENT_FORK, on_fork) == OMP_ERRCODE_OK, "REGISTER FORK succeeds");
    check(collector_register(OMP_EVENT_JOIN, on_join) == OMP_ERRCODE_OK, "REGISTER JOIN succeeds");

    uint64_t wait_id, prid = 99;
    check(collector_state(&wait_id) == THR_SERIAL_STATE, "serial code reads THR_SERIAL_STATE");
    check(collector_prid(OMP_REQ_CURRENT_PRID, &prid) == OMP_ERRCODE_OK && prid == 0,
          "serial code reads CURRENT_PRID 0");

    uint64_t prids[TEAM] = {0};
    int states[TEAM] = {0}, parent_ecs[TEAM] = {0};
    observed_region(prids, states, parent_ecs);
    nested_regions();
    for (int i = 0; i < 4; i++)
        plain_region();
    int forks = atomic_load(&seen.forks);
    const int expected_forks = 1 + 1 + 2 + 4;
    check(forks == expected_forks, "one FORK per parallel region, nested ones included");
    if (forks != expected_forks)
        printf("# %d FORKs, expected %d\n", forks, expected_forks);
    if (forks > MAX_FORKS)
        forks = MAX_FORKS;
    check(unique_and_small(forks, seen.fork_prid),
          "region ids at FORK are nonzero, distinct and below 2^31");
    int team_agrees = 1, all_work = 1;
    for (int t = 0; t < TEAM; t++) {
        team_agrees &= prids[t] == seen.fork_prid[0];
        all_work &= states[t] == THR_WORK_STATE;
    }
    check(team_agrees, "every thread of the team reads the id FORK announced");
    check(all_work, "threads doing user work read THR_WORK_STATE");
    int workers_refused = 1;
    for (int t = 1; t < TEAM; t++)
        workers_refused &= parent_ecs[t] == OMP_ERRCODE_THREAD_ERR;
    check(parent_ecs[0] == OMP_ERRCODE_OK && workers_refused,
          "PARENT_PRID: OK for the master, THREAD_ERR for the other team threads");
    check(seen.fork_parent_ec[0] == OMP_ERRCODE_OK && seen.fork_parent[0] == 0,
          "PARENT_PRID at an outermost FORK is 0");
    uint64_t outer = seen.fork_prid[1];
    int nested_ok = forks >= 4;
    for (int i = 2; i < 4 && i < forks; i++)
        nested_ok &= seen.fork_parent_ec[i] == OMP_ERRCODE_OK && seen.fork_parent[i] == outer;
    check(nested_ok, "PARENT_PRID at a nested FORK is the enclosing region's id");
    int joins = atomic_load(&seen.joins);
    int joins_match = joins == forks;
    for (int i = 0; joins_match && i < joins; i++) {
        int found = 0;
        for (int j = 0; j < forks; j++)
            found |= seen.join_prid[i] == seen.fork_prid[j];
        joins_match &= found;
    }
    check(joins_match, "one JOIN per region, reading the id its FORK announced");

    check(collector_simple(OMP_REQ_STOP) == OMP_ERRCODE_OK, "STOP succeeds");
    plain_region();
    check(atomic_load(&seen.forks) == expected_forks, "no FORK is delivered after STOP");
    check(collector_simple(OMP_REQ_START) == OMP_ERRCODE_OK, "START after STOP succeeds");
    check(collector_register_aligned(OMP_EVENT_FORK, on_fork) == OMP_ERRCODE_OK,
          "REGISTER with the aligned layout succeeds");
    plain_region();
    check(atomic_load(&seen.forks) == expected_forks + 1, "the new session delivers FORK");
    return failures != 0;
}
