/* mpi-load-t.c - the loader's MPI rows (record version 6): measured counts kept as they are and shown in the MPI column, forged ones held to what can be and said, and a version-5 record, which has no MPI fields, read with them zero whatever follows its slot; beside them, a thread's WORK samples in the runtime's code held to its WORK samples. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/tap.h"
#include "load.h"
#include "omp_collector_api.h"
#include "record.h"
#include "report.h"
#include "sections.h"
#include "summary.h"

#define ORIGIN_NS UINT64_C(500000000000)
#define RUN_NS UINT64_C(2000000000)

/* What one thread's MPI row holds, its samples in WORK (of 2000), and of them in the runtime's code. */
struct row {
    uint64_t work, ticks, ns, calls;
    uint32_t runtime;
};

/* A record of one process that ran 2 s on two threads with these MPI rows, as `version` lays it out; its descriptor. */
static int make_record(struct ompc_record_header *header, uint32_t version, const struct row rows[2])
{
    ompc_record_layout(header, OMPC_OPT_SAMPLE);
    header->interval_ns = 1000000;
    if (version == OMPC_RECORD_VERSION_NO_MPI) {
        /* The older layout: a slot that ends before the MPI fields, and whatever comes after it. */
        header->version = version;
        header->process_size = (uint32_t)((OMPC_PROCESS_SIZE_NO_MPI + 4095) / 4096 * 4096);
        header->arena_offset = header->process_offset + (uint64_t)header->process_count * header->process_size;
        header->total_size = header->arena_offset + header->arena_size;
    }
    int fd = memfd_create("mpi-load-t", MFD_CLOEXEC);
    static struct ompc_process base; /* too large for a stack */
    memset(&base, 0, sizeof base);
    base.state = OMPC_PROC_ENDED;
    base.pid = 4242;
    base.parent_slot = base.exec_slot = -1;
    base.origin_ns = ORIGIN_NS;
    base.end_ns = RUN_NS;
    base.openmp = base.mpi_active = 1;
    base.sampling = OMPC_SAMPLING_ON;
    base.thread_count = 2;
    strcpy(base.program, "mpi");
    for (int i = 0; i < 2; i++) {
        struct ompc_thread *thread = &base.threads[i];
        thread->tid = 4242 + i;
        thread->initial = i == 0;
        thread->status = OMPC_SLOT_EXITED;
        thread->end_ns = RUN_NS;
        thread->signals = thread->ticks = 2000;
        thread->state_ticks[THR_WORK_STATE] = rows[i].work;
        thread->runtime_work_ticks = rows[i].runtime;
        base.mpi_threads[i] = (struct ompc_mpi_thread){rows[i].ns, rows[i].calls, rows[i].ticks, 0};
    }
    /* A version-5 slot is followed by the next slot: bytes the loader must not take for MPI counts. */
    size_t slot = version == OMPC_RECORD_VERSION_NO_MPI ? OMPC_PROCESS_SIZE_NO_MPI : sizeof base;
    if (fd < 0 || ftruncate(fd, (off_t)header->total_size) != 0
        || pwrite(fd, header, sizeof *header, 0) != (ssize_t)sizeof *header
        || pwrite(fd, &base, slot, (off_t)header->process_offset) != (ssize_t)slot
        || pwrite(fd, &base.mpi_active, sizeof base - slot, (off_t)(header->process_offset + slot)) < 0)
        tap_bail("cannot make the record");
    return fd;
}

static struct ompc_model_process *load(uint32_t version, const struct row rows[2])
{
    struct ompc_record_header header;
    int fd = make_record(&header, version, rows);
    struct ompc_load_bounds bounds = {ORIGIN_NS, ORIGIN_NS + RUN_NS, NULL};
    const char *refused = ompc_record_check(&header, header.total_size);
    struct ompc_model_process *process = refused == NULL ? ompc_load_process(fd, &header, 0, 0, &bounds) : NULL;
    close(fd);
    if (process == NULL)
        tap_bail("the loader refused a version-%u record: %s", version, refused ? refused : "out of memory");
    return process;
}

/* The text report, malloc'd. */
static char *text_report(const struct ompc_model_process *process)
{
    struct ompc_report report = {.process = process, .sampling = 1, .interval_ns = 1000000, .wall_ns = RUN_NS,
                                 .program = "mpi", .complete = 1, .end_how = "exit", .fate = "", .rank = -1};
    report.host = report.relation = report.runtime_path = report.runtime_file = "";
    report.runtime_version = report.runtime_why = report.shim = report.agent = "";
    struct summary summary;
    char *all = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&all, &length);
    if (out == NULL || ompc_summarise(&report, &summary) != 0)
        tap_bail("cannot summarise");
    ompc_report_text(&summary, out);
    ompc_summary_release(&summary);
    fclose(out);
    return all;
}

/* The text report's thread table rows ("  0* ..."), into `text`. */
static void thread_rows(const struct ompc_model_process *process, char *text, size_t size)
{
    char *all = text_report(process);
    const char *from = strstr(all, "\n  thread ");
    const char *to = from != NULL ? strstr(from, "\n  all") : NULL;
    snprintf(text, size, "%.*s", to != NULL ? (int)(strchr(to + 1, '\n') - from) : 0, from != NULL ? from : "");
    free(all);
}

int main(void)
{
    tap_plan(10);
    const struct row measured[2] = {{1600, 400, 500000000, 10, 0}, {2000, 0, 0, 0, 0}};
    struct ompc_model_process *process = load(OMPC_RECORD_VERSION, measured);
    const struct ompc_model_thread *t = process->threads;
    tap_ok(process->damage.count == 0 && process->mpi_active && t[0].mpi_ticks == 400 && t[0].mpi_ns == 500000000
               && t[0].mpi_calls == 10 && t[1].mpi_ticks == 0,
           "measured MPI rows are taken as they are (damage: %s)", process->damage.text);
    char rows[2048];
    thread_rows(process, rows, sizeof rows);
    if (!tap_ok(strstr(rows, "   MPI\n") != NULL
                    && strstr(rows, "80.0     .     .     .     .     .     .     .     .     .  20.0\n") != NULL
                    && strstr(rows, "  all") != NULL && strstr(rows, "  10.0") != NULL,
                "the text report's MPI column: thread 0's 400 of 2000 samples, 10%% of all"))
        tap_diag("%s", rows);
    ompc_model_free(process);

    const struct row forged[2] = {{1800, 400, 5000000000, 3, 0}, {1500, 100, 7, 0, 0}};
    process = load(OMPC_RECORD_VERSION, forged);
    t = process->threads;
    tap_is_int((long long)t[0].mpi_ticks, 200, "samples in MPI beyond what the timer counted less the states are held to it");
    tap_ok(t[0].mpi_ns == RUN_NS && t[1].mpi_ns == 0 && t[1].mpi_ticks == 100,
           "MPI time past the run is held to it, time without a call is none");
    tap_ok(process->damage.count == 1 && strstr(process->damage.text, "3 MPI counts of threads that cannot be") != NULL,
           "... and the report says so: %s", process->damage.text);
    ompc_model_free(process);

    process = load(OMPC_RECORD_VERSION_NO_MPI, measured);
    t = process->threads;
    tap_ok(process->damage.count == 0 && !process->mpi_active && t[0].mpi_ticks == 0 && t[0].mpi_ns == 0
               && t[0].state_ticks[THR_WORK_STATE] == 1600,
           "a version-5 record is read without MPI counts, whatever follows its slot");
    ompc_model_free(process);

    /* The runtime's code is where a thread works: 600 of 1600 WORK samples stay, 2500 of 2000 cannot be. */
    const struct row runtime[2] = {{1600, 400, 500000000, 10, 600}, {2000, 0, 0, 0, 2500}};
    process = load(OMPC_RECORD_VERSION, runtime);
    t = process->threads;
    tap_ok(t[0].runtime_work_ticks == 600 && t[1].runtime_work_ticks == 2000,
           "WORK samples in the runtime's code are taken, held to the thread's WORK samples (got %llu, %llu)",
           (unsigned long long)t[0].runtime_work_ticks, (unsigned long long)t[1].runtime_work_ticks);
    tap_ok(process->damage.count == 1 && strstr(process->damage.text, "thread 1 claims more WORK samples in the runtime") != NULL,
           "... and the report says so: %s", process->damage.text);
    ompc_model_free(process);

    /* Every sample in MPI: no state to derive the efficiency metrics from. */
    const struct row all_mpi[2] = {{0, 2000, 1900000000, 5, 0}, {0, 2000, 1900000000, 5, 0}};
    process = load(OMPC_RECORD_VERSION, all_mpi);
    char *report = text_report(process);
    if (!tap_ok(strstr(report, "nan") == NULL && strstr(report, "MPI 100.0%") != NULL,
                "a process whose every sample is in MPI: the report has no efficiency figure of nothing"))
        tap_diag("%s", report);
    free(report);
    struct ompc_record_header header;
    ompc_record_layout(&header, OMPC_OPT_SAMPLE);
    header.version = OMPC_RECORD_VERSION_NO_MPI - 1;
    tap_ok(ompc_record_check(&header, header.total_size) != NULL, "a version-4 record is refused");
    ompc_model_free(process);
    return tap_done();
}
