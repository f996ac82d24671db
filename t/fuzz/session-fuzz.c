/* session-fuzz.c - libFuzzer target for `ompcollect report` of a damaged saved run: the session reader, the loader and every writer (the OTF2 archive too) take any file without a crash, a hang, undefined behaviour or an unbounded allocation, the JSON ones writing valid JSON. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The input is the bytes of one saved run (ompcollect --save).  What
 * ompc_session_open refuses is refused; otherwise its first slots are
 * loaded as the launcher loads them (the run's bounds, one owner for each
 * byte of the record) and written by every writer, as `ompcollect report`
 * with every output would, with the facts the saved run gives (its
 * real-time offset reaches the OTF2 clock: a forged INT64_MIN once was a
 * negation UBSan found).
 */
#define _GNU_SOURCE 1
#include <config.h>

#include <ftw.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load.h"
#include "record.h"
#include "report.h"
#include "run.h"
#include "session.h"
#include "stacks.h"
#include "writer.h"

#include "fuzz-writers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Slots looked at: a saved run has at most OMPC_MAX_PROCESSES, and every one is read the same way. */
#define SLOTS 4

static FILE *sink;
static char scratch[] = "/tmp/session-fuzz.XXXXXX";

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *where)
{
    (void)info, (void)flag, (void)where;
    return remove(path);
}

/* The report of one loaded process, as `ompcollect report` fills it from the saved run. */
static void write_all(const struct run *run, struct ompc_model_process *process)
{
    struct ompc_report report;
    memset(&report, 0, sizeof report);
    report.process = process;
    report.sampling = run->sampling;
    report.interval_ns = run->interval_ns;
    report.wall_ns = process->end_ns;
    report.realtime_offset_ns = run->realtime_offset_ns;
    report.program = process->program;
    report.end_how = "exit";
    report.fate = "exit status 0";
    report.rank = run->rank.rank;
    report.host = report.relation = report.runtime_path = report.runtime_file = "";
    report.runtime_version = report.runtime_why = report.shim = report.agent = "";
    report.event_log_bytes = run->header.event_log_bytes;
    report.list_regions = 1;
    report.stacks = ompc_stacks_build(process);
    report.stacks_asked = 1;
    fuzz_write_process("session-fuzz", &report, sink);
#ifdef HAVE_OTF2
    char error[512];
    if (ompc_write_otf2(&report, scratch, "traces", error, sizeof error) != 0 && strstr(error, "usable thread") == NULL
        && strstr(error, "libotf2") == NULL) {
        fprintf(stderr, "session-fuzz: the OTF2 writer failed: %s\n", error);
        abort();
    }
    nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
#endif
    ompc_stacks_free((struct ompc_stacks *)report.stacks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (sink == NULL && ((sink = fopen("/dev/null", "w")) == NULL || mkdtemp(scratch) == NULL))
        abort();
    int file = memfd_create("session-fuzz", MFD_CLOEXEC);
    if (file < 0 || write(file, data, size) != (ssize_t)size)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", file);
    struct run run;
    memset(&run, 0, sizeof run);
    run.record_fd = -1;
    run.session = ompc_session_new();
    char error[512];
    if (run.session == NULL)
        abort();
    if (ompc_session_open(path, &run, error, sizeof error) == 0) {
        struct ompc_load_claims claims = {NULL, 0};
        struct ompc_load_bounds bounds = {run.start_ns, run.end_ns, &claims};
        unsigned what = OMPC_LOAD_TIMELINES | OMPC_LOAD_WHERE | OMPC_LOAD_EVENT_LOGS | OMPC_LOAD_STACKS;
        for (uint32_t i = 0; i < run.header.process_count && i < SLOTS; i++) {
            struct ompc_slot_head head;
            if (ompc_load_head(run.record_fd, &run.header, i, &head) != 0 || head.state == OMPC_PROC_FREE)
                break;
            struct ompc_model_process *process = ompc_load_process(run.record_fd, &run.header, i, what, &bounds);
            if (process == NULL)
                abort();
            /* No module file is ever opened: the symbolizer looks under a directory that does not exist. */
            process->symfs = "/nonexistent";
            write_all(&run, process);
            ompc_model_free(process);
        }
        ompc_load_claims_free(&claims);
    }
    /* A refusal after the record was rebuilt leaves it open (the launcher exits then). */
    if (run.record_fd >= 0)
        close(run.record_fd);
    free(run.reaped);
    ompc_session_free(run.session);
    close(file);
    return 0;
}
