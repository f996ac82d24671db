/* record-fuzz.c - libFuzzer target for the loader and the writers: the input patches a record as an observed program could, and the loader and every writer (text, CSV, JSON, folded stacks, SVG, Chrome trace) must take it without a crash, a hang or an unbounded allocation, the JSON ones writing valid JSON. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

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
#include "stacks.h"
#include "writer.h"

#include "fuzz-writers.h"

/*
 * The input is a list of patches, each a 32-bit offset, a 16-bit length
 * and that many bytes, written into the record from process slot 0's
 * start (offsets wrap within the slot and the first PATCHED_ARENA bytes of
 * the arena).  Slot 0 starts as a process that ended with two threads, so
 * a mutation reaches the writers' paths rather than the loader's first
 * refusal.
 */
#define PATCHED_ARENA ((uint64_t)4 << 20)
#define ORIGIN_NS UINT64_C(500000000000)

static int record = -1;
static struct ompc_record_header header;
static FILE *sink;

/* The layout every run uses: sampling, timelines, stacks and event logs, so every loader path is live. */
static void lay_out(void)
{
    ompc_record_layout(&header, OMPC_OPT_SAMPLE | OMPC_OPT_TIMELINE | OMPC_OPT_STACKS | OMPC_OPT_TASKS);
    ompc_record_reserve_event_log(&header, 64 << 10);
    header.interval_ns = 1000000;
    record = memfd_create("record-fuzz", MFD_CLOEXEC);
    sink = fopen("/dev/null", "w");
    if (record < 0 || sink == NULL)
        abort();
}

/* A fresh, all-zero record with the header and a plausible slot 0. */
static void reset(void)
{
    if (ftruncate(record, 0) != 0 || ftruncate(record, (off_t)header.total_size) != 0
        || pwrite(record, &header, sizeof header, 0) != (ssize_t)sizeof header)
        abort();
    static struct ompc_process base; /* too large for a stack */
    memset(&base, 0, offsetof(struct ompc_process, threads));
    base.state = OMPC_PROC_ENDED;
    base.pid = 4242;
    base.parent_slot = base.exec_slot = -1;
    base.origin_ns = ORIGIN_NS;
    base.end_ns = 2000000000;
    base.openmp = 1;
    base.sample_signal = 64;
    base.sampling = OMPC_SAMPLING_ON;
    base.thread_count = 2;
    strcpy(base.program, "fuzzed");
    if (pwrite(record, &base, offsetof(struct ompc_process, threads), (off_t)header.process_offset) < 0)
        abort();
}

/* Applies the input's patches. */
static void patch(const uint8_t *data, size_t size)
{
    uint64_t span = header.process_size + PATCHED_ARENA;
    while (size >= 6) {
        uint32_t offset;
        uint16_t length;
        memcpy(&offset, data, 4);
        memcpy(&length, data + 4, 2);
        data += 6, size -= 6;
        if (length > size)
            length = (uint16_t)size;
        uint64_t at = header.process_offset + offset % span;
        if (at + length > header.total_size)
            length = (uint16_t)(header.total_size - at);
        if (pwrite(record, data, length, (off_t)at) < 0)
            abort();
        data += length, size -= length;
    }
}

/* Every writer that reads only the model: into /dev/null, the JSON ones into memory to be read back. */
static void write_all(struct ompc_model_process *process)
{
    struct ompc_report report;
    memset(&report, 0, sizeof report);
    report.process = process;
    report.sampling = 1;
    report.interval_ns = header.interval_ns;
    report.wall_ns = process->end_ns;
    report.program = process->program;
    report.complete = 1;
    report.end_how = "exit";
    report.fate = "exit status 0";
    report.rank = -1;
    report.host = report.relation = report.runtime_path = report.runtime_file = "";
    report.runtime_version = report.runtime_why = report.shim = report.agent = "";
    report.event_log_bytes = header.event_log_bytes;
    report.list_regions = 1;
    report.stacks = ompc_stacks_build(process);
    report.stacks_asked = 1;
    fuzz_write_process("record-fuzz", &report, sink);
    ompc_stacks_free((struct ompc_stacks *)report.stacks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (record < 0)
        lay_out();
    reset();
    patch(data, size);
    struct ompc_load_bounds bounds = {ORIGIN_NS, ORIGIN_NS + 10000000000u, NULL};
    struct ompc_model_process *process = ompc_load_process(
        record, &header, 0, OMPC_LOAD_TIMELINES | OMPC_LOAD_WHERE | OMPC_LOAD_EVENT_LOGS | OMPC_LOAD_STACKS, &bounds);
    if (process == NULL)
        return 0;
    /* No module file is ever opened: the symbolizer looks under a directory that does not exist. */
    process->symfs = "/nonexistent";
    write_all(process);
    ompc_model_free(process);
    return 0;
}
