/* construct-kinds-t.c - the loader's construct kinds (record version 8): teams and parallel rows and the teams construct a parallel one runs in taken as recorded, forged kinds and links dropped and said, and slots without kinds (versions 6 and 7, or a version-8 slot that ends before them) read as unknown whatever follows them; the text table nests a parallel row under its teams row. */
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

/* Construct rows: their table row, address, kind and link (1 + row) as recorded. */
static const struct {
    int row;
    uint64_t codeptr;
    uint32_t kind, teams;
} rows[] = {
    {3, 0x1000, OMPC_CONSTRUCT_TEAMS, 0},     /* a teams construct */
    {5, 0x2000, OMPC_CONSTRUCT_PARALLEL, 4},  /* ... and the parallel one its teams fork */
    {7, 0x3000, 9, 0},                        /* forged: no such kind */
    {9, 0x4000, OMPC_CONSTRUCT_PARALLEL, 6},  /* forged: links a parallel row */
    {11, 0x5000, OMPC_CONSTRUCT_PARALLEL, 101}, /* forged: links an unused row */
    {12, 0x6000, OMPC_CONSTRUCT_TEAMS, 4},    /* forged: a teams row inside a teams row */
    {13, 0x7000, OMPC_CONSTRUCT_PARALLEL, 0}, /* a parallel construct outside any teams */
};
#define ROWS (sizeof rows / sizeof rows[0])

/* A record of one process with the rows above, its slot `slot` bytes long (the rest follows it, as another slot would); its descriptor. */
static int make_record(struct ompc_record_header *header, uint32_t version, size_t slot)
{
    ompc_record_layout(header, OMPC_OPT_SAMPLE);
    header->interval_ns = 1000000;
    header->version = version;
    header->process_size = (uint32_t)((slot + 4095) / 4096 * 4096);
    header->arena_offset = header->process_offset + (uint64_t)header->process_count * header->process_size;
    header->total_size = header->arena_offset + header->arena_size;
    int fd = memfd_create("construct-kinds-t", MFD_CLOEXEC);
    static struct ompc_process base; /* too large for a stack */
    memset(&base, 0, sizeof base);
    base.state = OMPC_PROC_ENDED;
    base.pid = 4242;
    base.parent_slot = base.exec_slot = -1;
    base.origin_ns = ORIGIN_NS;
    base.end_ns = RUN_NS;
    base.openmp = base.has_sample = 1;
    base.sampling = OMPC_SAMPLING_ON;
    base.thread_count = 1;
    strcpy(base.program, "kinds");
    base.threads[0] = (struct ompc_thread){.tid = 4242, .initial = 1, .status = OMPC_SLOT_EXITED, .end_ns = RUN_NS};
    for (size_t i = 0; i < ROWS; i++) {
        struct ompc_construct *row = &base.constructs[rows[i].row];
        row->codeptr = rows[i].codeptr;
        row->forks = row->joins = 10 + i;
        row->time_ns = 1000000 * (ROWS - i);
        base.construct_kinds[rows[i].row] = (struct ompc_construct_kind){rows[i].kind, rows[i].teams};
    }
    if (fd < 0 || ftruncate(fd, (off_t)header->total_size) != 0
        || pwrite(fd, header, sizeof *header, 0) != (ssize_t)sizeof *header
        || pwrite(fd, &base, slot, (off_t)header->process_offset) != (ssize_t)slot
        || pwrite(fd, (char *)&base + slot, sizeof base - slot, (off_t)(header->process_offset + slot)) < 0)
        tap_bail("cannot make the record");
    return fd;
}

static struct ompc_model_process *load(uint32_t version, size_t slot)
{
    struct ompc_record_header header;
    int fd = make_record(&header, version, slot);
    struct ompc_load_bounds bounds = {ORIGIN_NS, ORIGIN_NS + RUN_NS, NULL};
    const char *refused = ompc_record_check(&header, header.total_size);
    struct ompc_model_process *process = refused == NULL ? ompc_load_process(fd, &header, 0, 0, &bounds) : NULL;
    close(fd);
    if (process == NULL)
        tap_bail("the loader refused a version-%u record: %s", version, refused ? refused : "out of memory");
    return process;
}

/* The model row of `codeptr`, or NULL. */
static const struct ompc_model_construct *row_of(const struct ompc_model_process *process, uint64_t codeptr)
{
    for (uint32_t i = 0; i < process->construct_count; i++)
        if (process->constructs[i].codeptr == codeptr)
            return &process->constructs[i];
    return NULL;
}

/* The text report's construct table, malloc'd. */
static char *construct_table(const struct ompc_model_process *process)
{
    struct ompc_report report = {.process = process, .sampling = 1, .interval_ns = 1000000, .wall_ns = RUN_NS,
                                 .program = "kinds", .complete = 1, .end_how = "exit", .fate = "", .rank = -1};
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
    const char *from = strstr(all, "\nParallel constructs");
    const char *to = from != NULL ? strstr(from, "\n\n") : NULL;
    char *table = strndup(from != NULL ? from : "", to != NULL ? (size_t)(to - from) : 0);
    free(all);
    return table;
}

/* Whether every row reads unknown and unlinked, and nothing was called damage. */
static int all_unknown(const struct ompc_model_process *process)
{
    for (uint32_t i = 0; i < process->construct_count; i++)
        if (process->constructs[i].kind != OMPC_CONSTRUCT_UNKNOWN || process->constructs[i].teams != 0)
            return 0;
    return process->construct_count == ROWS && process->damage.count == 0;
}

int main(void)
{
    tap_plan(7);
    struct ompc_model_process *process = load(OMPC_RECORD_VERSION, sizeof(struct ompc_process));
    const struct ompc_model_construct *teams = row_of(process, 0x1000), *inner = row_of(process, 0x2000);
    tap_ok(teams != NULL && inner != NULL && teams->kind == OMPC_CONSTRUCT_TEAMS && teams->teams == 0
               && inner->kind == OMPC_CONSTRUCT_PARALLEL && inner->teams == (uint32_t)(teams - process->constructs) + 1
               && row_of(process, 0x7000)->kind == OMPC_CONSTRUCT_PARALLEL && row_of(process, 0x7000)->teams == 0,
           "a teams row, the parallel row its teams fork linked to it, a parallel row outside: as recorded");
    tap_ok(row_of(process, 0x3000)->kind == OMPC_CONSTRUCT_UNKNOWN && row_of(process, 0x4000)->teams == 0
               && row_of(process, 0x5000)->teams == 0 && row_of(process, 0x6000)->teams == 0
               && row_of(process, 0x6000)->kind == OMPC_CONSTRUCT_TEAMS,
           "a kind no build knows reads unknown; links to a parallel row, an unused row, or from a teams row are dropped");
    tap_ok(process->damage.count == 1 && strstr(process->damage.text, "4 construct kinds or teams links") != NULL,
           "... and the report says so: %s", process->damage.text);
    char *table = construct_table(process);
    const char *at = strstr(table, "\n  teams 0x");
    if (!tap_ok(at != NULL && strncmp(strchr(at + 1, '\n'), "\n    parallel 0x", 15) == 0
                    && strstr(table, "indented row is a parallel construct") != NULL,
                "the text table shows the parallel row indented right under its teams row"))
        tap_diag("%s", table);
    free(table);
    ompc_model_free(process);

    process = load(OMPC_RECORD_VERSION, OMPC_PROCESS_SIZE_NO_KINDS);
    tap_ok(all_unknown(process), "a version-8 slot that ends before the kinds: every kind unknown, whatever follows it");
    ompc_model_free(process);
    process = load(OMPC_RECORD_VERSION_NO_MPI_CALLS, OMPC_PROCESS_SIZE_NO_MPI_CALLS);
    tap_ok(all_unknown(process), "a version-7 record: every kind unknown, whatever follows its slot");
    ompc_model_free(process);
    process = load(OMPC_RECORD_VERSION_NO_SERIAL, OMPC_PROCESS_SIZE_NO_SERIAL);
    tap_ok(all_unknown(process), "a version-6 record: every kind unknown, whatever follows its slot");
    ompc_model_free(process);
    return tap_done();
}
