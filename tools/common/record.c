/* record.c - lays out, checks and allocates in the shared record that the ompcollect agent writes and the launcher reads. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include "record.h"

#include <string.h>

/* Slots start on page boundaries so a later version may map or punch them one by one. */
#define SLOT_ALIGN 4096u

/* `value` rounded up to a multiple of `align` (a power of two). */
static uint64_t round_up(uint64_t value, uint64_t align)
{
    return (value + align - 1) & ~(align - 1);
}

/* Fills in magic, version and layout; the caller sets run id and options. */
uint64_t ompc_record_layout(struct ompc_record_header *header, uint32_t flags)
{
    memset(header, 0, sizeof *header);
    memcpy(header->magic, OMPC_RECORD_MAGIC, sizeof header->magic);
    header->version = OMPC_RECORD_VERSION;
    header->header_size = sizeof *header;
    header->flags = flags;
    header->process_count = OMPC_MAX_PROCESSES;
    header->process_size = (uint32_t)round_up(sizeof(struct ompc_process), SLOT_ALIGN);
    header->process_offset = round_up(sizeof *header, SLOT_ALIGN);
    header->thread_size = sizeof(struct ompc_thread);
    header->region_size = sizeof(struct ompc_region);
    header->arena_offset = header->process_offset + (uint64_t)header->process_count * header->process_size;
    /* Every thread's wait table and construct counters, and its timeline when asked for. */
    uint64_t per_thread = round_up(OMPC_WAIT_SLOTS * sizeof(struct ompc_wait), 64)
                          + round_up(OMPC_MAX_CONSTRUCTS * sizeof(uint64_t), 64);
    if (flags & OMPC_OPT_TIMELINE)
        per_thread += round_up(OMPC_TIMELINE_CAP * sizeof(uint64_t), 64);
    header->arena_size = OMPC_ARENA_DEFAULT + per_thread * OMPC_MAX_THREADS;
    header->total_size = header->arena_offset + header->arena_size;
    return header->total_size;
}

/* Room for every thread's stack and fork-stack tables (sparse: only what is written costs memory). */
uint64_t ompc_record_reserve_stacks(struct ompc_record_header *header)
{
    uint64_t per_thread = OMPC_STACK_TABLE_BYTES + OMPC_FORK_TABLE_BYTES + 128;
    if (header->flags & OMPC_OPT_STACKS_DWARF)
        per_thread += OMPC_STACK_COPIES_BYTES + 64;
    if (header->flags & OMPC_OPT_TASKS)
        per_thread += round_up(OMPC_TASK_STACK_BYTES, 64);
    header->arena_size += per_thread * OMPC_MAX_THREADS;
    header->total_size = header->arena_offset + header->arena_size;
    return header->total_size;
}

/* Room for every thread's event log: OMPC_MAX_THREADS buffers of `bytes` more arena (sparse). */
uint64_t ompc_record_reserve_event_log(struct ompc_record_header *header, uint64_t bytes)
{
    header->event_log_bytes = round_up(bytes, 64);
    header->arena_size += header->event_log_bytes * OMPC_MAX_THREADS;
    header->total_size = header->arena_offset + header->arena_size;
    return header->total_size;
}

/* Room for OMPC_MAX_THREADS threads' timeline code addresses beside their timelines (sparse). */
uint64_t ompc_record_reserve_timeline_where(struct ompc_record_header *header)
{
    header->arena_size += (uint64_t)OMPC_TIMELINE_CAP * sizeof(uint64_t) * OMPC_MAX_THREADS;
    header->total_size = header->arena_offset + header->arena_size;
    return header->total_size;
}

size_t ompc_record_slot_bytes(uint32_t version)
{
    switch (version) {
    case OMPC_RECORD_VERSION:
        /* The construct kinds came within version 8: a slot may end before them (process_size says). */
        return OMPC_PROCESS_SIZE_NO_KINDS;
    case OMPC_RECORD_VERSION_NO_MPI_CALLS:
        return OMPC_PROCESS_SIZE_NO_MPI_CALLS;
    case OMPC_RECORD_VERSION_NO_SERIAL:
        return OMPC_PROCESS_SIZE_NO_SERIAL;
    case OMPC_RECORD_VERSION_NO_MPI:
        return OMPC_PROCESS_SIZE_NO_MPI;
    default:
        return 0;
    }
}

/* Everything a reader relies on before it touches a slot. */
const char *ompc_record_check(const struct ompc_record_header *header, uint64_t file_size)
{
    if (memcmp(header->magic, OMPC_RECORD_MAGIC, sizeof header->magic) != 0)
        return "not an ompcollect record (bad magic)";
    uint64_t slot = ompc_record_slot_bytes(header->version);
    if (slot == 0)
        return "a record of another ompcollect version";
    if (header->header_size != sizeof *header || header->thread_size != sizeof(struct ompc_thread)
        || header->region_size != sizeof(struct ompc_region) || header->process_size < slot)
        return "a record laid out by another build";
    if (header->total_size != file_size)
        return "the record's size does not match its file";
    if (header->process_count == 0 || header->process_count > OMPC_MAX_PROCESSES
        || header->process_offset < sizeof *header
        || header->arena_offset != header->process_offset
                                       + (uint64_t)header->process_count * header->process_size
        || header->arena_offset + header->arena_size != header->total_size)
        return "the record's layout is inconsistent";
    return NULL;
}

/* Slot `index`; the caller keeps `index` below process_count. */
struct ompc_process *ompc_record_process(struct ompc_record_header *header, uint32_t index)
{
    return (struct ompc_process *)((char *)header + header->process_offset
                                   + (uint64_t)index * header->process_size);
}

/*
 * Open addressing on the code address, the first field of each of `rows`
 * rows of `row_size` bytes; a row, once claimed, keeps its address for
 * the run.  Probing stops after CONSTRUCT_PROBES rows so that a nearly
 * full table costs a sample a bounded time; what finds no row is counted
 * in `dropped`, as if the table were full.
 */
#define CONSTRUCT_PROBES 512
static int hashed_row(void *table, size_t row_size, unsigned rows, _Atomic uint64_t *dropped, uint64_t weight,
                      uint64_t codeptr)
{
    uint64_t hash = codeptr * UINT64_C(0x9E3779B97F4A7C15);
    for (unsigned probe = 0; probe < CONSTRUCT_PROBES; probe++) {
        unsigned index = (unsigned)((hash >> 40) + probe) % rows;
        _Atomic uint64_t *key = (_Atomic uint64_t *)((char *)table + (size_t)index * row_size);
        uint64_t seen = atomic_load_explicit(key, memory_order_acquire);
        if (seen == 0) {
            uint64_t expected = 0;
            if (atomic_compare_exchange_strong(key, &expected, codeptr))
                return (int)index;
            seen = expected;
        }
        if (seen == codeptr)
            return (int)index;
    }
    atomic_fetch_add_explicit(dropped, weight, memory_order_relaxed);
    return -1;
}

int ompc_record_construct(struct ompc_process *process, uint64_t codeptr)
{
    _Static_assert(offsetof(struct ompc_construct, codeptr) == 0, "the key leads the row");
    return hashed_row(process->constructs, sizeof process->constructs[0], OMPC_MAX_CONSTRUCTS,
                      &process->constructs_dropped, 1, codeptr);
}

int ompc_record_task_construct(struct ompc_process *process, uint64_t codeptr)
{
    _Static_assert(offsetof(struct ompc_task_construct, codeptr) == 0, "the key leads the row");
    return hashed_row(process->task_constructs, sizeof process->task_constructs[0], OMPC_MAX_TASK_CONSTRUCTS,
                      &process->task_constructs_dropped, 1, codeptr);
}

int ompc_record_mpi_site(struct ompc_process *process, int call, uint64_t site)
{
    _Static_assert(offsetof(struct ompc_mpi_site, key) == 0, "the key leads the row");
    if (call < 0 || call >= OMPC_MPI_CALL_COUNT || site >> 48 != 0) {
        atomic_fetch_add_explicit(&process->mpi_sites_dropped, 1, memory_order_relaxed);
        return -1;
    }
    return hashed_row(process->mpi_sites, sizeof process->mpi_sites[0], OMPC_MPI_SITES, &process->mpi_sites_dropped,
                      1, site | (uint64_t)(call + 1) << 48);
}

void ompc_record_serial_place(struct ompc_process *process, uint64_t pc, uint64_t weight)
{
    _Static_assert(offsetof(struct ompc_place, pc) == 0, "the key leads the row");
    if (pc == 0) {
        atomic_fetch_add_explicit(&process->serial_places_dropped, weight, memory_order_relaxed);
        return;
    }
    int row = hashed_row(process->serial_places, sizeof process->serial_places[0], OMPC_SERIAL_PLACES,
                         &process->serial_places_dropped, weight, pc);
    if (row >= 0)
        atomic_fetch_add_explicit(&process->serial_places[row].ticks, weight, memory_order_relaxed);
}

void ompc_record_task_stack(struct ompc_record_header *header, struct ompc_process *process, int index, uint64_t entry,
                            int row, uint64_t weight)
{
    uint64_t offset = index >= 0 && index < OMPC_MAX_THREADS ? atomic_load_explicit(&process->task_stacks[index],
                                                                                     memory_order_relaxed) : 0;
    if (offset == 0 || entry == 0 || row < 0 || row >= OMPC_MAX_TASK_CONSTRUCTS
        || entry >= (UINT64_C(1) << (64 - OMPC_TASK_STACK_ROW_BITS)))
        return;
    struct ompc_task_stack_table *table = (struct ompc_task_stack_table *)((char *)header + offset);
    struct ompc_task_stack *cells = (struct ompc_task_stack *)(table + 1);
    uint64_t key = entry << OMPC_TASK_STACK_ROW_BITS | (uint64_t)(row + 1);
    uint64_t hash = (key * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
    /* Only the owning thread writes: a free cell is claimed by a plain store, its count published after. */
    for (uint32_t probe = 0; probe < 32; probe++) {
        struct ompc_task_stack *cell = &cells[(hash + probe) % OMPC_TASK_STACK_SLOTS];
        uint64_t held = atomic_load_explicit(&cell->key, memory_order_relaxed);
        if (held == 0) {
            atomic_store_explicit(&cell->count, weight, memory_order_relaxed);
            atomic_store_explicit(&cell->key, key, memory_order_release);
            return;
        }
        if (held == key) {
            atomic_fetch_add_explicit(&cell->count, weight, memory_order_relaxed);
            return;
        }
    }
    atomic_fetch_add_explicit(&table->full, weight, memory_order_relaxed);
}

/* A compare-and-swap loop, so a refused request leaves the arena usable for smaller ones. */
uint64_t ompc_record_alloc(struct ompc_record_header *header, uint64_t size)
{
    size = round_up(size, 64);
    uint64_t used = atomic_load(&header->arena_used);
    do {
        if (size > header->arena_size || used > header->arena_size - size) {
            atomic_fetch_add(&header->arena_refused, 1);
            return 0;
        }
    } while (!atomic_compare_exchange_weak(&header->arena_used, &used, used + size));
    return header->arena_offset + used;
}

/* Whether `extent` bytes at mapping offset `offset` lie in the arena; offset 0 is no buffer at all. */
int ompc_record_in_arena(const struct ompc_record_header *header, uint64_t offset, uint64_t extent)
{
    /* Without overflow: a forged offset near 2^64 must not wrap back into the record. */
    return offset != 0 && offset >= header->arena_offset && extent <= header->total_size
        && offset <= header->total_size - extent;
}

/* Name of a process state. */
const char *ompc_process_state_name(uint32_t state)
{
    static const char *const names[] = {"free", "claimed", "recording", "ended", "execed", "refused"};
    return state < sizeof names / sizeof names[0] ? names[state] : "?";
}
