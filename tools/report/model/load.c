/* load.c - the loader: reads a finished run's record (untrusted: the observed program could have written any of it), checks every count, offset, string and time, and builds the plain profile model the writers read. */
/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE 1
#include <config.h>

#include "checked.h"
#include "load.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coderanges.h"
#include "grow.h"
#include "omp_collector_api.h"
#include "sort.h"
#include "symbolize.h"

void ompc_damage_note(struct ompc_damage *damage, const char *fmt, ...)
{
    char line[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    size_t used = strlen(damage->text);
    if (used + 2 < sizeof damage->text)
        snprintf(damage->text + used, sizeof damage->text - used, "%s%s", damage->count ? "; " : "", line);
    damage->count++;
}

/* pread(2) of exactly `size` bytes at `offset`; -1 when the record does not hold them. */
static int read_exact(int fd, void *buffer, size_t size, uint64_t offset)
{
    for (size_t done = 0; done < size;) {
        ssize_t got = pread(fd, (char *)buffer + done, size - done, (off_t)(offset + done));
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

/*
 * The parts of a process slot that hold data, as read_sparse found them,
 * in order: the rest of the slot is holes, zeros nobody wrote.  The table
 * scans skip the holes, since reading a page of the slot's fresh mapping
 * costs a page fault, and a slot is megabytes of mostly free rows.
 */
struct filled {
    size_t count, capacity;
    struct filled_run {
        uint64_t from, to; /* offsets in the slot */
    } *runs;
};

/* Notes [from, to) of the slot as data; -1 without memory. */
static int note_filled(struct filled *filled, uint64_t from, uint64_t to)
{
    if (filled == NULL)
        return 0;
    if (ompc_grow(&filled->runs, filled->count + 1, &filled->capacity, sizeof *filled->runs) != 0)
        return -1;
    filled->runs[filled->count++] = (struct filled_run){from, to};
    return 0;
}

/*
 * read_exact into a zeroed buffer, reading only the parts of the file
 * that hold data: a record's tables are sparse reservations, mostly holes
 * (-1 when the file ends before `offset + size`, as read_exact).  The
 * parts read go to `filled` (when not NULL).
 */
static int read_sparse(int fd, void *buffer, size_t size, uint64_t offset, struct filled *filled)
{
    struct stat info;
    if (fstat(fd, &info) != 0 || (uint64_t)info.st_size < offset || (uint64_t)info.st_size - offset < size)
        return -1;
    uint64_t end = offset + size;
    for (uint64_t at = offset; at < end;) {
        off_t data = lseek(fd, (off_t)at, SEEK_DATA);
        if (data < 0 && errno == ENXIO) /* holes to the end */
            return 0;
        if (data < 0) /* no hole support: read it all */
            return note_filled(filled, at - offset, size) != 0
                || read_exact(fd, (char *)buffer + (at - offset), end - at, at) != 0 ? -1 : 0;
        if ((uint64_t)data >= end)
            return 0;
        off_t hole = lseek(fd, data, SEEK_HOLE);
        uint64_t stop = hole < 0 || (uint64_t)hole > end ? end : (uint64_t)hole;
        if (note_filled(filled, (uint64_t)data - offset, stop - offset) != 0
            || read_exact(fd, (char *)buffer + ((uint64_t)data - offset), stop - (uint64_t)data, (uint64_t)data) != 0)
            return -1;
        at = stop;
    }
    return 0;
}

/*
 * The first row at or after `row` of a slot's table (`count` rows of
 * `size` bytes at `base`) that lies at least partly in data; `count` when
 * none does.  Rows in holes are zero: free.
 */
static int next_filled_row(const struct filled *filled, size_t base, size_t size, int row, int count)
{
    if (row >= count)
        return count;
    uint64_t at = base + (uint64_t)row * size;
    size_t low = 0, high = filled->count;
    while (low < high) { /* the first run ending after `at` */
        size_t middle = low + (high - low) / 2;
        if (filled->runs[middle].to <= at)
            low = middle + 1;
        else
            high = middle;
    }
    if (low == filled->count)
        return count;
    if (filled->runs[low].from <= at)
        return row;
    uint64_t next = (filled->runs[low].from - base) / size;
    return next >= (uint64_t)count ? count : (int)next;
}

/* Where slot `index` starts in the record. */
static uint64_t slot_offset(const struct ompc_record_header *header, uint32_t index)
{
    return header->process_offset + (uint64_t)index * header->process_size;
}

int ompc_load_head(int fd, const struct ompc_record_header *header, uint32_t index, struct ompc_slot_head *head)
{
    struct {
        uint32_t state, index;
        int32_t pid, ppid, parent_slot, exec_slot;
        uint64_t start_ticks;
    } raw;
    _Static_assert(offsetof(struct ompc_process, start_ticks) == 24, "the slot's head moved");
    if (index >= header->process_count || read_exact(fd, &raw, sizeof raw, slot_offset(header, index)) != 0)
        return -1;
    head->state = raw.state;
    head->pid = raw.pid;
    head->start_ticks = raw.start_ticks;
    return 0;
}

int ompc_load_counts(int fd, struct ompc_record_header *header)
{
    struct ompc_record_header now;
    if (read_exact(fd, &now, sizeof now, 0) != 0)
        return -1;
    header->arena_refused = atomic_load(&now.arena_refused);
    header->processes_dropped = atomic_load(&now.processes_dropped);
    return 0;
}

/* The limits a process's record is checked against. */
struct limits {
    const struct ompc_record_header *header;
    uint64_t latest_ns; /* the latest time relative to the origin the process can have recorded; UINT64_MAX unknown */
    unsigned long clamped; /* times past latest_ns, set to it */
    unsigned long bad_waits; /* wait slots in no state, emptied */
    const struct filled *filled; /* the slot's data */
    struct ompc_load_claims *claims; /* the record's arena spans owned by processes loaded before (NULL: none) */
    const uint16_t *refused; /* per thread, its tables (OMPC_CLAIM_*) that share bytes with another table */
};

/* Whether thread `slot`'s table `table` shares bytes of the record with another table (not read then: ompc_load_claim_tables). */
static int table_refused(const struct limits *limits, int slot, uint16_t table)
{
    return limits->refused != NULL && (limits->refused[slot] & table) != 0;
}

/* A relative time, at most limits->latest_ns (counted when it was later). */
static uint64_t take_time(struct limits *limits, uint64_t ns)
{
    if (ns <= limits->latest_ns)
        return ns;
    limits->clamped++;
    return limits->latest_ns;
}

/* A string field copied with its end inside the array; counted as damage when it had none. */
static void take_text(char *to, const char *from, size_t size, const char *what, struct ompc_damage *damage)
{
    memcpy(to, from, size);
    if (memchr(to, '\0', size) == NULL)
        ompc_damage_note(damage, "the %s did not end within its %zu bytes (cut)", what, size);
    to[size - 1] = '\0';
}

/* One thread's tables, with its own times checked. */
static void take_thread(struct ompc_model_thread *to, const struct ompc_thread *from, struct limits *limits)
{
    to->tid = from->tid;
    to->initial = from->initial != 0;
    to->status = atomic_load(&from->status);
    to->start_ns = take_time(limits, from->start_ns);
    to->end_ns = take_time(limits, atomic_load(&from->end_ns));
    to->signals = atomic_load(&from->signals);
    to->ticks = atomic_load(&from->ticks);
    for (int s = 0; s < OMPC_NSTATES; s++) {
        to->state_ticks[s] = atomic_load(&from->state_ticks[s]);
        to->stack_dropped[s] = atomic_load(&from->stack_dropped[s]);
    }
    for (int e = 0; e < OMPC_NEVENTS; e++)
        to->events[e] = atomic_load(&from->events[e]);
    for (int p = 0; p < OMPC_NPAIRS; p++)
        to->pair_ns[p] = atomic_load(&from->pair_ns[p]);
    to->wait_overflow_ticks = atomic_load(&from->wait_overflow_ticks);
    to->short_waits = atomic_load(&from->short_waits);
    to->short_wait_ns = atomic_load(&from->short_wait_ns);
    to->timeline_truncated = atomic_load(&from->timeline_truncated);
    to->last_sample_ns = take_time(limits, atomic_load(&from->last_sample_ns));
    to->blocked_ticks = atomic_load(&from->blocked_ticks);
    to->blocked_ns = atomic_load(&from->blocked_ns);
    to->event_log_dropped = atomic_load(&from->event_log_dropped);
    to->event_log_dropped_ns = take_time(limits, atomic_load(&from->event_log_dropped_ns));
    for (int t = 0; t < OMPC_TASK_EVENTS; t++)
        to->task_events[t] = atomic_load(&from->task_events[t]);
    to->task_create_ns = atomic_load(&from->task_create_ns);
    to->task_exec_ns = atomic_load(&from->task_exec_ns);
    to->task_suspend_ns = atomic_load(&from->task_suspend_ns);
    to->task_suspensions = atomic_load(&from->task_suspensions);
    to->armed_ns = take_time(limits, atomic_load(&from->armed_ns));
    to->task_completions = atomic_load(&from->task_completions);
    to->task_first_steals = atomic_load(&from->task_first_steals);
    to->runtime_work_ticks = atomic_load(&from->runtime_work_ticks);
}

/* A thread's once-per-task counts, at most the events they are counted at (BEGIN_FINISH, BEGIN_STEAL). */
static void take_task_counts(struct ompc_model_thread *thread, struct ompc_damage *damage, int slot)
{
    /* Its WORK samples in the runtime's code are some of its WORK samples. */
    if (thread->runtime_work_ticks > thread->state_ticks[THR_WORK_STATE]) {
        ompc_damage_note(damage, "thread %d claims more WORK samples in the runtime's code than WORK samples "
                         "(held to them)", slot);
        thread->runtime_work_ticks = thread->state_ticks[THR_WORK_STATE];
    }
    uint64_t finishes = thread->task_events[OMP_EVENT_THR_BEGIN_FINISH_TASK - OMPC_TASK_EVENT_FIRST];
    uint64_t steals = thread->task_events[OMP_EVENT_THR_BEGIN_STEAL_TASK - OMPC_TASK_EVENT_FIRST];
    if (thread->task_completions <= finishes && thread->task_first_steals <= steals)
        return;
    ompc_damage_note(damage, "thread %d claims more completed or stolen tasks than their events (held to them)",
                     slot);
    thread->task_completions = thread->task_completions > finishes ? finishes : thread->task_completions;
    thread->task_first_steals = thread->task_first_steals > steals ? steals : thread->task_first_steals;
}

/*
 * A thread's wait table from the arena, only its used slots; a slot in a
 * state that is none of the 11 is no wait and is left out (counted).
 */
static int take_waits(int fd, struct ompc_model_thread *to, const struct ompc_thread *from, struct limits *limits,
                      struct ompc_damage *damage, int slot)
{
    uint64_t offset = atomic_load(&from->waits), extent = OMPC_WAIT_SLOTS * sizeof(struct ompc_wait);
    if (offset == 0 || table_refused(limits, slot, OMPC_CLAIM_WAITS))
        return 0;
    if (!ompc_record_in_arena(limits->header, offset, extent)) {
        ompc_damage_note(damage, "thread %d's wait table lies outside the record: ignored", slot);
        return 0;
    }
    struct ompc_wait *raw = malloc(extent);
    to->waits = calloc(OMPC_WAIT_SLOTS, sizeof *to->waits);
    if (raw == NULL || to->waits == NULL || read_exact(fd, raw, extent, offset) != 0) {
        free(raw);
        return raw == NULL || to->waits == NULL ? -1 : 0;
    }
    for (int w = 0; w < OMPC_WAIT_SLOTS; w++) {
        struct ompc_model_wait wait = {atomic_load(&raw[w].id), atomic_load(&raw[w].state), raw[w].kind,
                                       atomic_load(&raw[w].ticks), atomic_load(&raw[w].codeptr),
                                       atomic_load(&raw[w].object)};
        /* A kind none of the three tells nothing: unknown. */
        if (wait.kind > OMPCOLLECTOR_WAIT_TASKGROUP)
            wait.kind = OMPCOLLECTOR_WAIT_NONE;
        if (wait.state >= OMPC_NSTATES)
            limits->bad_waits++;
        else if (wait.state != 0)
            to->waits[to->wait_count++] = wait;
    }
    free(raw);
    return 0;
}

/* Whether a state is one of the 11 (the wait slots' states are checked where they are used). */
static int valid_state(uint64_t state)
{
    return state >= 1 && state < OMPC_NSTATES;
}

/*
 * A thread's timeline (and the code addresses beside it) from the arena:
 * entries are kept up to the first whose state is not one of the 11 or
 * whose time goes backwards or past the run.
 */
static void take_timeline(int fd, struct ompc_model_thread *to, const struct ompc_thread *from, unsigned what,
                          struct limits *limits, struct ompc_damage *damage, int slot)
{
    uint32_t length = atomic_load(&from->timeline_length);
    uint64_t offset = atomic_load(&from->timeline), where = atomic_load(&from->timeline_where);
    uint64_t extent = (uint64_t)OMPC_TIMELINE_CAP * sizeof(uint64_t);
    if (length > OMPC_TIMELINE_CAP) {
        ompc_damage_note(damage, "thread %d's timeline claims %u entries of %u", slot, length, OMPC_TIMELINE_CAP);
        length = OMPC_TIMELINE_CAP;
    }
    if (offset == 0 || length == 0 || table_refused(limits, slot, OMPC_CLAIM_TIMELINE))
        return;
    if (!ompc_record_in_arena(limits->header, offset, extent)) {
        ompc_damage_note(damage, "thread %d's timeline lies outside the record", slot);
        return;
    }
    to->timeline = calloc(length, sizeof *to->timeline);
    if (to->timeline == NULL || read_exact(fd, to->timeline, length * sizeof *to->timeline, offset) != 0) {
        free(to->timeline);
        to->timeline = NULL;
        return;
    }
    uint32_t kept = 0;
    uint64_t latest_us = limits->latest_ns == UINT64_MAX ? UINT64_MAX : limits->latest_ns / 1000 + 1;
    for (uint64_t last = 0; kept < length; kept++) {
        uint64_t entry = to->timeline[kept];
        if (!valid_state(entry & 0xff) || (entry >> 8) < last || (entry >> 8) > latest_us)
            break;
        last = entry >> 8;
    }
    if (kept < length)
        ompc_damage_note(damage, "thread %d's timeline: %u of %u entries ignored (a state that is none of the 11, "
                                 "or a time out of order or past the run)", slot, length - kept, length);
    to->timeline_length = kept;
    if ((what & OMPC_LOAD_WHERE) && kept > 0 && !table_refused(limits, slot, OMPC_CLAIM_WHERE)
        && ompc_record_in_arena(limits->header, where, extent)) {
        to->timeline_where = calloc(kept, sizeof *to->timeline_where);
        if (to->timeline_where != NULL && read_exact(fd, to->timeline_where, kept * sizeof(uint64_t), where) != 0) {
            free(to->timeline_where);
            to->timeline_where = NULL;
        }
    }
}

/* The task runs open at a point of a thread's event log, innermost last. */
struct open_runs {
    uint64_t *ids;
    size_t depth, capacity;
};

/*
 * A task entry of a thread's log, checked, with the task a run's end
 * names filled in: the innermost run open (record.h), or the one it names
 * with the runs inside it, whose ends the log lost.  A run's end with no
 * run open names none (0: it ends nothing).  -1 for an entry that does
 * not hold (a creation or a run's begin without a task, a run's end
 * saying it ends something else than a part or the task), or no memory.
 */
static int name_task_run(struct open_runs *runs, struct ompc_event_entry *entry)
{
    int code = OMPC_EVENT_CODE(entry);
    if (code != OMP_EVENT_THR_BEGIN_FINISH_TASK) {
        if (entry->task == 0)
            return -1;
        if (code != OMP_EVENT_THR_BEGIN_EXEC_TASK)
            return 0;
        if (runs->depth == runs->capacity) {
            size_t capacity = runs->capacity ? 2 * runs->capacity : 64;
            uint64_t *grown = realloc(runs->ids, capacity * sizeof *grown);
            if (grown == NULL)
                return -1;
            runs->ids = grown;
            runs->capacity = capacity;
        }
        runs->ids[runs->depth++] = entry->task;
        return 0;
    }
    if (entry->ends > OMPC_TASK_END_COMPLETES)
        return -1;
    size_t match = runs->depth;
    while (entry->task != 0 && match > 0 && runs->ids[match - 1] != entry->task)
        match--;
    if (match == 0) {
        entry->task = 0;
        return 0;
    }
    entry->task = runs->ids[match - 1];
    runs->depth = match - 1;
    return 0;
}

/* A thread's event log (--trace) from the arena, up to the first entry that does not hold. */
static void take_event_log(int fd, struct ompc_model_thread *to, const struct ompc_thread *from,
                           struct limits *limits, struct ompc_damage *damage, int slot)
{
    uint64_t capacity = from->event_log_capacity, offset = atomic_load(&from->event_log);
    uint32_t length = atomic_load(&from->event_log_length);
    uint64_t bytes = limits->header->event_log_bytes;
    if (length == 0 || offset == 0 || bytes == 0 || table_refused(limits, slot, OMPC_CLAIM_EVENTS))
        return;
    if (length > capacity || capacity * sizeof(struct ompc_event_entry) > bytes
        || !ompc_record_in_arena(limits->header, offset, capacity * sizeof(struct ompc_event_entry))) {
        ompc_damage_note(damage, "thread %d's event log (%u entries) does not fit its buffer: ignored", slot, length);
        return;
    }
    to->event_log = calloc(length, sizeof *to->event_log);
    if (to->event_log == NULL || read_exact(fd, to->event_log, length * sizeof *to->event_log, offset) != 0) {
        free(to->event_log);
        to->event_log = NULL;
        return;
    }
    uint32_t kept = 0;
    struct open_runs runs = {NULL, 0, 0};
    for (uint64_t last = 0; kept < length; kept++) {
        struct ompc_event_entry *entry = &to->event_log[kept];
        uint64_t when = OMPC_EVENT_WHEN(entry);
        int code = OMPC_EVENT_CODE(entry);
        int task = OMPC_EVENT_IS_TASK(code), wait = OMPC_EVENT_IS_TASK_WAIT(code);
        int dependence = code == OMPC_EVENT_TASK_DEPENDENCE;
        if ((!task && !wait && !dependence && (code < 1 || code >= OMPC_NEVENTS)) || when < last
            || when > limits->latest_ns || (task && name_task_run(&runs, entry) != 0)
            || ((wait || dependence) && entry->task == 0) || (dependence && entry->parent == 0))
            break;
        last = when;
    }
    free(runs.ids);
    if (kept < length)
        ompc_damage_note(damage, "thread %d's event log: %u of %u events ignored (an unknown event, a task event "
                                 "without a task, a task run's end of no known kind, or a time out of order or "
                                 "past the run)", slot, length - kept,
                         length);
    to->event_log_length = kept;
    /* What the log claimed beyond what holds is not kept: a forged length costs its reading, not the report's memory. */
    if (kept < length) {
        struct ompc_event_entry *fit = realloc(to->event_log, (kept > 0 ? kept : 1) * sizeof *fit);
        if (fit != NULL)
            to->event_log = fit;
    }
}

/*
 * One stack table (--stacks) from the arena: its header must be the one
 * the agent writes for a table of `bytes` with `slots` hash slots, and its
 * pool is read only as far as it is used and lies within the table.
 */
static void take_stack_pool(int fd, struct ompc_model_stack_table *to, uint64_t offset, uint64_t bytes,
                            uint32_t slots, const struct limits *limits, struct ompc_damage *damage, int slot,
                            struct ompc_stack_table *seen)
{
    struct ompc_stack_table table;
    memset(seen, 0, sizeof *seen);
    if (offset == 0 || table_refused(limits, slot, bytes == OMPC_STACK_TABLE_BYTES ? OMPC_CLAIM_STACKS : OMPC_CLAIM_FORKS))
        return;
    if (!ompc_record_in_arena(limits->header, offset, bytes) || read_exact(fd, &table, sizeof table, offset) != 0) {
        ompc_damage_note(damage, "thread %d's stack table lies outside the record: ignored", slot);
        return;
    }
    uint64_t head = sizeof table + (uint64_t)slots * sizeof(uint32_t);
    uint64_t used = atomic_load(&table.pool_used);
    if (table.index_slots != slots || table.pool_words != (bytes - head) / sizeof(uint64_t) || used > table.pool_words) {
        ompc_damage_note(damage, "thread %d's stack table has a forged size (%" PRIu64 " words used of %" PRIu64
                                 "): ignored", slot, used, table.pool_words);
        return;
    }
    to->full = atomic_load(&table.full);
    *seen = table;
    if (used == 0)
        return;
    to->words = malloc(used * sizeof *to->words);
    if (to->words == NULL || read_exact(fd, to->words, used * sizeof *to->words, offset + head) != 0
        || ompc_load_stack_entries(to, used, offset + head) != 0) {
        free(to->words);
        to->words = NULL;
    }
}

/* --stacks-unwind=dwarf: the copy buffer a sample table names, read as far as it is used and every copy checked. */
static void take_stack_copies(int fd, struct ompc_model_thread *to, const struct ompc_stack_table *table,
                              const struct limits *limits, struct ompc_damage *damage, int slot)
{
    uint64_t offset = atomic_load(&table->copies);
    to->copies_dropped = atomic_load(&table->copies_dropped);
    if (offset == 0 || table_refused(limits, slot, OMPC_CLAIM_COPIES))
        return;
    struct ompc_stack_copies head;
    if (!ompc_record_in_arena(limits->header, offset, OMPC_STACK_COPIES_BYTES)
        || read_exact(fd, &head, sizeof head, offset) != 0 || head.capacity != OMPC_STACK_COPIES_BYTES - sizeof head
        || atomic_load(&head.used) > head.capacity) {
        ompc_damage_note(damage, "thread %d's stack copies lie outside the record or have a forged size: ignored",
                         slot);
        return;
    }
    uint64_t used = atomic_load(&head.used);
    if (used == 0)
        return;
    to->copy_data = malloc(used);
    if (to->copy_data == NULL || read_exact(fd, to->copy_data, used, offset + sizeof head) != 0) {
        free(to->copy_data);
        to->copy_data = NULL;
        return;
    }
    to->copy_bytes = ompc_load_good_copies(to->copy_data, used);
    if (to->copy_bytes < used)
        ompc_damage_note(damage, "thread %d's stack copies: %" PRIu64 " of %" PRIu64 " bytes ignored (a copy with "
                                 "a forged size or state)", slot, used - to->copy_bytes, used);
    if (ompc_load_stack_copies(to) != 0)
        to->copy_bytes = 0;
}

/* A thread's two stack tables, and the sample table's stack copies. */
static void take_stack_tables(int fd, struct ompc_model_thread *to, const struct ompc_thread *from,
                              const struct limits *limits, struct ompc_damage *damage, int slot)
{
    struct ompc_stack_table seen;
    take_stack_pool(fd, &to->stacks, atomic_load(&from->stacks), OMPC_STACK_TABLE_BYTES, OMPC_STACK_INDEX, limits,
                    damage, slot, &seen);
    if (limits->header->flags & OMPC_OPT_STACKS_DWARF)
        take_stack_copies(fd, to, &seen, limits, damage, slot);
    take_stack_pool(fd, &to->fork_stacks, atomic_load(&from->fork_stacks), OMPC_FORK_TABLE_BYTES, OMPC_FORK_INDEX,
                    limits, damage, slot, &seen);
}

static int compare_task_stacks(const void *a, const void *b)
{
    const struct ompc_model_task_stack *x = a, *y = b;
    if (x->entry != y->entry)
        return (x->entry > y->entry) - (x->entry < y->entry);
    return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

/*
 * A thread's task-stack table (record.h): the cells whose key names a used
 * task construct row and a nonzero entry, with at most the thread's
 * samples each; the rest is dropped and noted.  Which entry exists is the
 * readers' to check (ompc_samples_build joins by id).
 */
static void take_task_stacks(int fd, struct ompc_model_thread *to, const struct ompc_process *from,
                             const struct limits *limits, struct ompc_damage *damage, int slot)
{
    uint64_t offset = atomic_load(&from->task_stacks[slot]);
    if (offset == 0 || table_refused(limits, slot, OMPC_CLAIM_TASK_STACKS))
        return;
    struct {
        struct ompc_task_stack_table head;
        struct ompc_task_stack cells[OMPC_TASK_STACK_SLOTS];
    } *table = malloc(sizeof *table);
    _Static_assert(sizeof *table == OMPC_TASK_STACK_BYTES, "the table as the agent lays it out");
    to->task_stacks = calloc(OMPC_TASK_STACK_SLOTS, sizeof *to->task_stacks);
    if (table == NULL || to->task_stacks == NULL || !ompc_record_in_arena(limits->header, offset, sizeof *table)
        || read_exact(fd, table, sizeof *table, offset) != 0 || table->head.slots != OMPC_TASK_STACK_SLOTS) {
        if (table != NULL && to->task_stacks != NULL)
            ompc_damage_note(damage, "thread %d's task-stack table lies outside the record or has a forged size: "
                                     "ignored", slot);
        free(table);
        free(to->task_stacks);
        to->task_stacks = NULL;
        return;
    }
    to->task_stacks_full = atomic_load(&table->head.full);
    unsigned long bad = 0;
    for (uint32_t i = 0; i < OMPC_TASK_STACK_SLOTS; i++) {
        uint64_t key = atomic_load(&table->cells[i].key), count = atomic_load(&table->cells[i].count);
        uint64_t row = key & ((UINT64_C(1) << OMPC_TASK_STACK_ROW_BITS) - 1);
        if (key == 0)
            continue;
        if (row == 0 || row > OMPC_MAX_TASK_CONSTRUCTS || atomic_load(&from->task_constructs[row - 1].codeptr) == 0
            || key >> OMPC_TASK_STACK_ROW_BITS == 0 || count == 0 || count > to->ticks) {
            bad++;
            continue;
        }
        to->task_stacks[to->task_stack_count++] = (struct ompc_model_task_stack){
            key >> OMPC_TASK_STACK_ROW_BITS, atomic_load(&from->task_constructs[row - 1].codeptr), count};
    }
    free(table);
    ompc_qsort(to->task_stacks, to->task_stack_count, sizeof *to->task_stacks, compare_task_stacks);
    if (bad > 0)
        ompc_damage_note(damage, "thread %d's task-stack table: %lu cells name no task construct, no stack or more "
                                 "samples than the thread's (ignored)", slot, bad);
}

/*
 * Which of the threads' tables share bytes of the record with another
 * table, this process's or one loaded before (into limits->refused): those
 * are not read, so the cost of loading stays bounded by the record's size.
 */
static int claim_tables(int fd, struct ompc_model_process *to, const struct ompc_process *from, int32_t count,
                        struct limits *limits)
{
    struct ompc_load_claims alone = {NULL, 0};
    struct ompc_load_claims *claims = limits->claims != NULL ? limits->claims : &alone;
    uint16_t *refusals = calloc(count > 0 ? (size_t)count : 1, sizeof *refusals);
    unsigned long tables = 0;
    int failed = refusals == NULL
              || ompc_load_claim_tables(fd, limits->header, from, count, claims, refusals, &tables) != 0;
    ompc_load_claims_free(&alone);
    if (failed) {
        free(refusals);
        return -1;
    }
    if (tables > 0)
        ompc_damage_note(&to->damage, "%lu thread tables share bytes of the record with another table (each byte "
                                      "belongs to one table): not read", tables);
    limits->refused = refusals;
    return 0;
}

/* The threads, each with what `what` asks for. */
static int take_threads(int fd, struct ompc_model_process *to, const struct ompc_process *from, unsigned what,
                        struct limits *limits)
{
    int32_t count = atomic_load(&from->thread_count);
    if (count < 0 || count > OMPC_MAX_THREADS) {
        ompc_damage_note(&to->damage, "a thread count of %d (at most %d): every thread's tables ignored", count,
                         OMPC_MAX_THREADS);
        count = 0;
    }
    to->thread_count = count;
    to->threads = calloc(count > 0 ? (size_t)count : 1, sizeof *to->threads);
    if (to->threads == NULL || claim_tables(fd, to, from, count, limits) != 0)
        return -1;
    take_thread(&to->untracked, &from->untracked, limits);
    for (int i = 0; i < count; i++) {
        take_thread(&to->threads[i], &from->threads[i], limits);
        take_task_counts(&to->threads[i], &to->damage, i);
        if (take_waits(fd, &to->threads[i], &from->threads[i], limits, &to->damage, i) != 0)
            return -1;
        if (atomic_load(&from->threads[i].waits) == 0 || atomic_load(&from->threads[i].construct_work) == 0)
            to->threads_without_tables++;
        if (what & OMPC_LOAD_TIMELINES)
            take_timeline(fd, &to->threads[i], &from->threads[i], what, limits, &to->damage, i);
        if (what & OMPC_LOAD_EVENT_LOGS)
            take_event_log(fd, &to->threads[i], &from->threads[i], limits, &to->damage, i);
        if (what & OMPC_LOAD_STACKS) {
            take_stack_tables(fd, &to->threads[i], &from->threads[i], limits, &to->damage, i);
            take_task_stacks(fd, &to->threads[i], from, limits, &to->damage, i);
        }
    }
    return 0;
}

/*
 * The threads' MPI rows (version 6; a version-5 slot has none, read as
 * zero): samples inside MPI are at most what the thread's timer counted
 * beyond its states, and time inside MPI at most the run.
 */
static void take_mpi(struct ompc_model_process *to, const struct ompc_process *from, struct limits *limits)
{
    to->mpi_active = atomic_load(&from->mpi_active) != 0;
    unsigned long bad = 0;
    for (int i = 0; i < to->thread_count; i++) {
        struct ompc_model_thread *thread = &to->threads[i];
        const struct ompc_mpi_thread *row = &from->mpi_threads[i];
        thread->mpi_ns = atomic_load(&row->ns);
        thread->mpi_calls = atomic_load(&row->calls);
        thread->mpi_ticks = atomic_load(&row->ticks);
        thread->mpi_idle_ticks = atomic_load(&row->idle_ticks);
        if (thread->mpi_idle_ticks > thread->state_ticks[THR_IDLE_STATE]) {
            thread->mpi_idle_ticks = thread->state_ticks[THR_IDLE_STATE];
            bad++;
        }
        uint64_t states = 0;
        for (int s = 0; s < OMPC_NSTATES; s++)
            states += thread->state_ticks[s];
        uint64_t room = thread->ticks > states ? thread->ticks - states : 0;
        if (thread->mpi_ticks > room) {
            thread->mpi_ticks = room;
            bad++;
        }
        if (thread->mpi_ns > limits->latest_ns || (thread->mpi_calls == 0 && thread->mpi_ns != 0)) {
            thread->mpi_ns = thread->mpi_calls == 0 ? 0 : limits->latest_ns;
            bad++;
        }
    }
    if (bad > 0)
        ompc_damage_note(&to->damage, "%lu MPI counts of threads that cannot be (more samples in MPI than the "
                                      "thread's timer counted, more idle while the initial thread was in MPI than "
                                      "IDLE, or more time than the run; held to them)", bad);
}

/* qsort: regions by id, then by their place in the table (which only a damaged record can need). */
static int compare_regions(const void *a, const void *b)
{
    const struct ompc_model_region *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->slot > y->slot) - (x->slot < y->slot);
}

/* Steps ROW over the rows of the slot's table MEMBER (COUNT rows) that hold data. */
#define EACH_FILLED_ROW(limits, member, count, row)                                                               \
    for (int row = next_filled_row((limits)->filled, offsetof(struct ompc_process, member),                       \
                                   sizeof(((struct ompc_process *)0)->member[0]), 0, (count));                    \
         row < (count); row = next_filled_row((limits)->filled, offsetof(struct ompc_process, member),            \
                                              sizeof(((struct ompc_process *)0)->member[0]), row + 1, (count)))

/* The region table's used rows, by id. */
static int take_regions(struct ompc_model_process *to, const struct ompc_process *from, struct limits *limits)
{
    uint32_t used = 0;
    EACH_FILLED_ROW(limits, regions, OMPC_MAX_REGIONS, i)
        used += atomic_load(&from->regions[i].id) != 0;
    to->regions = calloc(used + 1, sizeof *to->regions);
    if (to->regions == NULL)
        return -1;
    EACH_FILLED_ROW(limits, regions, OMPC_MAX_REGIONS, i) {
        const struct ompc_region *region = &from->regions[i];
        if (atomic_load(&region->id) == 0 || to->region_count == used)
            continue;
        struct ompc_model_region *row = &to->regions[to->region_count++];
        row->slot = (uint32_t)i;
        row->id = atomic_load(&region->id);
        row->parent = atomic_load(&region->parent);
        row->forks = atomic_load(&region->forks);
        row->joins = atomic_load(&region->joins);
        row->fork_ns = take_time(limits, atomic_load(&region->fork_ns));
        row->time_ns = atomic_load(&region->time_ns);
        row->thread_mask = atomic_load(&region->thread_mask);
        for (int s = 0; s < OMPC_NSTATES; s++)
            row->ticks[s] = atomic_load(&region->ticks[s]);
        row->codeptr = atomic_load(&region->codeptr);
    }
    ompc_qsort(to->regions, to->region_count, sizeof *to->regions, compare_regions);
    return 0;
}

/* One thread's WORK samples per construct row, folded into the model's rows (`row_of`: table index to model row, -1 none). */
static void fold_work(int fd, struct ompc_model_process *to, const struct ompc_thread *from, const int *row_of,
                      uint64_t *counts, const struct limits *limits, int slot)
{
    uint64_t offset = atomic_load(&from->construct_work), extent = OMPC_MAX_CONSTRUCTS * sizeof(uint64_t);
    if (offset == 0 || table_refused(limits, slot, OMPC_CLAIM_WORK))
        return;
    if (!ompc_record_in_arena(limits->header, offset, extent) || read_exact(fd, counts, extent, offset) != 0) {
        ompc_damage_note(&to->damage, "thread %d's construct counters lie outside the record: ignored", slot);
        return;
    }
    unsigned long orphans = 0;
    for (int i = 0; i < OMPC_MAX_CONSTRUCTS; i++) {
        if (counts[i] == 0)
            continue;
        if (row_of[i] < 0) {
            orphans++;
            continue;
        }
        struct ompc_model_construct *row = &to->constructs[row_of[i]];
        row->work_sum += counts[i];
        row->work_threads++;
        if (counts[i] > row->work_max)
            row->work_max = counts[i];
    }
    if (orphans > 0)
        ompc_damage_note(&to->damage, "thread %d has WORK samples for %lu constructs that do not exist (ignored)",
                         slot, orphans);
}

/* The construct table's used rows, with every thread's WORK samples in them. */
/*
 * The rows' kinds (version 8; zero, unknown, before or where the slot ends before them), each a kind this
 * build knows, and the teams construct a parallel row runs in: a used
 * row of kind teams.  Only parallel rows link, so no chain can loop.
 * What breaks those rules is dropped and noted.
 */
static void take_construct_kinds(struct ompc_model_process *to, const struct ompc_process *from, const int *row_of)
{
    unsigned long bad = 0;
    for (int i = 0; i < OMPC_MAX_CONSTRUCTS; i++) {
        if (row_of[i] < 0)
            continue;
        struct ompc_model_construct *row = &to->constructs[row_of[i]];
        row->kind = atomic_load(&from->construct_kinds[i].kind);
        if (row->kind >= OMPC_CONSTRUCT_KINDS) {
            row->kind = OMPC_CONSTRUCT_UNKNOWN;
            bad++;
        }
    }
    for (int i = 0; i < OMPC_MAX_CONSTRUCTS; i++) {
        uint32_t teams = row_of[i] < 0 ? 0 : atomic_load(&from->construct_kinds[i].teams);
        if (teams == 0)
            continue;
        struct ompc_model_construct *row = &to->constructs[row_of[i]];
        int target = teams <= OMPC_MAX_CONSTRUCTS ? row_of[teams - 1] : -1;
        if (row->kind != OMPC_CONSTRUCT_PARALLEL || target < 0 || to->constructs[target].kind != OMPC_CONSTRUCT_TEAMS)
            bad++;
        else
            row->teams = (uint32_t)target + 1;
    }
    if (bad > 0)
        ompc_damage_note(&to->damage, "%lu construct kinds or teams links that name no such thing (ignored)", bad);
}

static int take_constructs(int fd, struct ompc_model_process *to, const struct ompc_process *from,
                           const struct limits *limits)
{
    uint32_t used = 0;
    EACH_FILLED_ROW(limits, constructs, OMPC_MAX_CONSTRUCTS, i)
        used += atomic_load(&from->constructs[i].codeptr) != 0;
    int *row_of = malloc(OMPC_MAX_CONSTRUCTS * sizeof *row_of);
    uint64_t *counts = malloc(OMPC_MAX_CONSTRUCTS * sizeof *counts);
    to->constructs = calloc(used + 1, sizeof *to->constructs);
    if (row_of == NULL || counts == NULL || to->constructs == NULL) {
        free(row_of);
        free(counts);
        return -1;
    }
    for (int i = 0; i < OMPC_MAX_CONSTRUCTS; i++)
        row_of[i] = -1;
    EACH_FILLED_ROW(limits, constructs, OMPC_MAX_CONSTRUCTS, i) {
        const struct ompc_construct *raw = &from->constructs[i];
        uint64_t codeptr = atomic_load(&raw->codeptr);
        if (codeptr == 0 || to->construct_count == used)
            continue;
        row_of[i] = (int)to->construct_count;
        struct ompc_model_construct *row = &to->constructs[to->construct_count++];
        *row = (struct ompc_model_construct){.codeptr = codeptr, .forks = atomic_load(&raw->forks),
                                             .joins = atomic_load(&raw->joins), .time_ns = atomic_load(&raw->time_ns),
                                             .max_ns = atomic_load(&raw->max_ns),
                                             .thread_mask = atomic_load(&raw->thread_mask)};
        for (int s = 0; s < OMPC_NSTATES; s++)
            row->ticks[s] = atomic_load(&raw->ticks[s]);
    }
    for (int t = 0; t < to->thread_count; t++)
        fold_work(fd, to, &from->threads[t], row_of, counts, limits, t);
    take_construct_kinds(to, from, row_of);
    free(row_of);
    free(counts);
    return 0;
}

/*
 * One task construct row with the threads' pending creations for it
 * (pending: created, undeferred), its counts held to what they can be: no more
 * undeferred than created, no more timed runs than runs, no run longer
 * than their sum nor than the run itself.  Returns 1 when it had to
 * change anything.
 */
static int take_task_construct(struct ompc_model_task_construct *row, const struct ompc_task_construct *raw,
                               const uint64_t pending[2], const struct limits *limits)
{
    *row = (struct ompc_model_task_construct){
        .codeptr = atomic_load(&raw->codeptr), .created = ompc_sum_u64(atomic_load(&raw->created), pending[0]),
        .undeferred = ompc_sum_u64(atomic_load(&raw->undeferred), pending[1]), .create_ns = atomic_load(&raw->create_ns),
        .completed = atomic_load(&raw->completed), .runs = atomic_load(&raw->runs),
        .stolen = atomic_load(&raw->stolen), .timed_runs = atomic_load(&raw->timed_runs),
        .exec_ns = atomic_load(&raw->exec_ns), .max_ns = atomic_load(&raw->max_ns),
        .suspend_ns = atomic_load(&raw->suspend_ns), .suspensions = atomic_load(&raw->suspensions),
        .thread_mask = atomic_load(&raw->thread_mask), .sampled_ns = atomic_load(&raw->sampled_ns)};
    int bad = 0;
    /* No thread could have spent more than its life in one construct's tasks. */
    if (limits->latest_ns > 0 && limits->latest_ns != UINT64_MAX && row->sampled_ns / OMPC_MAX_THREADS > limits->latest_ns) {
        row->sampled_ns = 0;
        bad = 1;
    }
    if (row->undeferred > row->created) {
        row->undeferred = row->created;
        bad = 1;
    }
    if (row->timed_runs > row->runs || row->stolen > row->runs) {
        row->timed_runs = row->timed_runs > row->runs ? row->runs : row->timed_runs;
        row->stolen = row->stolen > row->runs ? row->runs : row->stolen;
        bad = 1;
    }
    if (row->max_ns > row->exec_ns || row->max_ns > limits->latest_ns || (row->timed_runs == 0 && row->exec_ns != 0)) {
        row->max_ns = row->exec_ns = row->suspend_ns = 0;
        row->timed_runs = 0;
        bad = 1;
    }
    return bad;
}

/*
 * The sampled tier's row: tasks counted at creation, the construct's time
 * from samples, spread over its tasks for the mean; nothing per run.  A
 * sampled time no thread could have spent is dropped.
 */
static int take_sampled_task_construct(struct ompc_model_task_construct *row, const struct ompc_task_construct *raw,
                                       const uint64_t pending[2], const struct limits *limits)
{
    int bad = take_task_construct(row, raw, pending, limits);
    row->completed = row->runs = row->stolen = row->max_ns = row->suspend_ns = row->suspensions = 0;
    row->exec_ns = row->sampled_ns;
    row->timed_runs = row->created;
    return bad;
}

/*
 * One thread's pending creations (record.h) added to the raw rows' counts
 * in `sums` (created, undeferred per row).  The thread's entries are
 * taken whole or not at all: each names a used row, holds no more
 * undeferred than created, and together no more than the tasks the
 * thread's own count says it created.  Returns 1 when refused.
 */
static int take_pending(uint64_t (*sums)[2], const struct ompc_process *from, int t)
{
    const struct ompc_task_pending *pending = &from->task_pending[t];
    uint64_t made = atomic_load(&from->threads[t].task_events[OMP_EVENT_THR_BEGIN_CREATE_TASK - OMPC_TASK_EVENT_FIRST]);
    uint64_t total = 0;
    for (int k = 0; k < OMPC_TASK_PENDING_ROWS; k++) {
        int32_t row = atomic_load(&pending->row[k]);
        uint64_t created = atomic_load(&pending->created[k]), undeferred = atomic_load(&pending->undeferred[k]);
        if (row == 0 && created == 0 && undeferred == 0)
            continue;
        if (row <= 0 || row > OMPC_MAX_TASK_CONSTRUCTS || atomic_load(&from->task_constructs[row - 1].codeptr) == 0
            || undeferred > created || created > made - total)
            return 1;
        total += created;
    }
    for (int k = 0; k < OMPC_TASK_PENDING_ROWS; k++) {
        int32_t row = atomic_load(&pending->row[k]);
        if (row > 0) {
            sums[row - 1][0] = ompc_sum_u64(sums[row - 1][0], atomic_load(&pending->created[k]));
            sums[row - 1][1] = ompc_sum_u64(sums[row - 1][1], atomic_load(&pending->undeferred[k]));
        }
    }
    return 0;
}

/* Every thread's pending creations, per raw row; NULL when out of memory. */
static uint64_t (*pending_creations(const struct ompc_process *from, const struct limits *limits,
                                    struct ompc_damage *damage))[2]
{
    uint64_t (*sums)[2] = calloc(OMPC_MAX_TASK_CONSTRUCTS, sizeof *sums);
    if (sums == NULL)
        return NULL;
    unsigned long refused = 0;
    EACH_FILLED_ROW(limits, task_pending, OMPC_MAX_THREADS, t)
        refused += (unsigned long)take_pending(sums, from, t);
    if (refused > 0)
        ompc_damage_note(damage, "%lu threads' pending task creations that name no used task construct or more "
                                 "tasks than the thread created (ignored)", refused);
    return sums;
}

/* The task construct table's used rows (zero rows when the runtime did not answer TASK_INFO). */
static int take_task_constructs(struct ompc_model_process *to, const struct ompc_process *from,
                                const struct limits *limits)
{
    to->has_task_info = atomic_load(&from->has_task_info) != 0;
    to->task_tier = from->task_tier == OMPC_TASK_TIER_SAMPLED ? OMPC_TASK_TIER_SAMPLED : OMPC_TASK_TIER_FULL;
    to->task_constructs_dropped = atomic_load(&from->task_constructs_dropped);
    to->task_nest_overflow = atomic_load(&from->task_nest_overflow);
    uint32_t used = 0;
    EACH_FILLED_ROW(limits, task_constructs, OMPC_MAX_TASK_CONSTRUCTS, i)
        used += atomic_load(&from->task_constructs[i].codeptr) != 0;
    to->task_constructs = calloc(used + 1, sizeof *to->task_constructs);
    uint64_t (*pending)[2] = pending_creations(from, limits, &to->damage);
    if (to->task_constructs == NULL || pending == NULL) {
        free(pending);
        return -1;
    }
    unsigned long bad = 0;
    EACH_FILLED_ROW(limits, task_constructs, OMPC_MAX_TASK_CONSTRUCTS, i) {
        if (atomic_load(&from->task_constructs[i].codeptr) == 0 || to->task_construct_count == used)
            continue;
        struct ompc_model_task_construct *row = &to->task_constructs[to->task_construct_count++];
        bad += (unsigned long)(to->task_tier == OMPC_TASK_TIER_SAMPLED
                                   ? take_sampled_task_construct(row, &from->task_constructs[i], pending[i], limits)
                                   : take_task_construct(row, &from->task_constructs[i], pending[i], limits));
    }
    free(pending);
    if (bad > 0)
        ompc_damage_note(&to->damage, "%lu task construct rows with counts or times that cannot be (held to "
                                      "what they can be)", bad);
    return 0;
}

/* The SERIAL samples of the followed threads: what the places may count at most. */
static uint64_t serial_samples(const struct ompc_model_process *to)
{
    uint64_t total = 0;
    for (int i = 0; i < to->thread_count; i++)
        total += to->threads[i].state_ticks[THR_SERIAL_STATE];
    return total;
}

/*
 * Where serial code ran (version 7 on): the used rows.  The sampler counts
 * a sample in its thread's state before its place, so the places never
 * hold more than the threads' SERIAL samples; a table that does was
 * written by someone else, and is ignored whole.
 */
static int take_serial_places(struct ompc_model_process *to, const struct ompc_process *from,
                              const struct limits *limits)
{
    to->serial_located = limits->header->version > OMPC_RECORD_VERSION_NO_SERIAL && to->sampling != OMPC_SAMPLING_OFF
                         && to->sampling != OMPC_SAMPLING_NO_SIGNAL;
    uint32_t used = 0;
    EACH_FILLED_ROW(limits, serial_places, OMPC_SERIAL_PLACES, i)
        used += atomic_load(&from->serial_places[i].pc) != 0 && atomic_load(&from->serial_places[i].ticks) != 0;
    to->serial_places = calloc(used + 1, sizeof *to->serial_places);
    if (to->serial_places == NULL)
        return -1;
    uint64_t most = serial_samples(to), sum = atomic_load(&from->serial_places_dropped);
    EACH_FILLED_ROW(limits, serial_places, OMPC_SERIAL_PLACES, i) {
        struct ompc_model_place place = {atomic_load(&from->serial_places[i].pc),
                                         atomic_load(&from->serial_places[i].ticks)};
        if (place.pc == 0 || place.ticks == 0 || to->serial_place_count == used)
            continue;
        to->serial_places[to->serial_place_count++] = place;
        sum = ompc_sum_u64(sum, place.ticks);
    }
    to->serial_places_dropped = atomic_load(&from->serial_places_dropped);
    if (sum > most) {
        ompc_damage_note(&to->damage, "serial code places count %llu samples, more than the %llu in SERIAL: "
                         "ignored", (unsigned long long)sum, (unsigned long long)most);
        to->serial_place_count = 0;
        to->serial_places_dropped = 0;
        to->serial_located = 0;
    }
    return 0;
}

/* The threads' time, samples and calls inside MPI: what the call sites and MPI's start and end may hold at most. */
static void mpi_totals(const struct ompc_model_process *to, uint64_t *ns, uint64_t *ticks, uint64_t *calls)
{
    *ns = *ticks = *calls = 0;
    for (int i = 0; i < to->thread_count; i++) {
        *ns = ompc_sum_u64(*ns, to->threads[i].mpi_ns);
        *ticks += to->threads[i].mpi_ticks;
        *calls = ompc_sum_u64(*calls, to->threads[i].mpi_calls);
    }
}

/* The calls no row took: at most the threads' MPI calls, else someone else's writing (held to 0, and said). */
static void take_mpi_dropped(struct ompc_model_process *to, const struct ompc_process *from, uint64_t most_calls)
{
    to->mpi_sites_dropped = atomic_load(&from->mpi_sites_dropped);
    if (to->mpi_sites_dropped > most_calls) {
        ompc_damage_note(&to->damage, "%llu MPI calls past the call site table, more than the threads' %llu MPI "
                         "calls: ignored", (unsigned long long)to->mpi_sites_dropped, (unsigned long long)most_calls);
        to->mpi_sites_dropped = 0;
    }
}

/*
 * MPI's start and end and the call sites (version 8 on; zero before).  The
 * rows add up what the threads' rows add, so more time or samples than
 * theirs, or a call number outside mpi_calls.h, is someone else's writing:
 * the table is ignored whole (and MPI's start and end held to the threads').
 */
static int take_mpi_sites(struct ompc_model_process *to, const struct ompc_process *from, const struct limits *limits)
{
    uint64_t most_ns, most_ticks, most_calls, ns = 0, ticks = 0;
    mpi_totals(to, &most_ns, &most_ticks, &most_calls);
    to->mpi_setup_ns = atomic_load(&from->mpi_setup_ns);
    to->mpi_setup_calls = atomic_load(&from->mpi_setup_calls);
    if (to->mpi_setup_ns > most_ns) {
        ompc_damage_note(&to->damage, "MPI_Init and MPI_Finalize took longer than the threads' MPI time: held to it");
        to->mpi_setup_ns = most_ns;
    }
    to->mpi_sites = calloc(OMPC_MPI_SITES + 1, sizeof *to->mpi_sites);
    if (to->mpi_sites == NULL)
        return -1;
    int bad = 0;
    EACH_FILLED_ROW(limits, mpi_sites, OMPC_MPI_SITES, i) {
        const struct ompc_mpi_site *row = &from->mpi_sites[i];
        uint64_t key = atomic_load(&row->key);
        if (key == 0)
            continue;
        struct ompc_model_mpi_site *site = &to->mpi_sites[to->mpi_site_count++];
        *site = (struct ompc_model_mpi_site){(int)(key >> 48) - 1, key & ((UINT64_C(1) << 48) - 1),
                                             atomic_load(&row->calls), atomic_load(&row->ns), atomic_load(&row->ticks)};
        bad |= site->call < 0 || site->call >= OMPC_MPI_CALL_COUNT || site->ns > most_ns - ns
               || site->ticks > most_ticks - ticks;
        if (!bad) {
            ns += site->ns;
            ticks += site->ticks;
        }
    }
    take_mpi_dropped(to, from, most_calls);
    if (bad) {
        ompc_damage_note(&to->damage, "MPI call sites with an unknown call, or more time or samples than the "
                                      "threads' MPI rows: ignored");
        to->mpi_site_count = 0;
        to->mpi_sites_dropped = 0;
    }
    return 0;
}

/* The module map and what the extension answered. */
static int take_code(struct ompc_model_process *to, const struct ompc_process *from)
{
    uint32_t modules = atomic_load(&from->module_count);
    if (modules > OMPC_MAX_MODULES) {
        ompc_damage_note(&to->damage, "a module count of %u (at most %d): the first %d kept", modules,
                         OMPC_MAX_MODULES, OMPC_MAX_MODULES);
        modules = OMPC_MAX_MODULES;
    }
    to->modules = calloc(modules > 0 ? modules : 1, sizeof *to->modules);
    if (to->modules == NULL)
        return -1;
    to->module_count = modules;
    for (uint32_t i = 0; i < modules; i++) {
        to->modules[i].bias = from->modules[i].bias;
        memcpy(to->modules[i].path, from->modules[i].path, OMPC_MODULE_PATH);
        to->modules[i].path[OMPC_MODULE_PATH - 1] = '\0';
    }
    to->modules_dropped = atomic_load(&from->modules_dropped);
    to->has_sample = atomic_load(&from->has_sample);
    to->constructs_dropped = atomic_load(&from->constructs_dropped);
    return 0;
}

/* A count of entries in an array of `size`, clamped with a note when it claims more. */
static int32_t take_count(int32_t count, int32_t size, const char *what, struct ompc_damage *damage)
{
    if (count >= 0 && count <= size)
        return count;
    ompc_damage_note(damage, "%s claims %d entries of %d: ignored", what, count, size);
    return 0;
}

/* The slot's own fields: identity, how it ended, sampling, the events asked for. */
static void take_identity(struct ompc_model_process *to, const struct ompc_process *from, struct limits *limits)
{
    struct ompc_damage *damage = &to->damage;
    to->state = atomic_load(&from->state);
    if (to->state > OMPC_PROC_REFUSED) {
        ompc_damage_note(damage, "an unknown process state %u (taken as ended without a word)", to->state);
        to->state = OMPC_PROC_RECORDING;
    }
    to->pid = from->pid;
    to->ppid = from->ppid;
    uint32_t slots = limits->header->process_count;
    to->parent_slot = from->parent_slot >= -1 && from->parent_slot < (int32_t)slots ? from->parent_slot : -1;
    to->exec_slot = from->exec_slot >= -1 && from->exec_slot < (int32_t)slots && from->exec_slot != (int32_t)to->index
                        ? from->exec_slot
                        : -1;
    if (to->parent_slot != from->parent_slot || to->exec_slot != from->exec_slot)
        ompc_damage_note(damage, "a parent or exec slot outside the record's %u slots", slots);
    to->start_ticks = from->start_ticks;
    to->end_ns = take_time(limits, atomic_load(&from->end_ns));
    to->alive_ns = take_time(limits, atomic_load(&from->alive_ns));
    to->exit_status = atomic_load(&from->exit_status);
    to->openmp = atomic_load(&from->openmp) != 0;
    take_text(to->program, from->program, sizeof to->program, "program name", damage);
    take_text(to->runtime, from->runtime, sizeof to->runtime, "runtime path", damage);
    take_text(to->attach_error, from->attach_error, sizeof to->attach_error, "attach error", damage);
    to->sample_signal = from->sample_signal >= 0 && from->sample_signal < 128 ? from->sample_signal : 0;
    to->sampling = atomic_load(&from->sampling);
    to->sampling_stopped_ns = take_time(limits, atomic_load(&from->sampling_stopped_ns));
    to->program_handler_ns = take_time(limits, atomic_load(&from->program_handler_ns));
    to->signals_passed = atomic_load(&from->signals_passed);
    to->blocking_threads = atomic_load(&from->blocking_threads);
    to->request_count = take_count(from->request_count, OMPC_NEVENTS, "the event requests", damage);
    memcpy(to->requests, from->requests, sizeof to->requests);
    to->task_request_count = take_count(from->task_request_count, OMPC_TASK_EVENTS, "the task requests", damage);
    memcpy(to->task_requests, from->task_requests, sizeof to->task_requests);
    to->event_mask = from->event_mask;
    to->threads_not_followed = atomic_load(&from->threads_not_followed);
    to->regions_overflow_forks = atomic_load(&from->regions_overflow_forks);
    to->forks = atomic_load(&from->forks);
    to->joins = atomic_load(&from->joins);
    to->outermost_ns = atomic_load(&from->outermost_ns);
    to->nest_overflow = atomic_load(&from->nest_overflow);
    to->session_ns = take_time(limits, atomic_load(&from->session_ns));
}

/* The latest relative time the process can have recorded: the launcher's end less the origin. */
static uint64_t latest_time(const struct ompc_process *from, const struct ompc_load_bounds *bounds,
                            struct ompc_damage *damage)
{
    if (bounds == NULL || bounds->run_end_ns == 0)
        return UINT64_MAX;
    if (from->origin_ns > bounds->run_end_ns || from->origin_ns + 1000000000u < bounds->run_start_ns) {
        ompc_damage_note(damage, "its origin lies outside the run: every time taken as 0");
        return 0;
    }
    return bounds->run_end_ns - from->origin_ns;
}

struct ompc_model_process *ompc_load_process(int fd, const struct ompc_record_header *header, uint32_t index,
                                             unsigned what, const struct ompc_load_bounds *bounds)
{
    struct ompc_model_process *to = calloc(1, sizeof *to);
    /* Fresh zero pages, which only the slot's data (read_sparse) and what the loader reads touch: a slot is megabytes of mostly holes. */
    struct ompc_process *from = mmap(NULL, sizeof *from, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (to == NULL || from == MAP_FAILED) {
        free(to);
        if (from != MAP_FAILED)
            munmap(from, sizeof *from);
        return NULL;
    }
    to->index = index;
    to->parent_slot = to->exec_slot = -1;
    to->arena_refused = header->arena_refused;
    to->processes_dropped = header->processes_dropped;
    int failed = 0;
    /*
     * An older slot ends before the fields later versions appended, which
     * stay zero.  The construct kinds came within version 8, the task-stack
     * tables after them, the pending creations last: each is read when the slot holds it whole
     * (process_size says), else it stays zero (unknown, none), whatever the
     * slot's padding holds.
     */
    size_t slot_bytes = ompc_record_slot_bytes(header->version);
    if (header->version == OMPC_RECORD_VERSION && header->process_size >= sizeof *from)
        slot_bytes = sizeof *from;
    else if (header->version == OMPC_RECORD_VERSION && header->process_size >= OMPC_PROCESS_SIZE_NO_TASK_PENDING)
        slot_bytes = OMPC_PROCESS_SIZE_NO_TASK_PENDING; /* the task-stack tables, without the pending creations */
    else if (header->version == OMPC_RECORD_VERSION && header->process_size >= OMPC_PROCESS_SIZE_NO_TASK_STACKS)
        slot_bytes = OMPC_PROCESS_SIZE_NO_TASK_STACKS; /* the kinds, without the task-stack tables that came after */
    struct filled filled = {0, 0, NULL};
    if (index >= header->process_count || read_sparse(fd, from, slot_bytes, slot_offset(header, index), &filled) != 0) {
        ompc_damage_note(&to->damage, "the record ends inside this process's slot (truncated): nothing of it read");
        to->state = OMPC_PROC_FREE;
        failed = (to->threads = calloc(1, sizeof *to->threads)) == NULL
              || (to->regions = calloc(1, sizeof *to->regions)) == NULL
              || (to->constructs = calloc(1, sizeof *to->constructs)) == NULL
              || (to->task_constructs = calloc(1, sizeof *to->task_constructs)) == NULL
              || (to->serial_places = calloc(1, sizeof *to->serial_places)) == NULL
              || (to->mpi_sites = calloc(1, sizeof *to->mpi_sites)) == NULL
              || take_code(to, memset(from, 0, sizeof *from)) != 0;
    } else {
        struct limits limits = {header, latest_time(from, bounds, &to->damage), 0, 0, &filled,
                                bounds != NULL ? bounds->claims : NULL, NULL};
        to->origin_ns = from->origin_ns;
        take_identity(to, from, &limits);
        failed = take_threads(fd, to, from, what, &limits) != 0;
        if (!failed)
            take_mpi(to, from, &limits);
        failed = failed || ompc_load_tasks(to) != 0
              || take_regions(to, from, &limits) != 0 || take_constructs(fd, to, from, &limits) != 0
              || take_task_constructs(to, from, &limits) != 0 || take_code(to, from) != 0
              || take_serial_places(to, from, &limits) != 0 || take_mpi_sites(to, from, &limits) != 0;
        if (limits.clamped > 0)
            ompc_damage_note(&to->damage, "%lu times past the end of the run (set to its end)", limits.clamped);
        if (limits.bad_waits > 0)
            ompc_damage_note(&to->damage, "%lu waits in no state of the 11 (ignored)", limits.bad_waits);
        free((void *)limits.refused);
    }
    munmap(from, sizeof *from);
    free(filled.runs);
    if (failed) {
        ompc_model_free(to);
        return NULL;
    }
    return to;
}

/* Whether a module is the kernel's vDSO, which has no file to read (model.h). */
int ompc_model_vdso_module(const char *path)
{
    return strncmp(path, "linux-vdso.so", 13) == 0 || strncmp(path, "linux-gate.so", 13) == 0;
}

const char *ompc_model_module_file(const struct ompc_model_process *process, const char *path)
{
    for (size_t k = 0; process->stand_ins != NULL && process->stand_ins[k] != NULL; k += 2)
        if (strcmp(path, process->stand_ins[k]) == 0)
            return process->stand_ins[k + 1];
    return path;
}

struct ompc_symbolizer *ompc_model_symbolizer(const struct ompc_model_process *process, uint64_t *vdso)
{
    if (vdso != NULL)
        *vdso = 0;
    char *under_symfs = NULL;
    const char *debuginfo_path = process->debuginfo_path;
    if (debuginfo_path == NULL && process->symfs != NULL
        && asprintf(&under_symfs, ":.debug:%s/usr/lib/debug", process->symfs) >= 0)
        debuginfo_path = under_symfs;
    struct ompc_symbolizer *symbolizer = process->module_count > 0 ? ompc_symbolizer_new(debuginfo_path) : NULL;
    free(under_symfs);
    for (uint32_t i = 0; symbolizer != NULL && i < process->module_count; i++) {
        const char *path = process->modules[i].path;
        if (vdso != NULL && ompc_model_vdso_module(path))
            *vdso = process->modules[i].bias;
        ompc_symbolizer_add_module(symbolizer, ompc_model_module_file(process, path), process->symfs,
                                   process->modules[i].bias);
    }
    return symbolizer;
}

struct ompc_code_ranges *ompc_model_code_ranges(const struct ompc_model_process *process)
{
    struct ompc_code_ranges *ranges = ompc_code_ranges_new();
    if (ranges == NULL)
        return NULL;
    if (process->modules_dropped != 0)
        ompc_code_ranges_unknown(ranges);
    for (uint32_t i = 0; i < process->module_count; i++) {
        const struct ompc_model_module *module = &process->modules[i];
        /* The vDSO has no file: its code is taken to span 16 KiB, as stacks.c names it (the kernel maps 2-4 pages). */
        if (ompc_model_vdso_module(module->path) ? ompc_code_ranges_add(ranges, module->bias, module->bias + OMPC_VDSO_SIZE) != 0
                                      : ompc_code_ranges_add_file(ranges, ompc_model_module_file(process, module->path),
                                                                  process->symfs, module->bias) != 0)
            ompc_code_ranges_unknown(ranges);
    }
    return ranges;
}

void ompc_model_free(struct ompc_model_process *process)
{
    if (process == NULL)
        return;
    for (int i = 0; process->threads != NULL && i < process->thread_count; i++) {
        free(process->threads[i].waits);
        free(process->threads[i].timeline);
        free(process->threads[i].timeline_where);
        free(process->threads[i].event_log);
        free(process->threads[i].stacks.words);
        free(process->threads[i].stacks.entries);
        free(process->threads[i].fork_stacks.words);
        free(process->threads[i].fork_stacks.entries);
        free(process->threads[i].copies);
        free(process->threads[i].copy_data);
        free(process->threads[i].task_stacks);
    }
    free(process->threads);
    free(process->tasks);
    free(process->regions);
    free(process->constructs);
    free(process->task_constructs);
    free(process->serial_places);
    free(process->mpi_sites);
    free(process->modules);
    free(process);
}
