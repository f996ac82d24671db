/* record-damage.c - writes a copy of a saved run whose record is damaged one named way (strings, counts, tables, logs, task rows, task stacks, serial places, MPI call sites), as an observed program could damage it, for t/record-damage-t.sh. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "omp_collector_api.h"
#include "record.h"
#include "run.h"
#include "session.h"

/* One way to damage process slot 0 of a mapped record. */
struct damage {
    const char *name;
    void (*apply)(struct ompc_record_header *header, struct ompc_process *process);
};

static void strings(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    memset(process->program, 0xff, sizeof process->program);
    memset(process->runtime, 'r', sizeof process->runtime);
    memset(process->attach_error, 0x80, sizeof process->attach_error);
    memset(process->modules[0].path, 'm', sizeof process->modules[0].path);
}

static void threads_negative(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    atomic_store(&process->thread_count, -5);
}

static void threads_huge(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    atomic_store(&process->thread_count, 1 << 30);
}

static void counts_huge(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    atomic_store(&process->module_count, 1000000);
    process->request_count = 1000000;
    process->task_request_count = -3;
    process->parent_slot = 1000000;
    process->exec_slot = -100;
    atomic_store(&process->state, 77);
}

/* The stack table of thread 0 claims a pool as large as the arena. */
static void stack_size(struct ompc_record_header *header, struct ompc_process *process)
{
    uint64_t offset = atomic_load(&process->threads[0].stacks);
    if (offset == 0 || !ompc_record_in_arena(header, offset, sizeof(struct ompc_stack_table))) {
        fprintf(stderr, "record-damage: the saved run has no stack table to damage\n");
        exit(2);
    }
    struct ompc_stack_table *table = (struct ompc_stack_table *)((char *)header + offset);
    table->pool_words = header->arena_size / 8;
    atomic_store(&table->pool_used, header->arena_size / 8);
    atomic_store(&table->entries, UINT64_MAX);
}

/*
 * Thread 0 gets stack copies (--stacks-unwind=dwarf) the way a scribbling
 * program could leave them: a copy whose registers point anywhere and
 * whose bytes are noise, then one claiming gigabytes of stack.
 */
static void stack_copies(struct ompc_record_header *header, struct ompc_process *process)
{
    uint64_t table_offset = atomic_load(&process->threads[0].stacks);
    uint64_t offset = ompc_record_alloc(header, OMPC_STACK_COPIES_BYTES);
    if (table_offset == 0 || offset == 0) {
        fprintf(stderr, "record-damage: the saved run has no stack table or no arena room for copies\n");
        exit(2);
    }
    header->flags |= OMPC_OPT_STACKS_DWARF;
    struct ompc_stack_table *table = (struct ompc_stack_table *)((char *)header + table_offset);
    struct ompc_stack_copies *copies = (struct ompc_stack_copies *)((char *)header + offset);
    if (atomic_load(&table->pool_used) == 0) {
        fprintf(stderr, "record-damage: thread 0's stack table is empty\n");
        exit(2);
    }
    copies->capacity = OMPC_STACK_COPIES_BYTES - sizeof *copies;
    unsigned char *pool = (unsigned char *)(copies + 1);
    /* It refines the table's first sample, so the unwinder meets the noise. */
    uint64_t first = table_offset + sizeof *table + (uint64_t)table->index_slots * sizeof(uint32_t);
    struct ompc_stack_copy noise = {.state = 1, .bytes = 256, .entry = first};
    atomic_store(&noise.count, 7);
    for (int i = 0; i < OMPC_COPY_REGS; i++)
        noise.regs[i] = UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(i + 1);
    memcpy(pool, &noise, sizeof noise);
    for (uint32_t i = 0; i < noise.bytes; i++)
        pool[sizeof noise + i] = (unsigned char)(i * 131u);
    struct ompc_stack_copy forged = noise;
    forged.bytes = 0xFFFFFFF8u;
    memcpy(pool + sizeof noise + noise.bytes, &forged, sizeof forged);
    atomic_store(&copies->used, 2 * sizeof noise + noise.bytes + 64);
    atomic_store(&table->copies, offset);
}

/* Times far past any run: the process's end, every thread's, every timeline entry's and region's. */
static void times(struct ompc_record_header *header, struct ompc_process *process)
{
    const uint64_t far = UINT64_C(1) << 62;
    atomic_store(&process->end_ns, far);
    atomic_store(&process->alive_ns, far);
    for (int i = 0; i < atomic_load(&process->thread_count) && i < OMPC_MAX_THREADS; i++) {
        struct ompc_thread *thread = &process->threads[i];
        atomic_store(&thread->end_ns, far);
        atomic_store(&thread->last_sample_ns, far);
        thread->start_ns = far;
        uint64_t timeline = atomic_load(&thread->timeline);
        uint32_t length = atomic_load(&thread->timeline_length);
        if (timeline != 0 && ompc_record_in_arena(header, timeline, (uint64_t)OMPC_TIMELINE_CAP * 8))
            for (uint32_t k = length / 2; k < length && k < OMPC_TIMELINE_CAP; k++)
                ((uint64_t *)((char *)header + timeline))[k] = (far >> 8) << 8 | 2;
    }
    for (int i = 0; i < OMPC_MAX_REGIONS; i++)
        if (atomic_load(&process->regions[i].id) != 0)
            atomic_store(&process->regions[i].fork_ns, far);
}

/* Timelines and event logs that claim more than they hold, and entries that are no state or event. */
static void logs(struct ompc_record_header *header, struct ompc_process *process)
{
    for (int i = 0; i < atomic_load(&process->thread_count) && i < OMPC_MAX_THREADS; i++) {
        struct ompc_thread *thread = &process->threads[i];
        uint64_t timeline = atomic_load(&thread->timeline);
        if (i == 0)
            atomic_store(&thread->timeline_length, UINT32_MAX);
        else if (timeline != 0 && ompc_record_in_arena(header, timeline, 8))
            *(uint64_t *)((char *)header + timeline) = 99;
        if (i == 0)
            atomic_store(&thread->event_log_length, thread->event_log_capacity + 1);
        else
            atomic_store(&thread->event_log, header->total_size - 8);
    }
}

/* Wait slots in states that are none of the 11 (a fuzzer's finding: the sort of waits overflowed). */
static void waits(struct ompc_record_header *header, struct ompc_process *process)
{
    uint64_t offset = atomic_load(&process->threads[0].waits);
    if (offset == 0 || !ompc_record_in_arena(header, offset, OMPC_WAIT_SLOTS * sizeof(struct ompc_wait))) {
        fprintf(stderr, "record-damage: the saved run has no wait table to damage\n");
        exit(2);
    }
    struct ompc_wait *table = (struct ompc_wait *)((char *)header + offset);
    atomic_store(&table[0].state, 0x7fffffff);
    atomic_store(&table[0].ticks, 5);
    atomic_store(&table[1].state, 0x80000001u);
    atomic_store(&table[1].ticks, 7);
}

/*
 * Per-thread tables the program moved: a wait table past the record's
 * end, construct counters inside the header, and counters for construct
 * rows nobody claimed.
 */
static void tables(struct ompc_record_header *header, struct ompc_process *process)
{
    atomic_store(&process->threads[0].waits, header->total_size - 64);
    int count = atomic_load(&process->thread_count);
    if (count > 1) {
        atomic_store(&process->threads[1].construct_work, 8);
    }
    for (int i = 2; i < count; i++) {
        uint64_t offset = atomic_load(&process->threads[i].construct_work);
        if (offset == 0 || !ompc_record_in_arena(header, offset, OMPC_MAX_CONSTRUCTS * sizeof(uint64_t)))
            continue;
        uint64_t *counts = (uint64_t *)((char *)header + offset);
        for (int c = 0; c < OMPC_MAX_CONSTRUCTS; c++)
            if (atomic_load(&process->constructs[c].codeptr) == 0)
                counts[c] = 1000;
    }
}

/* A thread's event log, with its length (NULL: none in the record). */
static struct ompc_event_entry *event_log(struct ompc_record_header *header, struct ompc_thread *thread,
                                          uint32_t *length)
{
    uint64_t offset = atomic_load(&thread->event_log);
    *length = atomic_load(&thread->event_log_length);
    if (offset == 0 || *length == 0 || *length > thread->event_log_capacity
        || !ompc_record_in_arena(header, offset, (uint64_t)*length * sizeof(struct ompc_event_entry)))
        return NULL;
    return (struct ompc_event_entry *)((char *)header + offset);
}

/*
 * Task events (a saved run with tasks traced) as a program could forge
 * them: a task created twice, a run ended that never began, runs begun
 * and never ended, nested deeper than any program, an entry that names
 * no task, and (thread 1's last) a run's end that says it ends neither a
 * part nor the task.
 */
static void tasks(struct ompc_record_header *header, struct ompc_process *process)
{
    int count = atomic_load(&process->thread_count), damaged = 0;
    for (int i = 0; i < count && i < OMPC_MAX_THREADS; i++) {
        uint32_t length;
        struct ompc_event_entry *log = event_log(header, &process->threads[i], &length);
        struct ompc_event_entry *first_create = NULL;
        for (uint32_t k = 0; log != NULL && k < length; k++) {
            int code = OMPC_EVENT_CODE(&log[k]);
            if ((code == 24 || code == 25) && first_create == NULL) {
                first_create = &log[k];
            } else if ((code == 24 || code == 25) && first_create->task != log[k].task) {
                log[k].task = first_create->task;
                damaged |= 1;
            } else if (code == 34 && !(damaged & 2)) {
                log[k].task = UINT64_C(0xdeadbeef);
                damaged |= 2;
            } else if (k > length / 2 && k + 1 < length) {
                log[k].when = (log[k].when & ~UINT64_C(0xff)) | 33;
                log[k].task = UINT64_C(1) << 40 | k;
                damaged |= 4;
            } else if (k + 1 == length && i == 1) {
                log[k].when = (log[k].when & ~UINT64_C(0xff)) | 34;
                log[k].task = 0;
                log[k].ends = 0x99;
                damaged |= 16;
            } else if (k + 1 == length) {
                log[k].when = (log[k].when & ~UINT64_C(0xff)) | 33;
                log[k].task = 0;
                damaged |= 8;
            }
        }
    }
    if (damaged != 31) {
        fprintf(stderr, "record-damage: the saved run has no task events to damage (%d)\n", damaged);
        exit(2);
    }
}

/*
 * Not damage: thread 0's task runs all end as parts (an untied task's,
 * whose completing part the log lost), as the COMPLETING flag would log
 * them.  Prints how many runs it marked so.
 */
static void task_parts(struct ompc_record_header *header, struct ompc_process *process)
{
    uint32_t length;
    struct ompc_event_entry *log = event_log(header, &process->threads[0], &length);
    unsigned marked = 0;
    for (uint32_t k = 0; log != NULL && k < length; k++)
        if (OMPC_EVENT_CODE(&log[k]) == 34) {
            log[k].ends = OMPC_TASK_END_PART;
            marked++;
        }
    if (marked == 0) {
        fprintf(stderr, "record-damage: thread 0 of the saved run ends no task run\n");
        exit(2);
    }
    printf("%u\n", marked);
}

/*
 * Task construct rows with counts that cannot be (more undeferred than
 * created, more timed runs than runs, a run longer than their sum and the
 * whole run) and a thread claiming more completed tasks than finishes.
 */
static void task_sites(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    atomic_store(&process->has_task_info, 1);
    struct ompc_task_construct *row = &process->task_constructs[7];
    atomic_store(&row->codeptr, 0x401000);
    atomic_store(&row->created, 3);
    atomic_store(&row->undeferred, 9);
    atomic_store(&row->runs, 2);
    atomic_store(&row->timed_runs, 5);
    atomic_store(&row->exec_ns, 10);
    atomic_store(&row->max_ns, UINT64_MAX / 2);
    row = &process->task_constructs[OMPC_MAX_TASK_CONSTRUCTS - 1];
    atomic_store(&row->codeptr, UINT64_MAX);
    atomic_store(&row->created, UINT64_MAX);
    atomic_store(&row->completed, UINT64_MAX);
    atomic_store(&process->threads[0].task_events[OMP_EVENT_THR_BEGIN_CREATE_TASK - OMPC_TASK_EVENT_FIRST], 3);
    atomic_store(&process->threads[0].task_events[OMP_EVENT_THR_BEGIN_FINISH_TASK - OMPC_TASK_EVENT_FIRST], 5);
    atomic_store(&process->threads[0].task_completions, 1000);
    atomic_store(&process->task_constructs_dropped, 12);
}

/*
 * A thread's pending task creations (record.h) naming a task construct row
 * no construct holds, beside its real ones: the loader refuses the
 * thread's entries whole and says so.  Only a slot laid out with them.
 */
static void task_pending(struct ompc_record_header *header, struct ompc_process *process)
{
    if (header->process_size < sizeof *process) {
        fprintf(stderr, "record-damage: the saved run's slots end before the pending task creations\n");
        exit(1);
    }
    int unused = OMPC_MAX_TASK_CONSTRUCTS - 1;
    while (unused > 0 && atomic_load(&process->task_constructs[unused].codeptr) != 0)
        unused--;
    struct ompc_task_pending *pending = &process->task_pending[0];
    int k = OMPC_TASK_PENDING_ROWS - 1;
    atomic_store(&pending->row[k], 1 + unused);
    atomic_store(&pending->created[k], 5);
    atomic_store(&pending->undeferred[k], 0);
}

/* The first used row of the serial code table (version 7 on), or NULL when the run kept none. */
static struct ompc_place *serial_place(struct ompc_record_header *header, struct ompc_process *process)
{
    for (int i = 0; header->version > OMPC_RECORD_VERSION_NO_SERIAL && i < OMPC_SERIAL_PLACES; i++)
        if (atomic_load(&process->serial_places[i].ticks) > 7)
            return &process->serial_places[i];
    fprintf(stderr, "record-damage: the saved run has no serial code places to damage\n");
    exit(1);
}

/* A place that counts more samples than the threads' SERIAL ones: the table is ignored, and said. */
static void serial_places(struct ompc_record_header *header, struct ompc_process *process)
{
    atomic_store(&serial_place(header, process)->ticks, UINT64_MAX / 3);
}

/* Not damage but a limit: 7 samples moved from a place to the count the table could not place. */
static void serial_limit(struct ompc_record_header *header, struct ompc_process *process)
{
    atomic_fetch_sub(&serial_place(header, process)->ticks, 7);
    atomic_fetch_add(&process->serial_places_dropped, 7);
}

/* The MPI call site table's rows in use (version 8 on), or exits when the saved run has none. */
static struct ompc_mpi_site *mpi_site(struct ompc_record_header *header, struct ompc_process *process, int nth)
{
    for (int i = 0; header->version > OMPC_RECORD_VERSION_NO_MPI_CALLS && i < OMPC_MPI_SITES; i++)
        if (atomic_load(&process->mpi_sites[i].key) != 0 && nth-- == 0)
            return &process->mpi_sites[i];
    fprintf(stderr, "record-damage: the saved run has too few MPI call sites to damage\n");
    exit(1);
}

/* A row naming no MPI call, a row longer than every thread's MPI time, and MPI_Init and MPI_Finalize longer than the run. */
static void mpi_sites(struct ompc_record_header *header, struct ompc_process *process)
{
    struct ompc_mpi_site *row = mpi_site(header, process, 0);
    uint64_t key = atomic_load(&row->key);
    atomic_store(&row->key, (key & ((UINT64_C(1) << 48) - 1)) | UINT64_C(0xFFFE) << 48);
    atomic_store(&mpi_site(header, process, 1)->ns, UINT64_MAX / 2);
    atomic_store(&process->mpi_setup_ns, UINT64_MAX);
}

/* More calls past the table than the threads made, the rows themselves sound. */
static void mpi_dropped(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)mpi_site(header, process, 2);
    atomic_store(&process->mpi_sites_dropped, UINT64_MAX / 2);
}

/*
 * Every thread of a full team shares thread 0's tables, and an event log
 * of 16 MiB of well-formed events: a record of some 20 MB that would cost
 * gigabytes if each thread's log were read and drawn on its own.
 */
static void alias(struct ompc_record_header *header, struct ompc_process *process)
{
    const uint64_t bytes = (uint64_t)16 << 20;
    uint64_t offset = ompc_record_alloc(header, bytes);
    if (offset == 0 || atomic_load(&process->thread_count) < 1) {
        fprintf(stderr, "record-damage: the saved run has no thread or no arena room for a log\n");
        exit(2);
    }
    header->event_log_bytes = bytes;
    struct ompc_event_entry *log = (struct ompc_event_entry *)((char *)header + offset);
    uint32_t capacity = (uint32_t)(bytes / sizeof *log);
    uint64_t start = process->threads[0].start_ns;
    for (uint32_t k = 0; k < capacity; k++)
        log[k] = (struct ompc_event_entry){.when = (start + k) << 8 | (k % 2 ? 2 : 1)};
    struct ompc_thread *first = &process->threads[0];
    atomic_store(&first->event_log, offset);
    first->event_log_capacity = capacity;
    atomic_store(&first->event_log_length, capacity);
    for (int i = 1; i < OMPC_MAX_THREADS; i++)
        memcpy(&process->threads[i], first, sizeof *first);
    atomic_store(&process->thread_count, OMPC_MAX_THREADS);
}

/* Every module names the file in $OMPC_DAMAGE_PATH (a FIFO, in the test): the launcher must not open it as an ELF file. */
static void module_path(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    const char *path = getenv("OMPC_DAMAGE_PATH");
    if (path == NULL || strlen(path) >= OMPC_MODULE_PATH) {
        fprintf(stderr, "record-damage: module-path needs OMPC_DAMAGE_PATH (under %d bytes)\n", OMPC_MODULE_PATH);
        exit(2);
    }
    for (uint32_t i = 0; i < atomic_load(&process->module_count) && i < OMPC_MAX_MODULES; i++)
        snprintf(process->modules[i].path, sizeof process->modules[i].path, "%s", path);
}

/* Names that would drive a terminal: an OSC title, a screen clear, a C1 CSI (in UTF-8 and as an 8-bit byte) and a bidi override, in the program's and modules' names. */
static void terminal(struct ompc_record_header *header, struct ompc_process *process)
{
    (void)header;
    static const char evil[] = "evil\x1b]0;owned\x07\x1b[2J\r\xc2\x9b" "31m\xe2\x80\xae" "exe\x9b" "0m\xff";
    snprintf(process->program, sizeof process->program, "%s", evil);
    /* Not the launched process, so the report names it by the record's program name, not the command line. */
    process->pid += 1;
    for (uint32_t i = 0; i < atomic_load(&process->module_count) && i < OMPC_MAX_MODULES; i++)
        snprintf(process->modules[i].path, sizeof process->modules[i].path, "/tmp/%s%u", evil, i);
}

/*
 * Region ids past 2^63-1, in the region table and in the parallel events
 * of the threads' logs (a fuzzer's finding: the Chrome trace wrote them as
 * numbers jansson refuses).
 */
static void region_ids(struct ompc_record_header *header, struct ompc_process *process)
{
    unsigned changed = 0;
    for (int i = 0; i < OMPC_MAX_REGIONS; i++)
        if (atomic_load(&process->regions[i].id) != 0)
            atomic_fetch_or(&process->regions[i].id, UINT64_C(1) << 63);
    for (int t = 0; t < atomic_load(&process->thread_count) && t < OMPC_MAX_THREADS; t++) {
        uint32_t length;
        struct ompc_event_entry *log = event_log(header, &process->threads[t], &length);
        for (uint32_t k = 0; log != NULL && k < length; k++)
            if (!OMPC_EVENT_IS_TASK(OMPC_EVENT_CODE(&log[k])) && log[k].region != 0) {
                log[k].region |= UINT64_C(1) << 63;
                changed++;
            }
    }
    if (changed == 0) {
        fprintf(stderr, "record-damage: the saved run logs no event in a region\n");
        exit(2);
    }
}

/*
 * Thread 0's task-stack table (--gprofng's OMP_task) names a task
 * construct row that is free, no stack, and more samples than the thread
 * took; its first cells are overwritten, as a scribbling program would.
 */
/* Thread 0's task-stack table, or exits when the saved run has none. */
static struct ompc_task_stack_table *task_stack_table(struct ompc_record_header *header, struct ompc_process *process)
{
    uint64_t offset = atomic_load(&process->task_stacks[0]);
    if (offset == 0 || !ompc_record_in_arena(header, offset, OMPC_TASK_STACK_BYTES)
        || atomic_load(&process->task_constructs[OMPC_MAX_TASK_CONSTRUCTS - 1].codeptr) != 0) {
        fprintf(stderr, "record-damage: the saved run has no task-stack table to damage\n");
        exit(2);
    }
    return (struct ompc_task_stack_table *)((char *)header + offset);
}

/* Not damage: 5 samples the table had no cell for, as a run with more stacks than cells leaves. */
static void task_stacks_limit(struct ompc_record_header *header, struct ompc_process *process)
{
    atomic_fetch_add(&task_stack_table(header, process)->full, 5);
}

static void task_stacks(struct ompc_record_header *header, struct ompc_process *process)
{
    struct ompc_task_stack_table *table = task_stack_table(header, process);
    struct ompc_task_stack *cells = (struct ompc_task_stack *)(table + 1);
    uint64_t entry = UINT64_C(8) << OMPC_TASK_STACK_ROW_BITS;
    atomic_store(&cells[0].key, entry | OMPC_MAX_TASK_CONSTRUCTS);
    atomic_store(&cells[0].count, 1);
    atomic_store(&cells[1].key, 1);
    atomic_store(&cells[1].count, 1);
    atomic_store(&cells[2].key, entry | 1);
    atomic_store(&cells[2].count, UINT64_MAX);
}

static const struct damage damages[] = {
    {"strings", strings},       {"threads-negative", threads_negative}, {"threads-huge", threads_huge},
    {"counts-huge", counts_huge}, {"stack-size", stack_size},         {"times", times},
    {"logs", logs},           {"waits", waits},                       {"tables", tables},
    {"tasks", tasks},         {"task-sites", task_sites},            {"task-parts", task_parts},
    {"stack-copies", stack_copies}, {"serial-places", serial_places}, {"serial-limit", serial_limit},
    {"mpi-sites", mpi_sites},  {"mpi-dropped", mpi_dropped},
    {"alias", alias}, {"module-path", module_path}, {"terminal", terminal},
    {"region-ids", region_ids}, {"task-stacks", task_stacks},
    {"task-stacks-limit", task_stacks_limit}, {"task-pending", task_pending},
};

int main(int argc, char **argv)
{
    const struct damage *damage = NULL;
    for (size_t i = 0; argc == 4 && i < sizeof damages / sizeof damages[0]; i++)
        if (strcmp(argv[3], damages[i].name) == 0)
            damage = &damages[i];
    if (damage == NULL) {
        fprintf(stderr, "usage: record-damage SAVED-RUN OUT ");
        for (size_t i = 0; i < sizeof damages / sizeof damages[0]; i++)
            fprintf(stderr, "%s%s", i ? "|" : "", damages[i].name);
        fputc('\n', stderr);
        return 2;
    }
    struct run run;
    memset(&run, 0, sizeof run);
    run.session = ompc_session_new();
    char error[256];
    if (run.session == NULL || ompc_session_open(argv[1], &run, error, sizeof error) != 0) {
        fprintf(stderr, "record-damage: %s: %s\n", argv[1], run.session ? error : "out of memory");
        return 1;
    }
    void *mapping = mmap(NULL, run.header.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, run.record_fd, 0);
    if (mapping == MAP_FAILED) {
        perror("record-damage: mmap");
        return 1;
    }
    struct ompc_record_header *header = mapping;
    damage->apply(header, ompc_record_process(header, 0));
    munmap(mapping, run.header.total_size);
    int failed = ompc_session_save(&run, argv[2], error, sizeof error) != 0;
    if (failed)
        fprintf(stderr, "record-damage: %s: %s\n", argv[2], error);
    close(run.record_fd);
    free(run.reaped);
    ompc_session_free(run.session);
    return failed;
}
