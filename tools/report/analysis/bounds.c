/* bounds.c - lists the bounds of the record a finished run reached, from the profile model, so that no output loses data without saying what and how much. */
/* SPDX-License-Identifier: BSD-3-Clause */
#include <config.h>

#include "bounds.h"
#include "record.h"
#include "taskgraph.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* The kinds' keys (bounds.h). */
static const char *const keys[OMPC_LIMIT_KINDS] = {
#define OMPC_LIMIT_KEY(kind, key) [OMPC_LIMIT_##kind] = key,
    OMPC_LIMITS(OMPC_LIMIT_KEY)
#undef OMPC_LIMIT_KEY
};

/* Appends limit `kind` when `count` is not 0. */
static void add(struct ompc_limit *out, int *used, enum ompc_limit_kind kind, uint64_t count, uint64_t bound,
                const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add(struct ompc_limit *out, int *used, enum ompc_limit_kind kind, uint64_t count, uint64_t bound,
                const char *fmt, ...)
{
    if (count == 0 || *used >= OMPC_LIMIT_KINDS)
        return;
    struct ompc_limit *limit = &out[(*used)++];
    limit->what = keys[kind];
    limit->count = count;
    limit->bound = bound;
    va_list args;
    va_start(args, fmt);
    vsnprintf(limit->text, sizeof limit->text, fmt, args);
    va_end(args);
}

/* Per-thread counts summed over the followed threads. */
struct thread_sums {
    uint64_t wait_overflow, stack_dropped, copies_dropped, task_stacks_full, log_dropped, log_first_ns;
    int log_threads, timeline_threads;
    uint64_t timeline_first_ns;
};

static void sum_threads(const struct ompc_model_process *process, struct thread_sums *sums)
{
    *sums = (struct thread_sums){0};
    for (int i = 0; i < process->thread_count; i++) {
        const struct ompc_model_thread *thread = &process->threads[i];
        sums->wait_overflow += thread->wait_overflow_ticks;
        sums->copies_dropped += thread->copies_dropped;
        sums->task_stacks_full += thread->task_stacks_full;
        for (int s = 0; s < OMPC_NSTATES; s++)
            sums->stack_dropped += thread->stack_dropped[s];
        if (thread->event_log_dropped != 0) {
            sums->log_dropped += thread->event_log_dropped;
            sums->log_threads++;
            if (sums->log_first_ns == 0 || thread->event_log_dropped_ns < sums->log_first_ns)
                sums->log_first_ns = thread->event_log_dropped_ns;
        }
        if (thread->timeline_truncated && thread->timeline_length > 0) {
            uint64_t last_ns = ompc_change_ns(thread->timeline[thread->timeline_length - 1]);
            sums->timeline_threads++;
            if (sums->timeline_first_ns == 0 || last_ns < sums->timeline_first_ns)
                sums->timeline_first_ns = last_ns;
        }
    }
}

/* The trace's and the pictures' limits: per-thread buffers that filled. */
static void buffer_limits(const struct ompc_model_process *process, const struct thread_sums *sums,
                          uint64_t event_log_bytes, struct ompc_limit *out, int *used)
{
    if (event_log_bytes != 0)
        add(out, used, OMPC_LIMIT_EVENT_LOG, sums->log_dropped, event_log_bytes,
            "%" PRIu64 " events of %d threads did not fit their %" PRIu64 "-byte event logs (--trace-buffer) "
            "and are not in the trace, which marks where each thread's log ran full, the first at %.3f s",
            sums->log_dropped, sums->log_threads, event_log_bytes, sums->log_first_ns / 1e9);
    add(out, used, OMPC_LIMIT_TIMELINE, (uint64_t)sums->timeline_threads, OMPC_TIMELINE_CAP,
        "the timelines of %d threads filled their %u state changes and end early where marked, the first at "
        "%.3f s",
        sums->timeline_threads, OMPC_TIMELINE_CAP, sums->timeline_first_ns / 1e9);
    add(out, used, OMPC_LIMIT_STACKS, sums->stack_dropped, OMPC_STACK_TABLE_BYTES,
        "%" PRIu64 " samples' call stacks did not fit their thread's %" PRIu64 "-byte stack table and are "
        "counted without a stack", sums->stack_dropped, (uint64_t)OMPC_STACK_TABLE_BYTES);
    add(out, used, OMPC_LIMIT_STACK_COPIES, sums->copies_dropped, OMPC_STACK_COPIES_BYTES,
        "%" PRIu64 " samples found their thread's %" PRIu64 "-byte stack-copy buffer (--stacks-unwind=dwarf) "
        "full and were unwound by frame pointers", sums->copies_dropped, (uint64_t)OMPC_STACK_COPIES_BYTES);
    add(out, used, OMPC_LIMIT_TASK_STACKS, sums->task_stacks_full, OMPC_TASK_STACK_SLOTS,
        "%" PRIu64 " samples in explicit tasks found no cell of their thread's %d (stack, task construct) pairs "
        "and are in no task construct's stacks (--gprofng's OMP_task)",
        sums->task_stacks_full, OMPC_TASK_STACK_SLOTS);
    add(out, used, OMPC_LIMIT_ARENA, process->arena_refused, 0,
        "%" PRIu64 " requests for per-thread buffers (timelines, event logs, stack tables, wait tables) found "
        "the record's reserved space full; the threads concerned lack them", process->arena_refused);
    add(out, used, OMPC_LIMIT_THREAD_TABLES, process->threads_without_tables, 0,
        "%u threads have no wait table or construct counters (the record's reserved space was full): their "
        "waits and per-construct WORK samples are missing", process->threads_without_tables);
}

int ompc_limits_reached(const struct ompc_model_process *process, uint64_t event_log_bytes,
                        struct ompc_limit out[OMPC_LIMIT_KINDS])
{
    int used = 0;
    struct thread_sums sums;
    sum_threads(process, &sums);
    add(out, &used, OMPC_LIMIT_PROCESSES, process->processes_dropped, OMPC_MAX_PROCESSES,
        "%u further processes found no free record slot (limit %d) and are not reported",
        process->processes_dropped, OMPC_MAX_PROCESSES);
    add(out, &used, OMPC_LIMIT_THREADS, process->threads_not_followed, OMPC_MAX_THREADS,
        "%" PRIu64 " threads past the first %d of this process were not followed: their samples are lost and "
        "their events are counted together", process->threads_not_followed, OMPC_MAX_THREADS);
    add(out, &used, OMPC_LIMIT_CONSTRUCTS, process->constructs_dropped, OMPC_MAX_CONSTRUCTS,
        "%" PRIu64 " FORKs and samples belong to parallel constructs that found no row of the %d in the "
        "construct table and count in no construct", process->constructs_dropped, OMPC_MAX_CONSTRUCTS);
    add(out, &used, OMPC_LIMIT_TASK_CONSTRUCTS, process->task_constructs_dropped, OMPC_MAX_TASK_CONSTRUCTS,
        "%" PRIu64 " task creations and runs belong to task constructs that found no row of the %d in the "
        "task construct table and count in no construct", process->task_constructs_dropped,
        OMPC_MAX_TASK_CONSTRUCTS);
    add(out, &used, OMPC_LIMIT_SERIAL_PLACES, process->serial_places_dropped, OMPC_SERIAL_PLACES,
        "%" PRIu64 " samples of serial code found no row of the %d code addresses of the serial code table and "
        "are not located", process->serial_places_dropped, OMPC_SERIAL_PLACES);
    add(out, &used, OMPC_LIMIT_TASK_NESTING, process->task_nest_overflow, OMPC_TASK_NEST_DEPTH,
        "%" PRIu64 " task runs nested more than %d deep on one thread are counted but not timed",
        process->task_nest_overflow, OMPC_TASK_NEST_DEPTH);
    add(out, &used, OMPC_LIMIT_TASK_GRAPH, process->task_count > OMPC_TASK_GRAPH_NODES ? process->task_count : 0,
        OMPC_TASK_GRAPH_NODES,
        "%zu logged tasks are more than the %d nodes the task graph (--task-graph) draws one by one: it draws "
        "one node per task construct and creation depth; work, span and the critical path count every task",
        process->task_count, OMPC_TASK_GRAPH_NODES);
    add(out, &used, OMPC_LIMIT_REGIONS, process->regions_overflow_forks, OMPC_MAX_REGIONS,
        "%" PRIu64 " region instances past the first %d are not listed one by one (--list-regions); every "
        "construct figure and total counts them", process->regions_overflow_forks, OMPC_MAX_REGIONS);
    add(out, &used, OMPC_LIMIT_NESTING, process->nest_overflow, OMPC_NEST_DEPTH,
        "%" PRIu64 " regions forked more than %d levels deep on one thread are counted but not timed",
        process->nest_overflow, OMPC_NEST_DEPTH);
    add(out, &used, OMPC_LIMIT_WAITS, sums.wait_overflow, OMPC_WAIT_SLOTS,
        "%" PRIu64 " samples in waits that found no slot in their thread's table of %d waits count in no wait "
        "location",
        sums.wait_overflow, OMPC_WAIT_SLOTS);
    add(out, &used, OMPC_LIMIT_MODULES, process->modules_dropped, OMPC_MAX_MODULES,
        "%u loaded objects past the first %d (or with paths over %d bytes) are not symbolized",
        process->modules_dropped, OMPC_MAX_MODULES, OMPC_MODULE_PATH - 1);
    buffer_limits(process, &sums, event_log_bytes, out, &used);
    return used;
}
